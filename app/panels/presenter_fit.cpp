#include "panels/presenter_fit.h"

#include <algorithm>
#include <cmath>

#include "widgets/heatmap_text.h"

namespace attnlab::app::panel_presenter {
namespace {

// Columns of the grid `count` maps like `first` are laid out in: as many as give the largest cells
// (four heads at 1280 x 800: 2 x 2, where four side by side cut the third and lost the fourth).
int GridColumns(const attnlab::Matrix& first, const MapSize& size_at, int count, ImVec2 avail, float gap, float cap,
                int decimals) {
  int best = 1;
  float best_cell = -1.0f;
  for (int cols = 1; cols <= count; ++cols) {
    const float rows = float((count + cols - 1) / cols);
    bool fits = false;
    const float cell =
        FitCell(first, size_at, (avail.x - gap * float(cols - 1)) / float(cols), avail.y / rows, cap, decimals, &fits);
    if (fits && cell > best_cell + 0.5f) best = cols, best_cell = cell;
  }
  return best;
}

}  // namespace

// Cells as large as fit `width` x `height`, up to `cap`; below two pixels, pooled (FitCellSize).
float CellFor(const attnlab::Matrix& m, float width, float height, float cap, int decimals) {
  const float fit = std::min(width / float(m.cols()), height / float(m.rows()));
  return std::floor(fit >= 2.0f ? std::min(cap, fit) : FitCellSize(int(m.rows()), int(m.cols()), width, height, decimals));
}

// The largest cell (up to `cap`) at which a map of `m` fits in width x room: a guess from the room,
// then a tenth smaller at a time (key labels wider than a cell turn upright and take more height,
// so the map is measured each time), until it fits or only its colour bar is too wide. `fits`, if
// given, says whether it does.
float FitCell(const attnlab::Matrix& m, const MapSize& size_at, float width, float room, float cap, int decimals,
              bool* fits) {
  float cell = CellFor(m, width, room, cap, decimals), too_big = 0;
  ImVec2 size = size_at(cell);
  for (int tries = 0; tries < 20 && cell > 2.0f && (size.y > room || size.x > width); ++tries) {
    const float next = std::max(2.0f, std::floor(cell * 0.9f));
    const ImVec2 smaller = size_at(next);
    if (size.y <= room && smaller.x >= size.x) break;  // the colour bar: smaller cells do not help
    too_big = cell, cell = next, size = smaller;
  }
  // A tenth at a time overshoots by up to a tenth: the largest whole cell between the last size
  // that did not fit and the first that does, in a few halvings.
  while (too_big - cell > 1.0f && size.x <= width && size.y <= room) {
    const float mid = std::floor((cell + too_big) * 0.5f);
    const ImVec2 at = size_at(mid);
    if (at.x <= width && at.y <= room)
      cell = mid, size = at;
    else
      too_big = mid;
  }
  if (fits) *fits = size.x <= width && size.y <= room;
  return cell;
}

// The grid of `matrices` in `avail`: the column count with the largest cells, then each map's cells
// in its share of the room. `size_of(i)`: map i's size at a cell size, as drawn.
MapGrid FitGrid(const std::vector<StageMatrix>& matrices, const std::function<MapSize(std::size_t)>& size_of,
                ImVec2 avail, float gap, float cap, int decimals) {
  const float fs = ImGui::GetFontSize();
  MapGrid grid;
  grid.cols = matrices.size() > 1 ? GridColumns(*matrices[0].m, size_of(0), int(matrices.size()), avail, gap, cap, decimals)
                                  : 1;
  const float rows = float((int(matrices.size()) + grid.cols - 1) / grid.cols);
  const float width =
      std::max(fs * 6.0f, (avail.x - gap * float(grid.cols - 1)) / float(grid.cols) - (grid.cols > 1 ? 0.0f : fs * 6.0f));
  const float room = std::max(fs * 6.0f, avail.y / rows - ImGui::GetStyle().ItemSpacing.y);
  for (std::size_t i = 0; i < matrices.size(); ++i)
    grid.cells.push_back(FitCell(*matrices[i].m, size_of(i), width, room, cap, decimals));
  return grid;
}

}  // namespace attnlab::app::panel_presenter
