#include "panels/presenter_engines.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <exception>

#include "attnlab/export/engine_figures.h"
#include "widgets/heatmap.h"
#include "widgets/theme.h"
#include "widgets/tile_grid.h"

namespace attnlab::app {
namespace {

namespace lesson = attnlab::lesson;
using attnlab::exporter::HeatmapFigure;

}  // namespace

const PresenterEngines::Run& PresenterEngines::Update(AppState& state, const lesson::Step& step, int index, int head) {
  const std::uint64_t version = state.document.TraceVersion();
  if (run_.version == version && run_.index == index && run_.head == head) return run_;
  run_ = Run{version, index, head, {}, {}, 0};
  const attnlab::Scenario& s = state.document.GetScenario();
  const attnlab::Trace& t = state.document.GetTrace();
  const attnlab::exporter::Colormaps maps{state.ui.colormap, attnlab::DivergingFor(state.ui.colormap)};
  if (step.kind == StageId::decode) {
    run_.figures = attnlab::exporter::decode_figures(s, step, head, maps);
    return run_;
  }
  run_.figures = attnlab::exporter::tiles_figures(s, t, step, head, maps);
  if (run_.figures.size() < 2) return run_;  // no run: the explanation says why
  const attnlab::FlashRun flash = lesson::tiles_run(step, t, head);
  run_.boxes = lesson::tile_boxes(flash);
  run_.tile = lesson::shown_tile(step, flash);
  return run_;
}

HeatmapSpec PresenterEngines::Spec(AppState& state, std::size_t i, float cell, bool hidden) const {
  const HeatmapFigure& f = run_.figures[i];
  static const char* const kIds[] = {"presenter_engine_0", "presenter_engine_1", "presenter_engine_2"};
  HeatmapSpec spec;
  spec.id = kIds[std::min<std::size_t>(i, 2)];
  spec.title = f.title.c_str();
  spec.values = &f.values;
  spec.row_labels = &f.row_labels;
  spec.col_labels = &f.col_labels;
  spec.row_axis = f.row_axis.empty() ? nullptr : f.row_axis.c_str();
  spec.col_axis = f.col_axis.empty() ? nullptr : f.col_axis.c_str();
  spec.scale = f.scale;
  spec.cell = cell;
  spec.decimals = state.ui.decimals;
  spec.legend = false;
  spec.shape_in_title = false;
  spec.data_version = run_.version * 8 + i + 1;
  spec.hidden = hidden;
  spec.masked_blank = !f.hatched_legend.empty();  // evicted cache rows: blank, as on the slides
  return spec;
}

float PresenterEngines::Fit(AppState& state, const std::vector<std::vector<std::size_t>>& rows, ImVec2 room,
                            float gap) const {
  // From the largest cell the matrices' counts allow, shrunk a tenth at a time until the measured
  // maps (labels turn upright in narrow cells and take more height) fit, rows of them stacked.
  const float spacing = ImGui::GetStyle().ItemSpacing.y;
  const auto measure = [&](float cell) {
    ImVec2 total(0.0f, 0.0f);
    for (const std::vector<std::size_t>& row : rows) {
      ImVec2 line(0.0f, 0.0f);
      for (std::size_t i : row) {
        const ImVec2 size = HeatmapSize(*state.heatmaps, Spec(state, i, cell, false));
        line = ImVec2(line.x + (line.x > 0 ? gap : 0.0f) + size.x, std::max(line.y, size.y));
      }
      total = ImVec2(std::max(total.x, line.x), total.y + (total.y > 0 ? spacing : 0.0f) + line.y);
    }
    return total;
  };
  // A title wider than the room at the smallest cell would never fit: the room is at least that.
  const ImVec2 least = measure(2.0f);
  room = ImVec2(std::max(room.x, least.x), std::max(room.y, least.y));
  float cell = std::round(GetFonts().mono->FontSize * 7.0f);
  for (const std::vector<std::size_t>& row : rows)
    for (std::size_t i : row)
      cell = std::min({cell, room.x / float(run_.figures[i].values.cols()), room.y / float(run_.figures[i].values.rows())});
  for (int tries = 0; tries < 30 && cell > 2.0f; ++tries, cell = std::max(2.0f, std::floor(cell * 0.9f))) {
    const ImVec2 total = measure(cell);
    if (total.x <= room.x && total.y <= room.y) break;
  }
  return std::floor(cell);
}

void PresenterEngines::DrawFigure(AppState& state, std::size_t i, float cell, bool hidden) {
  const HeatmapResult r = Heatmap(*state.heatmaps, Spec(state, i, cell, hidden));
  if (i == 0 && !run_.boxes.empty()) DrawTileGrid(run_.boxes, run_.tile, r.grid, cell);
}

void PresenterEngines::Draw(AppState& state, const lesson::Step& step, int index, int head, bool hidden) {
  const Run& run = Update(state, step, index, head);
  if (run.figures.empty()) return;  // the explanation says why
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float gap = ImGui::GetFontSize() * 2.0f;
  const bool tiles = step.kind == StageId::tiles, three = run.figures.size() > 2;
  // Tiles: the scores at the left, the block's state and O stacked at the right. Decode: the K and
  // V caches and the new query's weights side by side (the caches' rows are what limits the height
  // a projector's class reads). One cell size for all.
  // The block's state gets its own, larger cell: its few numbers are what the step is about.
  float cell = 0, state_cell = 0;
  if (tiles) {
    const float left = three ? avail.x * 0.6f - gap : avail.x;
    cell = Fit(state, {{0}}, ImVec2(left, avail.y), gap);
    if (three) state_cell = Fit(state, {{1}, {2}}, ImVec2(avail.x - left - gap, avail.y), gap);
  } else {
    cell = Fit(state, {three ? std::vector<std::size_t>{0, 1, 2} : std::vector<std::size_t>{0, 1}}, avail, gap);
  }
  // A tiles step's scores keep their numbers before the reveal: they are what the class predicts from.
  DrawFigure(state, 0, cell, hidden && !tiles);
  if (run.figures.size() < 2) return;
  ImGui::SameLine(0.0f, gap);
  if (!tiles) {
    DrawFigure(state, 1, cell, hidden);
    if (three) ImGui::SameLine(0.0f, gap), DrawFigure(state, 2, cell, hidden);
    return;
  }
  ImGui::BeginGroup();
  DrawFigure(state, 1, three ? state_cell : cell, hidden);
  if (three) DrawFigure(state, 2, state_cell, hidden);
  ImGui::EndGroup();
}

}  // namespace attnlab::app
