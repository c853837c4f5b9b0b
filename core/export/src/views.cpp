#include "attnlab/export/views.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <utility>

#include "attnlab/number_format.h"
#include "attnlab/numbering.h"

namespace attnlab::exporter {
namespace {

const char* const kTimes = " \xC3\x97 ";  // " × "
const char* const kDash = " \xE2\x80\x93 ";  // " – "

std::vector<std::string> named(const std::vector<std::string>& given, int n, const char* prefix) {
  if (static_cast<int>(given.size()) == n) return given;
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

std::vector<std::string> labels(StageAxis axis, const Scenario& s, int n) {
  if (axis == StageAxis::queries) return named(s.tokens, n, "x");
  if (axis == StageAxis::keys)
    return s.cross_attention() ? named(s.context_tokens, n, "z") : named(s.tokens, n, "x");
  return named({}, n, "");
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
std::string formula(StageId stage, const Scenario& s, const Trace& t) {
  const bool rows = s.layout == Layout::rows;
  const char* z = s.cross_attention() ? "Z" : "X";
  const std::string axis = rows ? "along each row" : "down each column";
  switch (stage) {
    case StageId::X_pos: return "X + PE, PE(p, 2i) = sin(p / 10000^(2i/d)), PE(p, 2i+1) = cos(\u2026)";
    case StageId::Q_rot: return "Q turned pair by pair by position \u00B7 \u03B8_i (RoPE)";
    case StageId::K_rot: return "K turned pair by pair by position \u00B7 \u03B8_i (RoPE)";
    case StageId::Q_norm: return "Q / \u221A(mean(Q\u00B2) + \u03B5) \u00B7 w (QK-norm)";
    case StageId::K_norm: return "K / \u221A(mean(K\u00B2) + \u03B5) \u00B7 w (QK-norm)";
    case StageId::capped: return "c \u00B7 tanh(S \u00B7 " + scale_text(s, t) + " / c), c = " + format_trimmed(t.softcap, 4) + " (softcap)";
    case StageId::bias: return "B = \u2212m |p_i \u2212 c_j| (ALiBi)";
    case StageId::Q: return rows ? "Q = X W_q + b_q" : "Q = W_q X + b_q";
    case StageId::K: return rows ? std::string("K = ") + z + " W_k + b_k" : std::string("K = W_k ") + z + " + b_k";
    case StageId::V: return rows ? std::string("V = ") + z + " W_v + b_v" : std::string("V = W_v ") + z + " + b_v";
    case StageId::scores:
      if (t.has_rope()) return rows ? "S = Q_rot K_rot\xE1\xB5\x80" : "S = K_rot\xE1\xB5\x80 Q_rot";
      if (t.has_qk_norm()) return rows ? "S = Q_norm K_norm\xE1\xB5\x80" : "S = K_norm\xE1\xB5\x80 Q_norm";
      return rows ? "S = Q K\xE1\xB5\x80" : "S = K\xE1\xB5\x80 Q";
    case StageId::scaled: return "S \xC2\xB7 " + scale_text(s, t);
    case StageId::masked:
      if (t.has_softcap()) return std::string("c \u00B7 tanh(S \u00B7 ") + scale_text(s, t) + " / c)" + (t.has_bias() ? " + B" : "") + ", \u2212\u221E where the mask forbids";
      return "S \xC2\xB7 " + scale_text(s, t) + (t.has_bias() ? " + B" : "") + ", \xE2\x88\x92\xE2\x88\x9E where the mask forbids";
    case StageId::weights: return "A = softmax(masked scores) " + axis;
    case StageId::head_output: return rows ? "Y = A V" : "Y = V A";
    case StageId::concat: return rows ? "[Y\xE2\x82\x81 \xE2\x80\xA6 Y_H], heads side by side" : "[Y\xE2\x82\x81; \xE2\x80\xA6; Y_H], heads stacked";
    case StageId::output:
      if (!s.W_o) return "the concatenation (no W_o)";
      return rows ? "concat W_o + b_o" : "W_o concat + b_o";
    case StageId::none:
    case StageId::inputs:
    case StageId::heads:
    case StageId::W_o:
    case StageId::tiles:
    case StageId::decode:
    case StageId::lines: break;  // no figure of their own
  }
  return "";
}

/// "(rows: queries)": where the query tokens are, which also says the softmax direction.
std::string layout_note(const Scenario& s, const StageRow& i) {
  const char* side = s.layout == Layout::rows ? "rows" : "columns";
  const auto token_axis = i.rows;  // rows layout: tokens are always on the rows
  return std::string(" (") + side + ": " + (token_axis == StageAxis::keys ? "keys" : "queries") + ")";
}

ColorScale scale_for(StageId stage, const Matrix& m, const Colormaps& maps) {
  if (stage == StageId::weights) return {maps.sequential, 0.0, 1.0};
  double max_abs = 0;
  for (Eigen::Index k = 0; k < m.size(); ++k)
    if (std::isfinite(m.data()[k])) max_abs = std::max(max_abs, std::fabs(m.data()[k]));
  if (max_abs == 0) max_abs = 1;  // an all-zero matrix still gets a readable colour bar
  return {maps.diverging, -max_abs, max_abs};
}

}  // namespace

std::string file_stem(StageId stage, int head) {
  if (!per_head(stage)) return stage_name(stage);
  return "head" + index_text(head) + "_" + stage_row(stage).cell_name;
}

std::optional<Colormaps> colormaps_from_name(const std::string& name) {
  Colormap map;
  if (!ColormapFromName(name.c_str(), &map)) return std::nullopt;
  if (IsSequential(map)) return Colormaps{map, DivergingFor(map)};
  return Colormaps{map == Colormap::GrayDiverging ? Colormap::Grayscale : Colormap::Viridis, map};
}

HeatmapFigure stage_figure(const Scenario& s, const Trace& trace, StageId stage, int head, const Colormaps& maps) {
  const StageRow& i = stage_row(stage);
  HeatmapFigure f;
  f.values = stage_matrix(trace, stage, head);
  const bool rows = s.layout == Layout::rows;
  // Columns layout: every matrix is the transpose of its rows-layout counterpart.
  const auto row_axis = rows ? i.rows : i.cols, col_axis = rows ? i.cols : i.rows;
  f.row_labels = labels(row_axis, s, static_cast<int>(f.values.rows()));
  f.col_labels = labels(col_axis, s, static_cast<int>(f.values.cols()));
  f.row_axis = axis_name(row_axis);
  f.col_axis = axis_name(col_axis);
  f.corner = f.row_axis;
  const std::string who = per_head(stage) ? "Head " + index_text(head) + kDash : "";
  f.title = who + i.caption + layout_note(s, i);
  if (who.empty()) f.title[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(f.title[0])));
  // The shape in parentheses: after a dash, "Y = A V – 3 × 4" read as a subtraction.
  f.subtitle = formula(stage, s, trace) + "  (" + std::to_string(f.values.rows()) + kTimes +
               std::to_string(f.values.cols()) + ")";
  f.scale = scale_for(stage, f.values, maps);
  if (stage == StageId::weights) {
    f.allowed = trace.allowed;  // masked keys weigh exactly 0
    f.masked_text_is_value = true;
  }
  if (stage == StageId::concat && trace.heads.size() > 1) {
    const Matrix& y = trace.heads[0].output;  // rows: n_x by d_v; columns: d_v by n_x
    (rows ? f.col_band : f.row_band) = static_cast<int>(rows ? y.cols() : y.rows());
  }
  return f;
}

}  // namespace attnlab::exporter
