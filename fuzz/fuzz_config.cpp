// libFuzzer target: config.json as the model families read it (models/config.h, models/src/families/).
// The input is the file's text. Oracles: parse_config throws nothing but a ScenarioError of one line
// of at most 300 bytes; what it accepts is a recipe the forward pass can run: sizes within attnlab's
// limits, one attention entry per layer, RoPE's rotated coordinates even and within a head, its
// scaling's factors positive, windows non-negative, caps and scales finite.
//
//   scripts/fuzz.sh 60 fuzz_config
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "attnlab/limits.h"
#include "attnlab/message_text.h"
#include "attnlab/models/config.h"
#include "attnlab/scenario.h"

namespace {

bool usable(const attnlab::Rope& rope, int head_dim) {
  const attnlab::RopeScaling& s = rope.scaling;
  for (const auto* factors : {&s.short_factors, &s.long_factors})
    for (double f : *factors)
      if (!(f > 0) || !std::isfinite(f)) return false;
  return rope.dims >= 2 && rope.dims % 2 == 0 && rope.dims <= head_dim && rope.base > 1 && std::isfinite(rope.base) &&
         s.factor > 0 && std::isfinite(s.attention_factor) && s.attention_factor > 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab::models;
  ModelConfig c;
  try {
    c = parse_config(std::string(reinterpret_cast<const char*>(data), size), "config.json");
  } catch (const attnlab::ScenarioError& e) {
    const std::string message = e.what();
    if (message.empty() || message.size() > attnlab::kMaxMessageBytes || message.find('\n') != std::string::npos)
      std::abort();
    return 0;
  }
  if (c.layers < 1 || c.heads < 1 || c.kv_heads < 1 || c.heads % c.kv_heads != 0 || c.head_dim < 1 ||
      c.heads * c.head_dim > attnlab::limits::max_width || c.vocab < 1 || c.max_positions < 1 ||
      int(c.attention.size()) != c.layers || !(c.attention_scale > 0) || !std::isfinite(c.attention_scale) ||
      !(c.norm_eps > 0) || !(c.attn_softcap >= 0) || !(c.final_softcap >= 0) || !(c.embedding_scale > 0))
    std::abort();
  for (const LayerAttention& layer : c.attention)
    if (layer.window < 0 || (layer.rope && !usable(*layer.rope, c.head_dim))) std::abort();
  for (int l = 0; l < c.layers; ++l) (void)c.layer_caption(l);
  return 0;
}
