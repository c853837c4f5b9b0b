// libFuzzer target: the safetensors header reader (models/safetensors.h). The input is a whole file.
// Oracles: parse_safetensors_header throws nothing but a ScenarioError of one line of at most 300
// bytes; what it accepts is safe to use: every tensor inside the file after the header, its size
// dtype x shape, no two overlapping.
//
//   scripts/fuzz.sh 60 fuzz_safetensors
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "attnlab/message_text.h"
#include "attnlab/models/safetensors.h"
#include "attnlab/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab::models;
  std::vector<TensorInfo> tensors;
  try {
    tensors = parse_safetensors_header(data, size, "fuzz.safetensors");
  } catch (const attnlab::ScenarioError& e) {
    const std::string message = e.what();
    if (message.empty() || message.size() > attnlab::kMaxMessageBytes || message.find('\n') != std::string::npos)
      std::abort();
    return 0;
  }
  std::sort(tensors.begin(), tensors.end(), [](const TensorInfo& a, const TensorInfo& b) { return a.begin < b.begin; });
  std::size_t end = 8;
  for (const TensorInfo& t : tensors) {
    if (t.begin + t.bytes > size) std::abort();
    if (std::size_t(t.element_count()) * dtype_bytes(t.dtype) != t.bytes) std::abort();
    if (t.bytes == 0) continue;  // an empty tensor overlaps nothing, wherever it begins
    if (t.begin < end) std::abort();
    end = t.begin + t.bytes;
  }
  return 0;
}
