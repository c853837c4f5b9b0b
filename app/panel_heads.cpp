#include "panel_heads.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "heatmap.h"
#include "stage_labels.h"
#include "theme.h"
#include "trace_worker.h"

namespace attnlab::app::HeadsPanel {
namespace {

// The grid gets what the labels and title leave of `room`; measured with a 1-pixel trial cell.
void FitCells(HeatmapSpec& spec, ImVec2 room) {
  const int rows = int(spec.values->rows()), cols = int(spec.values->cols());
  spec.cell = 1.0f;
  const ImVec2 trial = HeatmapSize(spec);
  const float grid_w = std::max(8.0f, room.x - std::max(0.0f, trial.x - cols));
  const bool texture = rows > kTextureThreshold || cols > kTextureThreshold;
  if (texture) {
    // Large matrices go down to one pixel a cell so that more heads stay in view (8 heads of
    // 256 tokens at the usual 2 pixels need 8 grids of 512 x 512). Never below one pixel: every
    // cell keeps a pixel of its own (and the pixel tests can check it). 1 or >= 1.5: a cell's
    // centre pixel always samples its own texel.
    const float fit = std::min(grid_w / cols, std::max(32.0f, room.y - (trial.y - rows)) / rows);
    spec.cell = fit >= 2.0f ? ChooseCellSize(rows, cols, grid_w, fit * rows)
                : fit >= 1.5f ? fit : 1.0f;
    return;
  }
  const float grid_h = std::max(6.0f * rows, room.y - (trial.y - rows));
  spec.cell = ChooseCellSize(rows, cols, grid_w, grid_h);
}

HeatmapSpec SmallMultiple(AppState& state, const attnlab::Matrix& weights,
                          const attnlab::Matrix& masked, const AxisLabels& labels, int head,
                          const char* title, ImVec2 room) {
  HeatmapSpec spec;
  spec.title = title;
  spec.values = &weights;
  spec.forbidden = &masked;
  spec.scale = WeightsScale(state.ui.colormap);
  spec.legend = false;  // one shared legend below the grid
  spec.selected = head == state.ui.selected_head;
  spec.data_version = state.TraceVersion();
  spec.stale = state.TraceStale();
  spec.stage = Stage::Weights;
  spec.head = head;
  const int longest = int(std::max(weights.rows(), weights.cols()));
  spec.labels = longest <= 12;  // labels on tiny multiples would only be noise
  spec.row_labels = &labels.rows;
  spec.col_labels = &labels.cols;
  FitCells(spec, room);
  if (spec.labels && spec.cell < ImGui::GetFontSize()) {
    spec.labels = false;  // labels would leave no room for the cells: drop them
    FitCells(spec, room);
  }
  return spec;
}

bool ScanMasked(const attnlab::Trace& trace) {
  for (const attnlab::HeadTrace& h : trace.heads)
    for (Eigen::Index i = 0; i < h.masked.size(); ++i)
      if (h.masked.data()[i] == -INFINITY) return true;
  return false;
}

// Scanned once per trace, not every frame: at 2048 tokens and 8 heads that is 32M cells.
struct MaskedCache {
  std::uint64_t version = 0;
  bool any = false;
} masked_cache;

bool AnyMasked(const AppState& state, const attnlab::Trace& trace) {
  if (masked_cache.version != state.TraceVersion()) {
    masked_cache.version = state.TraceVersion();
    masked_cache.any = !state.GetScenario().mask.empty() && ScanMasked(trace);
  }
  return masked_cache.any;
}

struct Arrangement {
  int columns = 1;
  ImVec2 room;  // space for one multiple
  float spacing = 0;
};

// The number of columns that gives the multiples the largest cells in the panel's space (the
// panel may be a tall column or a short strip in lecture mode).
Arrangement Arrange(AppState& state, const attnlab::Trace& trace, const AxisLabels& labels) {
  const int heads = int(trace.heads.size());
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float legend_h = ImGui::GetFontSize() * 3.6f;
  const ImGuiStyle& style = ImGui::GetStyle();
  Arrangement best;
  float best_cell = -1.0f;
  for (int columns = 1; columns <= std::min(heads, 4); ++columns) {
    const int rows = (heads + columns - 1) / columns;
    Arrangement a;
    a.columns = columns;
    a.spacing = style.ItemSpacing.x * 2.0f;
    a.room.x = std::floor((avail.x - a.spacing * (columns - 1)) / columns);
    a.room.y = std::floor((avail.y - legend_h) / rows - style.ItemSpacing.y);
    const attnlab::HeadTrace& h0 = trace.heads.front();
    const HeatmapSpec spec = SmallMultiple(state, h0.weights, h0.masked, labels, 0, "head", a.room);
    // Ties go to labels, then to more columns (a short panel fills better side by side).
    const float score = spec.cell + (spec.labels ? 0.5f : 0.0f);
    if (score >= best_cell) {
      best_cell = score;
      best = a;
    }
  }
  return best;
}

}  // namespace

void Draw(AppState& state) {
  const attnlab::Trace& trace = state.GetTrace();
  ComputingBadge(state, trace);
  if (trace.heads.empty()) return;
  const attnlab::Scenario& s = state.GetScenario();
  const int heads = int(trace.heads.size());
  const float fs = ImGui::GetFontSize();
  ImGui::PushStyleColor(ImGuiCol_Text, DimTextColor());
  ImGui::TextWrapped("Attention weights of every head. Click one to select it.");
  ImGui::PopStyleColor();
  ImGui::Spacing();
  const attnlab::Matrix& first = trace.heads.front().weights;
  const AxisLabels labels = StageLabels(Stage::Weights, s, int(first.rows()), int(first.cols()));
  const Arrangement a = Arrange(state, trace, labels);
  for (int h = 0; h < heads; ++h) {
    const attnlab::HeadTrace& ht = trace.heads[static_cast<std::size_t>(h)];
    char title[32], id[32];
    std::snprintf(title, sizeof title, "head %d", h + 1);
    std::snprintf(id, sizeof id, "overview/%d", h);
    HeatmapSpec spec = SmallMultiple(state, ht.weights, ht.masked, labels, h, title, a.room);
    spec.id = id;
    if (h % a.columns != 0) ImGui::SameLine(0.0f, a.spacing);
    const HeatmapResult r = Heatmap(*state.heatmaps, spec);
    if (r.clicked) state.ui.selected_head = h;
    if (r.hovered) state.ui.hovered = {Stage::Weights, h, r.row, r.col};
  }
  ImGui::Spacing();
  HeatmapLegend(WeightsScale(state.ui.colormap),
                std::min(ImGui::GetContentRegionAvail().x, fs * 16.0f), AnyMasked(state, trace));
}

}  // namespace attnlab::app::HeadsPanel
