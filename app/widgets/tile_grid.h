#pragma once
/// FlashAttention's tile grid drawn over a scores heatmap, as the Tiles panel and the presenter's
/// tiles steps show it: thin lines around every tile, skipped tiles hatched and dimmed, the
/// current tile framed in the accent colour.
#include <imgui.h>

#include <cstddef>
#include <vector>

#include "attnlab/lesson.h"

namespace attnlab::app {

/// `boxes` in the heatmap's own rows and columns (attnlab::lesson::tile_boxes()), the grid's
/// top-left corner at `grid`, `cell` pixels a cell; `current` indexes `boxes`.
void DrawTileGrid(const std::vector<attnlab::lesson::TileBox>& boxes, std::size_t current,
                  ImVec2 grid, float cell);

}  // namespace attnlab::app
