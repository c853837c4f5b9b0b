// Phi-3 and Phi-4-mini (microsoft/Phi-4-mini-instruct; models/phi3/modeling_phi3.py): Llama's layer
// with q, k, v in one qkv_proj and gate, up in one gate_up_proj, RoPE on the first
// partial_rotary_factor of each head with longrope scaling (short or long factors by length, cos and
// sin times the attention factor), and sliding_window on every layer when the file sets one.
#include "family.h"

namespace attnlab::models::families {
namespace {

void read_phi3(const ConfigReader& read, ModelConfig& config) {
  read_llama_sizes(read, config);
  const double fraction = read.positive("partial_rotary_factor", 1.0);
  if (fraction > 1) read.fail("partial_rotary_factor", "expected at most 1, got " + std::to_string(fraction));
  const Rope rope = read_rope(read, config, read.rope_base("rope_theta", 10000.0), int(config.head_dim * fraction),
                              {"longrope", "linear"});
  for (LayerAttention& layer : config.attention) layer.rope = rope;
  read_layer_types(read, config, [](int, const ConfigReader& r) { return r.has("sliding_window"); });
}

}  // namespace

Family phi3() {
  TensorNames n = llama_names();
  n.q.clear();
  n.k.clear();
  n.v.clear();
  n.qkv = "layers.{}.self_attn.qkv_proj";
  n.gate.clear();
  n.up.clear();
  n.gate_up = "layers.{}.mlp.gate_up_proj";
  return {"phi3", read_phi3, n};
}

}  // namespace attnlab::models::families
