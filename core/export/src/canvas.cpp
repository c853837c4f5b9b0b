#include "attnlab/export/canvas.h"

#include <algorithm>
#include <cmath>

namespace attnlab::exporter {

Canvas::Canvas(int width, int height, Rgba8 background) : width_(width), height_(height) {
  if (width <= 0 || height <= 0) throw ExportError("canvas: expected a positive size");
  pixels_.resize(static_cast<std::size_t>(width) * height * 4);
  for (std::size_t k = 0; k < pixels_.size(); k += 4) {
    pixels_[k] = background.r;
    pixels_[k + 1] = background.g;
    pixels_[k + 2] = background.b;
    pixels_[k + 3] = background.a;
  }
}

Rgba8 Canvas::pixel(int x, int y) const {
  const std::uint8_t* p = &pixels_[(static_cast<std::size_t>(y) * width_ + x) * 4];
  return {p[0], p[1], p[2], p[3]};
}

void Canvas::blend(int x, int y, Rgba8 c, double coverage) {
  if (x < 0 || y < 0 || x >= width_ || y >= height_ || coverage <= 0) return;
  std::uint8_t* p = &pixels_[(static_cast<std::size_t>(y) * width_ + x) * 4];
  const double sa = std::min(coverage, 1.0) * c.a / 255.0, da = p[3] / 255.0;
  const double oa = sa + da * (1 - sa);
  if (oa <= 0) return;
  // Straight alpha "over": colours weighted by their own alpha (a transparent page stays clean).
  auto mix = [&](std::uint8_t s, std::uint8_t d) {
    return static_cast<std::uint8_t>(std::lround((s * sa + d * da * (1 - sa)) / oa));
  };
  p[0] = mix(c.r, p[0]);
  p[1] = mix(c.g, p[1]);
  p[2] = mix(c.b, p[2]);
  p[3] = static_cast<std::uint8_t>(std::lround(oa * 255));
}

void Canvas::fill(RectI r, Rgba8 c) {
  const int x0 = std::max(r.x, 0), x1 = std::min(r.x + r.w, width_);
  const int y0 = std::max(r.y, 0), y1 = std::min(r.y + r.h, height_);
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      std::uint8_t* p = &pixels_[(static_cast<std::size_t>(y) * width_ + x) * 4];
      p[0] = c.r, p[1] = c.g, p[2] = c.b, p[3] = c.a;
    }
}

void Canvas::hatch(RectI r, Rgba8 line, double spacing, double thickness) {
  // Lines x + y = const (45 degrees); a pixel's coverage falls off linearly with its distance from
  // the nearest line, which anti-aliases without supersampling.
  const double half = thickness / 2, diag = std::sqrt(2.0);
  for (int y = r.y; y < r.y + r.h; ++y)
    for (int x = r.x; x < r.x + r.w; ++x) {
      const double u = (x - r.x + 0.5) + (y - r.y + 0.5);  // constant along each line
      double d = std::fmod(u, spacing * diag);
      d = std::min(d, spacing * diag - d) / diag;  // distance to the nearest line, in pixels
      blend(x, y, line, std::clamp(half + 0.5 - d, 0.0, 1.0));
    }
}

}  // namespace attnlab::exporter
