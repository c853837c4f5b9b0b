#pragma once
/// Where a tooltip goes so that it stays inside the panel it explains (issue 26, point 2). ImGui's
/// default (below right of the mouse) spilled a cell's tooltip near a panel's right or bottom edge
/// over the next panel.

namespace attnlab::app {

/// The tooltip's top-left corner.
struct TooltipPlace {
  float x = 0, y = 0;
};

/// For the mouse at (mouse_x, mouse_y) in a panel [x0, x1] x [y0, y1] and a tooltip w x h (its
/// last frame's size; 0 when not known yet): `offset` right of (or below) the mouse where it fits
/// there, else left of (above) it where it fits, else as far right (down) as keeps it inside,
/// the panel's left (top) edge when it is larger than the panel.
TooltipPlace TooltipInside(float mouse_x, float mouse_y, float x0, float y0, float x1, float y1, float w, float h,
                           float offset);

/// A rectangle on the screen: [x0, x1] x [y0, y1].
struct TooltipRect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

/// A hovered cell's tooltip w x h that leaves `keep` uncovered: the grid's width from its first
/// row down to the hovered row, which a class is reading (a tooltip above the mouse covered them
/// in the Heads panel's large head). Below the hovered row where that fits inside `panel`, else
/// beside the grid inside it (right, then left); else the same inside `screen` (beside first: the
/// eye stays on the row; centred on it, within the panel's height where it fits: at the head's
/// last rows it went below the grid, over the Inspector's title), then above the grid; else as
/// TooltipInside() within the screen.
TooltipPlace TooltipClearOfRows(float mouse_x, float mouse_y, const TooltipRect& keep,
                                const TooltipRect& panel, const TooltipRect& screen, float w,
                                float h, float offset);

}  // namespace attnlab::app
