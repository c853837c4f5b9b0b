#include "view/tooltip_place.h"

namespace attnlab::app {

TooltipPlace TooltipInside(float mouse_x, float mouse_y, float x0, float y0, float x1, float y1, float offset) {
  const bool left = mouse_x > 0.5f * (x0 + x1), up = mouse_y > 0.5f * (y0 + y1);
  return {left ? mouse_x - offset : mouse_x + offset, up ? mouse_y - offset : mouse_y + offset, left ? 1.0f : 0.0f,
          up ? 1.0f : 0.0f};
}

}  // namespace attnlab::app
