#pragma once
/// Writing a Trace for people (NumPy-style text) and for programs (JSON).
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/trace.h"

namespace attnlab {

/// Array of rows; non-finite entries (e.g. -infinity in `masked`) become null.
nlohmann::json matrix_to_json(const Matrix& m);
/// {"layout", "X_pos" and "Z_pos" (with a positional encoding), "heads": [{"Q","K","V", "Q_rot","K_rot"
///  (RoPE), "scores","scaled", "bias" (ALiBi), "masked","weights","output", "kv_head", "stats"}...],
///  "concat", "output", "warnings"}; "stats" holds head_stats() (head_stats.h), one array per statistic.
nlohmann::json trace_to_json(const Trace& trace);

/// The per-head stages the trace has, in computation order (as trace_to_json names them).
std::vector<std::string> head_stage_names(const Trace& trace);

/// One stage of head h by its JSON name (one of head_stage_names()), in the trace's layout;
/// scaled, bias and masked are materialised from the scores.
/// Throws std::invalid_argument for another name.
Matrix head_stage(const Trace& trace, std::size_t head, const std::string& name);

/// NumPy-like aligned text: `[[ 0.1235 -1.     ]\n [ ...]]`, `precision` decimals, -inf as `-inf`.
std::string format_matrix(const Matrix& m, int precision);
/// Every stage, then each head's statistics (head_stats.h) one line per statistic.
std::string trace_to_text(const Trace& trace, int precision);

}  // namespace attnlab
