#include "attnlab/export/views.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <utility>

namespace attnlab::exporter {
namespace {

const char* const kTimes = " \xC3\x97 ";  // " × "
const char* const kDash = " \xE2\x80\x93 ";  // " – "

struct StageInfo {
  Stage stage;
  const char* name;
  const char* title;  ///< as in a textbook figure caption
  enum Axis { queries, keys, width } rows, cols;  ///< in the rows layout
  const char* width_name;  ///< the width axis ("d_k", ...)
};

const StageInfo kStages[] = {
    {Stage::X_pos, "X_pos", "embeddings + positions", StageInfo::queries, StageInfo::width, "d_x"},
    {Stage::Q, "Q", "queries Q", StageInfo::queries, StageInfo::width, "d_k"},
    {Stage::K, "K", "keys K", StageInfo::keys, StageInfo::width, "d_k"},
    {Stage::V, "V", "values V", StageInfo::keys, StageInfo::width, "d_v"},
    {Stage::Q_rot, "Q_rot", "rotated queries (RoPE)", StageInfo::queries, StageInfo::width, "d_k"},
    {Stage::K_rot, "K_rot", "rotated keys (RoPE)", StageInfo::keys, StageInfo::width, "d_k"},
    {Stage::scores, "scores", "scores S", StageInfo::queries, StageInfo::keys, nullptr},
    {Stage::scaled, "scaled", "scaled scores", StageInfo::queries, StageInfo::keys, nullptr},
    {Stage::bias, "bias", "ALiBi bias", StageInfo::queries, StageInfo::keys, nullptr},
    {Stage::masked, "masked", "masked scores", StageInfo::queries, StageInfo::keys, nullptr},
    {Stage::weights, "weights", "attention weights", StageInfo::queries, StageInfo::keys, nullptr},
    {Stage::head_output, "head_output", "head output", StageInfo::queries, StageInfo::width, "d_v"},
    {Stage::concat, "concat", "concatenated heads", StageInfo::queries, StageInfo::width, "H\xC2\xB7" "d_v"},
    {Stage::output, "output", "output", StageInfo::queries, StageInfo::width, "d_out"},
};

const StageInfo& info(Stage stage) {
  return *std::find_if(std::begin(kStages), std::end(kStages), [&](const StageInfo& s) { return s.stage == stage; });
}

std::vector<std::string> named(const std::vector<std::string>& given, int n, const char* prefix) {
  if (static_cast<int>(given.size()) == n) return given;
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

std::vector<std::string> labels(StageInfo::Axis axis, const Scenario& s, int n) {
  if (axis == StageInfo::queries) return named(s.tokens, n, "x");
  if (axis == StageInfo::keys)
    return s.cross_attention() ? named(s.context_tokens, n, "z") : named(s.tokens, n, "x");
  return named({}, n, "");
}

const char* axis_name(StageInfo::Axis axis, const StageInfo& i) {
  return axis == StageInfo::queries ? "queries" : axis == StageInfo::keys ? "keys" : i.width_name;
}

Matrix stage_matrix(const Trace& t, Stage stage, int head) {
  if (stage == Stage::concat) return t.concat;
  if (stage == Stage::output) return t.output;
  if (stage == Stage::X_pos) return t.X_pos;
  const auto index = static_cast<std::size_t>(head);
  const HeadTrace& h = t.heads.at(index);
  switch (stage) {
    case Stage::Q: return h.Q;
    case Stage::K: return h.K;
    case Stage::V: return h.V;
    case Stage::Q_rot: return h.Q_rot;
    case Stage::K_rot: return h.K_rot;
    case Stage::bias: return t.bias(index);
    case Stage::scores: return h.scores;
    case Stage::scaled: return t.scaled(index);
    case Stage::masked: return t.masked(index);
    case Stage::weights: return h.weights;
    default: return h.output;
  }
}

/// "1/\u221Ad_k = 0.5", "1 (unscaled)" or the file's number.
std::string scale_text(const Scenario& s, const Trace& t) {
  char buffer[64];
  if (s.scale.kind == Scale::Kind::none) return "1 (unscaled)";
  if (s.scale.kind == Scale::Kind::value) {
    std::snprintf(buffer, sizeof buffer, "%.4g", s.scale.value);
    return buffer;
  }
  const Matrix& q = t.heads.at(0).Q;  // rows: n_x by d_k; columns: d_k by n_x
  const long d_k = s.layout == Layout::rows ? q.cols() : q.rows();
  std::snprintf(buffer, sizeof buffer, "1/\xE2\x88\x9A%ld = %.4g", d_k, 1.0 / std::sqrt(double(d_k)));
  return buffer;
}

/// The formula under the title, in the scenario's notation (columns layout: W X, K^T Q, V A).
std::string formula(Stage stage, const Scenario& s, const Trace& t) {
  const bool rows = s.layout == Layout::rows;
  const char* z = s.cross_attention() ? "Z" : "X";
  const std::string axis = rows ? "along each row" : "down each column";
  switch (stage) {
    case Stage::X_pos: return "X + PE, PE(p, 2i) = sin(p / 10000^(2i/d)), PE(p, 2i+1) = cos(\u2026)";
    case Stage::Q_rot: return "Q turned pair by pair by position \u00B7 \u03B8_i (RoPE)";
    case Stage::K_rot: return "K turned pair by pair by position \u00B7 \u03B8_i (RoPE)";
    case Stage::bias: return "B = \u2212m |p_i \u2212 c_j| (ALiBi)";
    case Stage::Q: return rows ? "Q = X W_q + b_q" : "Q = W_q X + b_q";
    case Stage::K: return rows ? std::string("K = ") + z + " W_k + b_k" : std::string("K = W_k ") + z + " + b_k";
    case Stage::V: return rows ? std::string("V = ") + z + " W_v + b_v" : std::string("V = W_v ") + z + " + b_v";
    case Stage::scores:
      if (t.has_rope()) return rows ? "S = Q_rot K_rot\xE1\xB5\x80" : "S = K_rot\xE1\xB5\x80 Q_rot";
      return rows ? "S = Q K\xE1\xB5\x80" : "S = K\xE1\xB5\x80 Q";
    case Stage::scaled: return "S \xC2\xB7 " + scale_text(s, t);
    case Stage::masked:
      return "S \xC2\xB7 " + scale_text(s, t) + (t.has_bias() ? " + B" : "") + ", \xE2\x88\x92\xE2\x88\x9E where the mask forbids";
    case Stage::weights: return "A = softmax(masked scores) " + axis;
    case Stage::head_output: return rows ? "Y = A V" : "Y = V A";
    case Stage::concat: return rows ? "[Y\xE2\x82\x81 \xE2\x80\xA6 Y_H], heads side by side" : "[Y\xE2\x82\x81; \xE2\x80\xA6; Y_H], heads stacked";
    case Stage::output:
      if (!s.W_o) return "the concatenation (no W_o)";
      return rows ? "concat W_o + b_o" : "W_o concat + b_o";
  }
  return "";
}

/// "(rows: queries)": where the query tokens are, which also says the softmax direction.
std::string layout_note(const Scenario& s, const StageInfo& i) {
  const char* side = s.layout == Layout::rows ? "rows" : "columns";
  const auto token_axis = i.rows;  // rows layout: tokens are always on the rows
  return std::string(" (") + side + ": " + (token_axis == StageInfo::keys ? "keys" : "queries") + ")";
}

ColorScale scale_for(Stage stage, const Matrix& m, const Colormaps& maps) {
  if (stage == Stage::weights) return {maps.sequential, 0.0, 1.0};
  double max_abs = 0;
  for (Eigen::Index k = 0; k < m.size(); ++k)
    if (std::isfinite(m.data()[k])) max_abs = std::max(max_abs, std::fabs(m.data()[k]));
  if (max_abs == 0) max_abs = 1;  // an all-zero matrix still gets a readable colour bar
  return {maps.diverging, -max_abs, max_abs};
}

}  // namespace

const std::vector<Stage>& all_stages() {
  static const std::vector<Stage> stages = {Stage::X_pos,  Stage::Q,      Stage::K,       Stage::V,
                                            Stage::Q_rot,  Stage::K_rot,  Stage::scores,  Stage::scaled,
                                            Stage::bias,   Stage::masked, Stage::weights, Stage::head_output,
                                            Stage::concat, Stage::output};
  return stages;
}

bool has_stage(const Trace& trace, Stage stage) {
  switch (stage) {
    case Stage::X_pos: return trace.X_pos.size() > 0;
    case Stage::Q_rot:
    case Stage::K_rot: return trace.has_rope();
    case Stage::bias: return trace.has_bias();
    default: return true;
  }
}

const char* stage_name(Stage stage) { return info(stage).name; }

std::optional<Stage> stage_from_name(const std::string& name) {
  for (const StageInfo& s : kStages)
    if (name == s.name) return s.stage;
  return std::nullopt;
}

bool per_head(Stage stage) { return stage != Stage::concat && stage != Stage::output && stage != Stage::X_pos; }

std::string file_stem(Stage stage, int head) {
  if (!per_head(stage)) return stage_name(stage);
  const std::string name = stage == Stage::head_output ? "output" : stage_name(stage);
  return "head" + std::to_string(head + 1) + "_" + name;
}

std::optional<Colormaps> colormaps_from_name(const std::string& name) {
  Colormap map;
  if (!ColormapFromName(name.c_str(), &map)) return std::nullopt;
  if (IsSequential(map)) return Colormaps{map, DivergingFor(map)};
  return Colormaps{map == Colormap::GrayDiverging ? Colormap::Grayscale : Colormap::Viridis, map};
}

HeatmapFigure stage_figure(const Scenario& s, const Trace& trace, Stage stage, int head, const Colormaps& maps) {
  const StageInfo& i = info(stage);
  HeatmapFigure f;
  f.values = stage_matrix(trace, stage, head);
  const bool rows = s.layout == Layout::rows;
  // Columns layout: every matrix is the transpose of its rows-layout counterpart.
  const auto row_axis = rows ? i.rows : i.cols, col_axis = rows ? i.cols : i.rows;
  f.row_labels = labels(row_axis, s, static_cast<int>(f.values.rows()));
  f.col_labels = labels(col_axis, s, static_cast<int>(f.values.cols()));
  f.row_axis = axis_name(row_axis, i);
  f.col_axis = axis_name(col_axis, i);
  f.corner = f.row_axis;
  const std::string who = per_head(stage) ? "Head " + std::to_string(head + 1) + kDash : "";
  f.title = who + i.title + layout_note(s, i);
  if (who.empty()) f.title[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(f.title[0])));
  f.subtitle = formula(stage, s, trace) + kDash + std::to_string(f.values.rows()) + kTimes + std::to_string(f.values.cols());
  f.scale = scale_for(stage, f.values, maps);
  if (stage == Stage::weights) {
    f.allowed = trace.allowed;  // masked keys weigh exactly 0
    f.masked_text_is_value = true;
  }
  if (stage == Stage::concat && trace.heads.size() > 1) {
    const Matrix& y = trace.heads[0].output;  // rows: n_x by d_v; columns: d_v by n_x
    (rows ? f.col_band : f.row_band) = static_cast<int>(rows ? y.cols() : y.rows());
  }
  return f;
}

}  // namespace attnlab::exporter
