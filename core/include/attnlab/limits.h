#pragma once
/// Documented size limits, checked before anything is allocated (docs/FORMAT.md, "Limits").
#include <cstddef>

namespace attnlab::limits {

constexpr int max_tokens = 8192;              ///< n_x and n_z
constexpr int max_width = 4096;               ///< any matrix dimension that is not a token count
constexpr int max_heads = 256;
constexpr std::size_t max_file_bytes = 256u << 20;
constexpr int max_json_depth = 32;
/// JSON values (numbers, strings, keys, arrays, objects) in one file: bounds the parsed document
/// (about 16 bytes a value) before it is built.
constexpr std::size_t max_file_values = std::size_t{1} << 24;
constexpr double max_scale = 1e12;
constexpr int max_position = 1000000;         ///< positions and context_positions
/// RoPE's base (theta): real models reach 3.6e9 (Gradient's Llama-3-8B-1048k); the model reader
/// refuses what a scenario could not hold, so a layer written as a scenario always reopens.
constexpr double max_rope_base = 1e12;
constexpr const char* rope_base_range = "a number above 1 and up to 1e12";
/// Largest magnitude any stage (Q, K, V, scores, scaled scores, outputs) may reach, judged from
/// bounds on the inputs before computing: far enough below DBL_MAX (1.8e308) that nothing overflows.
constexpr double max_magnitude = 1e300;
/// Bound on the doubles one computed trace may hold (about 2 GiB), the resolved weights included.
constexpr double max_trace_cells = 256.0 * 1024 * 1024;

}  // namespace attnlab::limits
