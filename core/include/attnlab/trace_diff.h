#pragma once
/// Where two traces differ: per stage and head, the largest absolute difference and the cell that
/// holds it. Shared by `attnlab-cli compare` and (later) the window's Compare view.
#include <string>
#include <vector>

#include "attnlab/trace.h"

namespace attnlab {

struct StageDiff {
  std::string stage;  ///< "X_pos", "Z_pos", a head stage as trace_io.h names it, "concat", "output"
  int head = -1;      ///< 0-based; -1 for X_pos, Z_pos, concat and output (not per head)
  /// max |a - b| over the cells; +infinity where one trace has a finite value and the other -inf
  /// (a masked cell) or NaN; cells that are the same infinity in both count as equal.
  double max_abs_diff = 0;
  /// The first cell (row-major, in the trace's own layout: the matrix as stored) holding the
  /// maximum; (0, 0) when the difference is 0 everywhere.
  long row = 0, col = 0;
};

/// Every stage the traces have, in computation order: X_pos and Z_pos (with a positional
/// encoding), each head's stages (head_stage_names(), head by head), concat, output.
/// Throws ScenarioError naming the first difference of shape: the layout, the number of heads, a
/// stage only one trace has, or a stage's size, e.g. "heads[0].Q: 3x4 in A, 3x2 in B".
std::vector<StageDiff> diff_traces(const Trace& a, const Trace& b);

/// |a - b| of one cell, with the rule above for infinities and NaN.
double cell_abs_diff(double a, double b);

}  // namespace attnlab
