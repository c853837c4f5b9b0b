// Comparing two traces stage by stage (trace_diff.h).
#include "attnlab/trace_diff.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attnlab/scenario.h"
#include "attnlab/trace_io.h"

namespace attnlab {
namespace {

std::string shape_of(const Matrix& m) { return std::to_string(m.rows()) + "x" + std::to_string(m.cols()); }

const char* layout_text(Layout l) { return l == Layout::rows ? "rows" : "columns"; }

StageDiff diff_matrices(const std::string& where, const std::string& stage, int head, const Matrix& a, const Matrix& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols())
    throw ScenarioError(where + ": " + shape_of(a) + " in A, " + shape_of(b) + " in B");
  StageDiff d{stage, head, 0.0, 0, 0};
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < a.cols(); ++j) {
      const double diff = cell_abs_diff(a(i, j), b(i, j));
      if (diff > d.max_abs_diff) {  // strictly: the first cell of the maximum stays
        d.max_abs_diff = diff;
        d.row = static_cast<long>(i);
        d.col = static_cast<long>(j);
      }
    }
  return d;
}

/// X_pos / Z_pos: present in both or in neither.
void diff_optional(std::vector<StageDiff>& out, const char* name, const Matrix& a, const Matrix& b) {
  if (a.size() == 0 && b.size() == 0) return;
  if (a.size() == 0 || b.size() == 0)
    throw ScenarioError(std::string(name) + ": only in " + (a.size() ? "A" : "B") + " (a positional encoding)");
  out.push_back(diff_matrices(name, name, -1, a, b));
}

}  // namespace

double cell_abs_diff(double a, double b) {
  if (a == b) return 0.0;  // also the same infinity in both (masked in both)
  if (std::isnan(a) && std::isnan(b)) return 0.0;
  if (!std::isfinite(a) || !std::isfinite(b)) return std::numeric_limits<double>::infinity();
  return std::fabs(a - b);
}

std::vector<StageDiff> diff_traces(const Trace& a, const Trace& b) {
  if (a.layout != b.layout)
    throw ScenarioError(std::string("layout: ") + layout_text(a.layout) + " in A, " + layout_text(b.layout) + " in B");
  std::vector<StageDiff> out;
  diff_optional(out, "X_pos", a.X_pos, b.X_pos);
  diff_optional(out, "Z_pos", a.Z_pos, b.Z_pos);
  if (a.heads.size() != b.heads.size())
    throw ScenarioError("heads: " + std::to_string(a.heads.size()) + " in A, " + std::to_string(b.heads.size()) + " in B");
  const std::vector<std::string> names = head_stage_names(a), names_b = head_stage_names(b);
  for (const std::string& n : names_b)
    if (std::find(names.begin(), names.end(), n) == names.end()) throw ScenarioError("heads[0]." + n + ": only in B");
  for (std::size_t h = 0; h < a.heads.size(); ++h)
    for (const std::string& name : names) {
      const std::string where = "heads[" + std::to_string(h) + "]." + name;
      if (std::find(names_b.begin(), names_b.end(), name) == names_b.end()) throw ScenarioError(where + ": only in A");
      out.push_back(diff_matrices(where, name, static_cast<int>(h), head_stage(a, h, name), head_stage(b, h, name)));
    }
  out.push_back(diff_matrices("concat", "concat", -1, a.concat, b.concat));
  out.push_back(diff_matrices("output", "output", -1, a.output, b.output));
  return out;
}

}  // namespace attnlab
