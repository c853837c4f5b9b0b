#include "view/head_palette.h"

#include <algorithm>

namespace attnlab::app {

std::array<float, 3> HeadRgb(int head) {
  // Chosen for the largest smallest CIELAB distance between the first 4, then all 8, in normal
  // vision and simulated deuteranopia and protanopia, every colour bright enough on the dark theme.
  static constexpr unsigned char kColors[kHeadPaletteSize][3] = {
      {230, 159, 0},    // Okabe-Ito orange
      {0, 119, 187},    // Tol blue
      {0, 158, 115},    // Okabe-Ito bluish green
      {204, 51, 17},    // Tol red
      {102, 204, 238},  // Tol cyan
      {187, 187, 187},  // Tol grey
      {240, 228, 66},   // Okabe-Ito yellow
      {170, 51, 119}};  // Tol purple
  const unsigned char* c = kColors[std::max(head, 0) % kHeadPaletteSize];
  return {c[0] / 255.0f, c[1] / 255.0f, c[2] / 255.0f};
}

}  // namespace attnlab::app
