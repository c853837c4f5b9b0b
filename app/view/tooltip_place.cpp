#include "view/tooltip_place.h"

#include <algorithm>

namespace attnlab::app {

namespace {

/// One axis of TooltipInside().
float Along(float mouse, float lo, float hi, float size, float offset) {
  if (mouse + offset + size <= hi) return mouse + offset;
  if (mouse - offset - size >= lo) return mouse - offset - size;
  return std::max(lo, hi - size);
}

}  // namespace

TooltipPlace TooltipInside(float mouse_x, float mouse_y, float x0, float y0, float x1, float y1, float w, float h,
                           float offset) {
  return {Along(mouse_x, x0, x1, w, offset), Along(mouse_y, y0, y1, h, offset)};
}

}  // namespace attnlab::app
