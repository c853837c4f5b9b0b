// Mistral (mistralai/Mistral-7B-v0.1; models/mistral/modeling_mistral.py): Llama's layer with a
// sliding window on every layer (sliding_window; null in v0.2 and later: none).
#include "family.h"

namespace attnlab::models::families {
namespace {

void read_mistral(const ConfigReader& read, ModelConfig& config) {
  read_llama_sizes(read, config);
  const Rope rope = read_rope(read, config, read.rope_base("rope_theta", 10000.0), config.head_dim, {"linear", "llama3"});
  for (LayerAttention& layer : config.attention) layer.rope = rope;
  read_layer_types(read, config, [](int, const ConfigReader& r) { return r.has("sliding_window"); });
}

}  // namespace

Family mistral() { return {"mistral", read_mistral, llama_names()}; }

}  // namespace attnlab::models::families
