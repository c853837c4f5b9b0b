// Llama 2 and 3.x (meta-llama/Llama-3.2-1B; models/llama/modeling_llama.py): RMSNorm before
// attention and the gated MLP, RoPE with Llama 3's or linear scaling, grouped K/V heads.
#include "family.h"

namespace attnlab::models::families {
namespace {

void read_llama(const ConfigReader& read, ModelConfig& config) {
  read_llama_sizes(read, config);
  config.qkv_bias = config.o_bias = read.flag("attention_bias", false);
  // LlamaAttention's apply_rotary_pos_emb turns every coordinate (a partial factor would not fit).
  read.require("partial_rotary_factor", 1.0, "Llama rotates every coordinate of a head");
  const Rope rope = read_rope(read, config, read.rope_base("rope_theta", 10000.0), config.head_dim, {"linear", "llama3"});
  for (LayerAttention& layer : config.attention) layer.rope = rope;
}

}  // namespace

Family llama() { return {"llama", read_llama, llama_names()}; }

}  // namespace attnlab::models::families
