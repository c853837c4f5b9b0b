#pragma once
// The presenter's stage fitting: the largest cells at which a step's maps fit the stage, each map
// measured as drawn (the key labels may turn upright and take more height at a smaller cell).
#include <imgui.h>

#include <functional>
#include <vector>

#include "attnlab/matrix.h"
#include "panels/stage_heatmap.h"

namespace attnlab::app::panel_presenter {

/// The size of a map drawn with cells of the given size, as the step draws it.
using MapSize = std::function<ImVec2(float cell)>;

/// Where a step's maps go: `cols` a row, each map's cells.
struct MapGrid {
  int cols = 1;
  std::vector<float> cells;
  std::vector<float> indents;  // each row's, centring it
};

/// Cells as large as fit `width` x `height`, up to `cap`; below two pixels, pooled (FitCellSize).
float CellFor(const attnlab::Matrix& m, float width, float height, float cap, int decimals);

/// The largest cell (up to `cap`) at which a map of `m` fits in width x room: a guess from the room,
/// then a tenth smaller at a time, until it fits or only its colour bar is too wide. `fits`, if
/// given, says whether it does.
float FitCell(const attnlab::Matrix& m, const MapSize& size_at, float width, float room, float cap, int decimals,
              bool* fits = nullptr);

/// The grid of `matrices` in `avail`: the column count with the largest cells, then each map's cells
/// in its share of the room. `size_of(i)`: map i's size at a cell size, as drawn.
MapGrid FitGrid(const std::vector<StageMatrix>& matrices, const std::function<MapSize(std::size_t)>& size_of,
                ImVec2 avail, float gap, float cap, int decimals);

}  // namespace attnlab::app::panel_presenter
