#include "view/stage_labels.h"

#include <utility>

namespace attnlab::app {
namespace {

std::vector<std::string> Named(const std::vector<std::string>& given, int n, const char* prefix) {
  if (static_cast<int>(given.size()) == n) return given;
  std::vector<std::string> out;
  out.reserve(n);
  for (int i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

std::vector<std::string> LabelsFor(attnlab::StageAxis axis, const attnlab::Scenario& s, int n) {
  std::vector<std::string> tokens;
  if (axis == attnlab::StageAxis::queries) tokens = QueryTokenLabels(s);
  if (axis == attnlab::StageAxis::keys) tokens = KeyTokenLabels(s);
  return static_cast<int>(tokens.size()) == n ? tokens : IndexLabels(n);
}

}  // namespace

std::vector<std::string> QueryTokenLabels(const attnlab::Scenario& s) {
  return Named(s.tokens, s.n_x(), "x");
}

std::vector<std::string> KeyTokenLabels(const attnlab::Scenario& s) {
  if (!s.cross_attention()) return QueryTokenLabels(s);
  return Named(s.context_tokens, s.n_z(), "z");
}

std::vector<std::string> IndexLabels(int n) {
  std::vector<std::string> out;
  out.reserve(n);
  for (int i = 0; i < n; ++i) out.push_back(std::to_string(i));
  return out;
}

AxisLabels StageLabels(StageId stage, const attnlab::Scenario& s, int rows, int cols) {
  const attnlab::StageRow& row = attnlab::stage_row(stage);
  attnlab::StageAxis row_axis = row.rows, col_axis = row.cols;
  // Columns layout: every matrix is the transpose of its rows-layout counterpart.
  if (s.layout == attnlab::Layout::columns) std::swap(row_axis, col_axis);
  AxisLabels out;
  out.rows = LabelsFor(row_axis, s, rows);
  out.cols = LabelsFor(col_axis, s, cols);
  out.row_axis = attnlab::axis_name(row_axis);
  out.col_axis = attnlab::axis_name(col_axis);
  return out;
}

}  // namespace attnlab::app
