#include "view/trace_compare.h"

#include <cmath>
#include <limits>

#include "attnlab/trace_io.h"

namespace attnlab::app {
namespace {

// The trace's matrix of a StageDiff (a head stage by its trace_io name, or a shared one).
attnlab::Matrix StageMatrix(const attnlab::Trace& t, const attnlab::StageDiff& d) {
  if (d.head >= 0) return attnlab::head_stage(t, std::size_t(d.head), d.stage);
  if (d.stage == "X_pos") return t.X_pos;
  if (d.stage == "Z_pos") return t.Z_pos;
  if (d.stage == "concat") return t.concat;
  return t.output;
}

Stage StageOf(const attnlab::StageDiff& d) {
  if (d.head >= 0 && d.stage == "output") return Stage::HeadOutput;
  if (d.stage == "Z_pos") return Stage::None;
  for (Stage s : {Stage::XPos, Stage::Q, Stage::K, Stage::V, Stage::QRot, Stage::KRot, Stage::Scores, Stage::Scaled,
                  Stage::Bias, Stage::Masked, Stage::Weights, Stage::Concat, Stage::Output})
    if (d.stage == StageName(s)) return s;
  return Stage::None;
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
    c.stage = StageOf(d);
    c.diff = d;
    c.current = StageMatrix(current, d);
    c.reference = StageMatrix(reference, d);
    c.difference = c.current.binaryExpr(c.reference, [](double a, double b) { return Difference(a, b); });
    out.push_back(std::move(c));
  }
  return out;
}

bool ReferenceValue(const attnlab::Trace& reference, Stage stage, int head, int row, int col, double* value) {
  const auto from = [&](const attnlab::Matrix& m) {
    if (row < 0 || col < 0 || row >= m.rows() || col >= m.cols()) return false;
    *value = m(row, col);
    return true;
  };
  if (stage == Stage::XPos) return from(reference.X_pos);
  if (stage == Stage::Concat) return from(reference.concat);
  if (stage == Stage::Output) return from(reference.output);
  if (head < 0 || head >= int(reference.heads.size())) return false;
  const attnlab::HeadTrace& h = reference.heads[std::size_t(head)];
  switch (stage) {
    case Stage::Q: return from(h.Q);
    case Stage::K: return from(h.K);
    case Stage::V: return from(h.V);
    case Stage::QRot: return from(h.Q_rot);
    case Stage::KRot: return from(h.K_rot);
    case Stage::Scores: return from(h.scores);
    case Stage::Weights: return from(h.weights);
    case Stage::HeadOutput: return from(h.output);
    default: break;
  }
  // The derived stages, one cell at a time (never the whole N x N matrix for a hover).
  if (!from(h.scores)) return false;
  const std::size_t hh = std::size_t(head);
  if (stage == Stage::Scaled) *value = reference.scaled(hh)(row, col);
  else if (stage == Stage::Bias && reference.has_bias()) *value = reference.bias_at(hh, row, col);
  else if (stage == Stage::Masked) *value = reference.masked(hh)(row, col);
  else return false;
  return true;
}

}  // namespace attnlab::app
