#include "view/trace_compare.h"

#include <cmath>
#include <limits>

#include "attnlab/stage.h"

namespace attnlab::app {
namespace {

// The trace's matrix of a StageDiff (a stage by its trace name, or Z_pos: the table has no row).
attnlab::Matrix StageMatrix(const attnlab::Trace& t, const attnlab::StageDiff& d) {
  if (d.stage == "Z_pos") return t.Z_pos;
  return attnlab::stage_matrix(t, *attnlab::stage_from_cell_name(d.stage, d.head >= 0), d.head);
}

double Difference(double a, double b) {
  const bool fa = std::isfinite(a), fb = std::isfinite(b);
  if (!fa && !fb && a == b) return a;  // masked in both: drawn masked
  if (fa != fb) return std::numeric_limits<double>::quiet_NaN();
  return a - b;
}

}  // namespace

std::vector<StageComparison> CompareHead(const attnlab::Trace& current, const attnlab::Trace& reference, int head) {
  std::vector<StageComparison> out;
  for (const attnlab::StageDiff& d : attnlab::diff_traces(current, reference)) {
    if (d.head != -1 && d.head != head) continue;
    StageComparison c;
    c.stage = attnlab::stage_from_cell_name(d.stage, d.head >= 0).value_or(StageId::none);
    c.diff = d;
    c.current = StageMatrix(current, d);
    c.reference = StageMatrix(reference, d);
    c.difference = c.current.binaryExpr(c.reference, [](double a, double b) { return Difference(a, b); });
    out.push_back(std::move(c));
  }
  return out;
}

bool ReferenceValue(const attnlab::Trace& reference, StageId stage, int head, int row, int col, double* value) {
  const std::optional<double> v = attnlab::stage_value(reference, stage, head, row, col);
  if (v) *value = *v;
  return v.has_value();
}

}  // namespace attnlab::app
