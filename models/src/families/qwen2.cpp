// Qwen2 and Qwen2.5 (Qwen/Qwen2.5-0.5B; models/qwen2/modeling_qwen2.py and configuration_qwen2.py):
// Llama's layer with biases on q, k and v; with use_sliding_window, layers from max_window_layers on
// are local.
#include "family.h"

namespace attnlab::models::families {

/// Qwen2Config: sliding_window only when use_sliding_window, then for layers >= max_window_layers.
bool qwen_sliding(int layer, const ConfigReader& read) {
  return read.flag("use_sliding_window", false) && read.has("sliding_window") &&
         layer >= read.count_or("max_window_layers", 1 << 20, 28);
}

namespace {

void read_qwen2(const ConfigReader& read, ModelConfig& config) {
  read_llama_sizes(read, config);
  config.qkv_bias = true;
  const Rope rope = read_rope(read, config, read.rope_base("rope_theta", 10000.0), config.head_dim, {"linear", "llama3"});
  for (LayerAttention& layer : config.attention) layer.rope = rope;
  read_layer_types(read, config, qwen_sliding);
}

}  // namespace

Family qwen2() { return {"qwen2", read_qwen2, llama_names()}; }

}  // namespace attnlab::models::families
