// Qwen3 (Qwen/Qwen3-0.6B; models/qwen3/modeling_qwen3.py): Qwen2's layer without biases and with
// QK-norm: q_norm and k_norm, RMSNorm over each head's head_dim, before RoPE.
#include "family.h"

namespace attnlab::models::families {

bool qwen_sliding(int layer, const ConfigReader& read);  // qwen2.cpp

namespace {

void read_qwen3(const ConfigReader& read, ModelConfig& config) {
  read_llama_sizes(read, config);
  config.qkv_bias = config.o_bias = read.flag("attention_bias", false);
  config.qk_norm = QkNorm{QkNorm::Scope::head, false, config.norm_eps, {}, {}};
  const Rope rope = read_rope(read, config, read.rope_base("rope_theta", 10000.0), config.head_dim, {"linear", "llama3"});
  for (LayerAttention& layer : config.attention) layer.rope = rope;
  read_layer_types(read, config, qwen_sliding);
}

}  // namespace

Family qwen3() {
  TensorNames n = llama_names();
  n.q_norm = "layers.{}.self_attn.q_norm";
  n.k_norm = "layers.{}.self_attn.k_norm";
  return {"qwen3", read_qwen3, n};
}

}  // namespace attnlab::models::families
