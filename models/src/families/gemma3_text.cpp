// Gemma 3's text models (google/gemma-3-270m, gemma-3-1b; models/gemma3/modeling_gemma3.py,
// configuration_gemma3.py): Gemma 2's layer with QK-norm (per head, 1 + w) and without caps by
// default; five local layers to one global (sliding_window_pattern 6, or layer_types), local layers
// turned with rope_local_base_freq, global ones with rope_theta and rope_scaling.
#include "family.h"

namespace attnlab::models::families {

void read_gemma_common(const ConfigReader& read, ModelConfig& config);  // gemma2.cpp
TensorNames gemma_names();                                              // gemma2.cpp

namespace {

void read_gemma3_text(const ConfigReader& read, ModelConfig& config) {
  read_gemma_common(read, config);
  read.require("use_bidirectional_attention", false, "EmbeddingGemma's attention both ways; attnlab computes causal models");
  config.qk_norm = QkNorm{QkNorm::Scope::head, true, config.norm_eps, {}, {}};
  read_layer_types(read, config, [](int layer, const ConfigReader& r) {
    return (layer + 1) % r.count_or("sliding_window_pattern", 1 << 20, 6) != 0;
  });
  const Rope global = read_rope(read, config, read.rope_base("rope_theta", 1000000.0), config.head_dim, {"linear"});
  Rope local = global;
  local.base = read.rope_base("rope_local_base_freq", 10000.0);
  local.scaling = RopeScaling{};
  for (LayerAttention& layer : config.attention) layer.rope = layer.window > 0 ? local : global;
}

}  // namespace

Family gemma3_text() {
  TensorNames n = gemma_names();
  n.q_norm = "layers.{}.self_attn.q_norm";
  n.k_norm = "layers.{}.self_attn.k_norm";
  return {"gemma3_text", read_gemma3_text, n};
}

}  // namespace attnlab::models::families
