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

// Token axis / width axis of each stage in the rows layout: (row kind, col kind).
enum class Axis { Queries, Keys, Width };

struct StageAxes {
  Axis rows, cols;
  const char* row_name;
  const char* col_name;
};

StageAxes RowsLayoutAxes(Stage stage) {
  switch (stage) {
    case Stage::XPos: return {Axis::Queries, Axis::Width, "queries", "d_x"};
    case Stage::Q:
    case Stage::QRot: return {Axis::Queries, Axis::Width, "queries", "d_k"};
    case Stage::K:
    case Stage::KRot: return {Axis::Keys, Axis::Width, "keys", "d_k"};
    case Stage::V: return {Axis::Keys, Axis::Width, "keys", "d_v"};
    case Stage::Scores:
    case Stage::Scaled:
    case Stage::Bias:
    case Stage::Masked:
    case Stage::Weights: return {Axis::Queries, Axis::Keys, "queries", "keys"};
    case Stage::HeadOutput: return {Axis::Queries, Axis::Width, "queries", "d_v"};
    case Stage::Concat: return {Axis::Queries, Axis::Width, "queries", "H\xC2\xB7" "d_v"};
    case Stage::Wo: return {Axis::Width, Axis::Width, "H\xC2\xB7" "d_v", "d_out"};
    case Stage::Output: return {Axis::Queries, Axis::Width, "queries", "d_out"};
    case Stage::None: break;
  }
  return {Axis::Width, Axis::Width, nullptr, nullptr};
}

std::vector<std::string> LabelsFor(Axis axis, const attnlab::Scenario& s, int n) {
  std::vector<std::string> tokens;
  if (axis == Axis::Queries) tokens = QueryTokenLabels(s);
  if (axis == Axis::Keys) tokens = KeyTokenLabels(s);
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

AxisLabels StageLabels(Stage stage, const attnlab::Scenario& s, int rows, int cols) {
  StageAxes axes = RowsLayoutAxes(stage);
  if (s.layout == attnlab::Layout::columns) {
    // Columns layout: every matrix is the transpose of its rows-layout counterpart.
    std::swap(axes.rows, axes.cols);
    std::swap(axes.row_name, axes.col_name);
  }
  AxisLabels out;
  out.rows = LabelsFor(axes.rows, s, rows);
  out.cols = LabelsFor(axes.cols, s, cols);
  out.row_axis = axes.row_name;
  out.col_axis = axes.col_name;
  return out;
}

}  // namespace attnlab::app
