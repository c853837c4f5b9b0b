#pragma once
/// Documented size limits, checked before anything is allocated (docs/FORMAT.md, "Limits").
#include <cstddef>

namespace attnlab::limits {

constexpr int max_tokens = 8192;              ///< n_x and n_z
constexpr int max_width = 4096;               ///< any matrix dimension that is not a token count
constexpr int max_heads = 256;
constexpr std::size_t max_file_bytes = 256u << 20;
constexpr int max_json_depth = 32;
constexpr double max_scale = 1e12;
/// Bound on the doubles one computed trace may hold (about 2 GiB).
constexpr double max_trace_cells = 256.0 * 1024 * 1024;

}  // namespace attnlab::limits
