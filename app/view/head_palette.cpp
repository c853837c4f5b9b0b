#include "view/head_palette.h"

#include "attnlab/colormap.h"

namespace attnlab::app {

std::array<float, 3> HeadRgb(int head) {
  const Rgb8 c = HeadColor(head);
  return {c.r / 255.0f, c.g / 255.0f, c.b / 255.0f};
}

}  // namespace attnlab::app
