#pragma once
/// The heatmap widget every matrix view uses: token labels on both axes, values in the cells when
/// they fit, a colour legend with its range, masked (-inf) cells hatched. Small matrices are drawn
/// as ImDrawList rectangles; large ones as a texture built only when the data changes, at most one
/// texel per screen pixel (cells smaller than a pixel are pooled: heatmap_pooling.h).
#include <imgui.h>

#include "attnlab/colormap.h"
#include "attnlab/matrix.h"
#include "view/heatmap_pooling.h"
#include "widgets/heatmap_spec.h"
#include "widgets/heatmap_text.h"  // the cell sizes chosen for printed values

namespace attnlab::app {

/// A placement of a `rows` x `cols` grid drawn in the current window from `origin` (cell (0, 0)'s
/// top-left) at `cell` pixels a cell, with the window's name and visible rectangle filled in; the
/// caller adds what else it knows (stage, texture, colours).
HeatmapPlacement PlacementInCurrentWindow(const char* id, int rows, int cols, ImVec2 origin,
                                          float cell, float gap);

struct HeatmapResult {
  bool hovered = false;  ///< the mouse is over a cell (row, col valid)
  bool clicked = false;  ///< the widget was clicked (anywhere on it)
  int row = -1, col = -1;
  ImVec2 grid;  ///< top-left of cell (0, 0) on the screen, for what a panel draws over the cells
};

/// Whole size of the widget for `spec` (title, labels, grid, legend), for flow layout.
ImVec2 HeatmapSize(struct HeatmapContext& ctx, const HeatmapSpec& spec);
/// Whether `spec` at its cell size prints the values over the cells (they fit).
bool HeatmapShowsValues(HeatmapContext& ctx, const HeatmapSpec& spec);
/// Draws the widget at the cursor and returns what the mouse does with it.
HeatmapResult Heatmap(HeatmapContext& ctx, const HeatmapSpec& spec);

/// Symmetric range +-max|finite value| for signed data (diverging map centred on 0).
ColorScale DivergingScale(const attnlab::Matrix& m, Colormap sequential);
/// The diverging map for signed data, its range found by the widget (HeatmapSpec::symmetric_range).
ColorScale SignedScale(Colormap sequential);
/// The fixed [0, 1] range of attention weights.
ColorScale WeightsScale(Colormap sequential);

}  // namespace attnlab::app
