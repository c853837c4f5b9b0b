#pragma once
/// Where a tooltip goes so that it stays inside the panel it explains (issue 26, point 2): beside
/// the mouse, towards the middle of the panel. ImGui's default (below right of the mouse) spilled a
/// cell's tooltip near a panel's bottom right corner over the Inspector next to it.

namespace attnlab::app {

/// The tooltip's anchor (x, y) and pivot: (0, 0) grows right and down from the anchor, (1, 1) left
/// and up (ImGui::SetNextWindowPos's pivot).
struct TooltipPlace {
  float x = 0, y = 0, pivot_x = 0, pivot_y = 0;
};

/// For the mouse at (mouse_x, mouse_y) in a panel [x0, x1] x [y0, y1]: `offset` away from the
/// mouse, on the side of each axis with more room.
TooltipPlace TooltipInside(float mouse_x, float mouse_y, float x0, float y0, float x1, float y1, float offset);

}  // namespace attnlab::app
