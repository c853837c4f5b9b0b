#pragma once
/// An RGBA8 raster image in memory, the target of the CPU figure renderer.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace attnlab::exporter {

/// Anything that stops an export: missing font, unwritable file, malformed CSV. what() is one line.
class ExportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Straight (not premultiplied) alpha, as PNG stores it.
struct Rgba8 {
  std::uint8_t r = 0, g = 0, b = 0, a = 255;
  bool operator==(const Rgba8& o) const { return r == o.r && g == o.g && b == o.b && a == o.a; }
};

/// Axis-aligned rectangle in whole pixels (or SVG user units): [x, x + w) by [y, y + h).
struct RectI {
  int x = 0, y = 0, w = 0, h = 0;
  /// Times `s` (a fractional zoom too): the edges are rounded, not the size, so rectangles that
  /// tile (a heatmap's cells) still tile without gaps or overlaps.
  RectI scaled(double s) const {
    const int x0 = int(std::lround(x * s)), y0 = int(std::lround(y * s));
    return {x0, y0, int(std::lround((x + w) * s)) - x0, int(std::lround((y + h) * s)) - y0};
  }
  int centre_x() const { return x + w / 2; }
  int centre_y() const { return y + h / 2; }
};

/// width by height pixels, row-major, top row first (the order stbi_write_png expects).
class Canvas {
 public:
  Canvas(int width, int height, Rgba8 background);
  int width() const { return width_; }
  int height() const { return height_; }
  const std::uint8_t* data() const { return pixels_.data(); }
  Rgba8 pixel(int x, int y) const;

  /// Composites `c` at `coverage` in [0, 1] over pixel (x, y) (Porter-Duff "over"); clipped.
  void blend(int x, int y, Rgba8 c, double coverage);
  /// Replaces the pixels of `r` (clipped) with `c`.
  void fill(RectI r, Rgba8 c);
  /// Diagonal lines (lower left to upper right) every `spacing` pixels inside `r`, anti-aliased.
  void hatch(RectI r, Rgba8 line, double spacing, double thickness);

 private:
  int width_, height_;
  std::vector<std::uint8_t> pixels_;  ///< 4 bytes per pixel
};

}  // namespace attnlab::exporter
