// SmolLM3 (HuggingFaceTB/SmolLM3-3B; models/smollm3/modeling_smollm3.py, configuration_smollm3.py):
// Llama's layer, with RoPE left out of every fourth layer (no_rope_layers: 1 turns, 0 does not).
#include "family.h"

namespace attnlab::models::families {

bool qwen_sliding(int layer, const ConfigReader& read);  // qwen2.cpp

namespace {

void read_smollm3(const ConfigReader& read, ModelConfig& config) {
  read_llama_sizes(read, config);
  config.qkv_bias = config.o_bias = read.flag("attention_bias", false);
  const Rope rope = read_rope(read, config, read.rope_base("rope_theta", 10000.0), config.head_dim, {"linear", "llama3"});
  const int interval = read.count_or("no_rope_layer_interval", 1 << 20, 4);
  std::vector<bool> rotates;
  if (read.has("no_rope_layers")) {
    const nlohmann::json& list = read.value("no_rope_layers");
    if (!list.is_array() || int(list.size()) != config.layers)
      read.fail("no_rope_layers", "expected " + std::to_string(config.layers) + " entries of 0 or 1 (one per layer)");
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (list[i] != 0 && list[i] != 1)
        read.fail("no_rope_layers[" + std::to_string(i) + "]", "expected 0 (no RoPE) or 1 (RoPE), got " + list[i].dump());
      rotates.push_back(list[i] == 1);
    }
  } else {
    for (int i = 0; i < config.layers; ++i) rotates.push_back((i + 1) % interval != 0);
  }
  for (std::size_t i = 0; i < rotates.size(); ++i)
    if (rotates[i]) config.attention[i].rope = rope;
  read_layer_types(read, config, qwen_sliding);
}

}  // namespace

Family smollm3() { return {"smollm3", read_smollm3, llama_names()}; }

}  // namespace attnlab::models::families
