#include "view/tooltip_place.h"

#include <algorithm>
#include <optional>

namespace attnlab::app {

namespace {

/// One axis of TooltipInside().
float Along(float mouse, float lo, float hi, float size, float offset) {
  if (mouse + offset + size <= hi) return mouse + offset;
  if (mouse - offset - size >= lo) return mouse - offset - size;
  return std::max(lo, hi - size);
}

using MaybePlace = std::optional<TooltipPlace>;

/// Under the kept rows, beside the mouse, where that is inside `in`.
MaybePlace BelowRows(float mouse_x, float mouse_y, const TooltipRect& keep, const TooltipRect& in,
                     float w, float h, float offset) {
  const float y = std::max(mouse_y + offset, keep.y1 + offset * 0.25f);
  if (y + h > in.y1) return std::nullopt;
  return TooltipPlace{Along(mouse_x, in.x0, in.x1, w, offset), y};
}

/// Right of the grid (or left of it), where that is inside `in` across; centred on the hovered row
/// and kept within `along`'s height where it fits there (the panel's: beside its grid, it covers
/// no other panel's title or text below).
MaybePlace BesideGrid(float mouse_y, const TooltipRect& keep, const TooltipRect& in,
                      const TooltipRect& along, float w, float h, float offset) {
  const TooltipRect& rows = h <= along.y1 - along.y0 ? along : in;
  const float gap = offset * 0.25f, y = std::max(rows.y0, std::min(mouse_y - h * 0.5f, rows.y1 - h));
  if (keep.x1 + gap + w <= in.x1) return TooltipPlace{keep.x1 + gap, y};
  if (keep.x0 - gap - w >= in.x0) return TooltipPlace{keep.x0 - gap - w, y};
  return std::nullopt;
}

/// Over what is above the first row (the title, the column labels), where `in` has that room.
MaybePlace AboveGrid(float mouse_x, const TooltipRect& keep, const TooltipRect& in, float w,
                     float h, float offset) {
  const float y = keep.y0 - offset * 0.25f - h;
  if (y < in.y0) return std::nullopt;
  return TooltipPlace{Along(mouse_x, in.x0, in.x1, w, offset), y};
}

}  // namespace

TooltipPlace TooltipInside(float mouse_x, float mouse_y, float x0, float y0, float x1, float y1, float w, float h,
                           float offset) {
  return {Along(mouse_x, x0, x1, w, offset), Along(mouse_y, y0, y1, h, offset)};
}

TooltipPlace TooltipClearOfRows(float mouse_x, float mouse_y, const TooltipRect& keep,
                                const TooltipRect& panel, const TooltipRect& screen, float w,
                                float h, float offset) {
  for (const MaybePlace& p : {BelowRows(mouse_x, mouse_y, keep, panel, w, h, offset),
                              BesideGrid(mouse_y, keep, panel, panel, w, h, offset),
                              BesideGrid(mouse_y, keep, screen, panel, w, h, offset),
                              BelowRows(mouse_x, mouse_y, keep, screen, w, h, offset),
                              AboveGrid(mouse_x, keep, screen, w, h, offset)})
    if (p) return *p;
  return TooltipInside(mouse_x, mouse_y, screen.x0, screen.y0, screen.x1, screen.y1, w, h, offset);
}

}  // namespace attnlab::app
