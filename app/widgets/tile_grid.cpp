#include "widgets/tile_grid.h"

#include <algorithm>
#include <cmath>

#include "widgets/heatmap_legend.h"
#include "widgets/theme.h"

namespace attnlab::app {

void DrawTileGrid(const std::vector<attnlab::lesson::TileBox>& boxes, std::size_t current,
                  ImVec2 grid, float cell) {
  if (current >= boxes.size()) return;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const auto corner = [grid, cell](int row, int col) { return ImVec2(grid.x + col * cell, grid.y + row * cell); };
  for (const attnlab::lesson::TileBox& b : boxes) {
    const ImVec2 a = corner(b.row, b.col), z = corner(b.row + b.rows, b.col + b.cols);
    if (b.skipped) {
      dl->AddRectFilled(a, z, IM_COL32(20, 20, 24, 110));
      AddHatch(dl, a, z);
    }
    dl->AddRect(a, z, IM_COL32(240, 240, 240, 150), 0.0f, 0, 1.0f);
  }
  const attnlab::lesson::TileBox& b = boxes[current];
  const float w = std::max(2.0f, std::round(cell * 0.12f));
  const ImVec2 a = corner(b.row, b.col), z = corner(b.row + b.rows, b.col + b.cols);
  dl->AddRect(ImVec2(a.x - w * 0.5f, a.y - w * 0.5f), ImVec2(z.x + w * 0.5f, z.y + w * 0.5f), AccentColor(), 0.0f, 0, w);
}

}  // namespace attnlab::app
