#include "panels/stage_heatmap.h"

#include "attnlab/stage.h"

namespace attnlab::app {
namespace {

// The inputs (StageId::none here): X's or Z's tokens along one axis, d_model along the other.
AxisLabels InputLabels(const attnlab::Scenario& s, const attnlab::Matrix& m, bool context) {
  const bool rows = s.layout == attnlab::Layout::rows;
  AxisLabels out;
  std::vector<std::string> tokens = context ? KeyTokenLabels(s) : QueryTokenLabels(s);
  std::vector<std::string> widths = IndexLabels(int(rows ? m.cols() : m.rows()));
  if (int(tokens.size()) != int(rows ? m.rows() : m.cols())) tokens = IndexLabels(int(rows ? m.rows() : m.cols()));
  const char* token_axis = context ? "context tokens" : "tokens";
  const char* width_axis = context ? "d_z" : "d_x";
  out.rows = rows ? tokens : widths;
  out.cols = rows ? widths : tokens;
  out.row_axis = rows ? token_axis : width_axis;
  out.col_axis = rows ? width_axis : token_axis;
  return out;
}

}  // namespace

int HeadDk(const attnlab::Scenario& s, const attnlab::HeadTrace& h) {
  return int(s.layout == attnlab::Layout::rows ? h.Q.cols() : h.Q.rows());
}

StageHeatmap::StageHeatmap(AppState& state, const StageMatrix& mv, float cell, const char* id_prefix)
    : state_(state) {
  const attnlab::Scenario& s = state.document.GetScenario();
  const attnlab::Trace& trace = state.document.GetTrace();
  const bool per_head = mv.stage != StageId::concat && mv.stage != StageId::W_o && mv.stage != StageId::output;
  const int head = per_head ? mv.head : -1;
  labels_ = mv.stage == StageId::none ? InputLabels(s, *mv.m, s.Z && mv.m == &*s.Z)
                                    : StageLabels(mv.stage, s, int(mv.m->rows()), int(mv.m->cols()));
  const int d_k = trace.heads.empty() ? 0 : HeadDk(s, trace.heads[std::size_t(std::max(0, mv.head))]);
  formula_ = mv.stage == StageId::none ? std::string() : attnlab::stage_formula(mv.stage, s, std::max(0, mv.head), d_k);
  // "weights/0" as the layout dumps have always named it; the inputs by their title.
  id_ = std::string(id_prefix) + (mv.stage == StageId::none ? mv.title : stage_name(mv.stage)) + "/" +
        std::to_string(mv.head);
  spec_.id = id_.c_str();
  spec_.title = mv.title;
  spec_.formula = formula_.empty() ? nullptr : formula_.c_str();
  spec_.values = mv.m;
  spec_.row_labels = &labels_.rows;
  spec_.col_labels = &labels_.cols;
  spec_.row_axis = labels_.row_axis;
  spec_.col_axis = labels_.col_axis;
  const Colormap cm = state.ui.colormap;
  spec_.scale = mv.weights ? WeightsScale(cm) : SignedScale(cm);
  spec_.symmetric_range = !mv.weights;
  spec_.allowed = mv.allowed;
  spec_.col_band = mv.col_band;
  spec_.row_band = mv.row_band;
  spec_.cell = cell;
  spec_.decimals = state.ui.decimals;
  spec_.data_version = mv.version;
  // W_o and the inputs are the Scenario's own matrices; every other stage belongs to the (maybe
  // older) trace.
  const bool scenario_matrix = mv.stage == StageId::W_o || mv.stage == StageId::none;
  // A head's stages may be newer than the rest of the trace (computed first: Document::HeadStale).
  spec_.stale = mv.stale || (!scenario_matrix && (per_head ? state.document.HeadStale(std::max(0, mv.head))
                                                          : state.document.TraceStale()));
  spec_.stage = mv.stage;
  spec_.head = head;
}

HeatmapResult StageHeatmap::Draw() {
  const HeatmapResult r = Heatmap(*state_.heatmaps, spec_);
  if (r.hovered && !spec_.stale && spec_.stage != StageId::none)
    state_.ui.hover.Report({spec_.stage, spec_.head, r.row, r.col});
  return r;
}

}  // namespace attnlab::app
