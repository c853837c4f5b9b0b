#pragma once
/// What a heatmap draws instead of or over its cells: grey "?" cells before a lesson's reveal,
/// frames around the cells a step highlights, the heads' names over their bands.
#include <utility>
#include <vector>

#include <imgui.h>

#include "widgets/heatmap_spec.h"

namespace attnlab::app {

/// A drawn grid: cell (r, c) fills [origin + (c, r) * cell, ... + cell - gap).
struct GridPlace {
  ImVec2 origin;
  int rows = 0, cols = 0;
  float cell = 0, gap = 0;
  ImVec2 size;
};

/// Every cell a grey "?" (`one_block`: one grey block, for grids drawn as a texture).
void DrawHiddenCells(ImDrawList* dl, const GridPlace& grid, bool one_block, ImFont* mono);
/// The heads' names centred over bands of `band` columns, their tops at `top`: "head 2" where
/// every band has room, else "h2", and a name only where it keeps clear of the one before.
std::vector<HeatmapPlacement::Label> HeadBandLabels(const GridPlace& grid, int band, float top);
/// An accent frame around each (row, col) of `cells` inside the grid; others are skipped.
void DrawOutlines(ImDrawList* dl, const GridPlace& grid, const std::vector<std::pair<int, int>>& cells);
/// "off" in bold on a dark plate, centred on [min, max] (a switched-off head's grid).
void DrawOffMark(ImDrawList* dl, ImVec2 min, ImVec2 max);
/// DrawOffMark over the grid of the heatmap just drawn (the last item: its grid is the item's
/// bottom-right `rows` x `cols` cells of `cell` px, its labels at the left and above).
void DrawOffMarkOverLastHeatmap(float cell, int rows, int cols);

}  // namespace attnlab::app
