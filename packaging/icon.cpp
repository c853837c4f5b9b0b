// attnlab's icon, drawn from one description: a 4 by 4 attention-weight heatmap in viridis with a
// bright diagonal on a dark rounded square. `attnlab-icon --svg` prints the SVG that
// assets/icons/attnlab.svg holds (a test compares them); `attnlab-icon --png N OUT` rasterises the
// same shapes at N by N pixels with the exporters' canvas and PNG writer (no new dependency).
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "attnlab/colormap.h"
#include "attnlab/export/canvas.h"
#include "attnlab/export/figure.h"

namespace {

using attnlab::Rgb8;

// The design, in a 512 by 512 view box.
constexpr double kBox = 512.0;
constexpr double kBgX = 16.0, kBgSize = 480.0, kBgRadius = 72.0;
constexpr double kCellX0 = 70.0, kCellSize = 84.0, kCellStep = 96.0, kCellRadius = 8.0;
constexpr Rgb8 kBackground{0x1b, 0x1d, 0x2b};
// Weights drawn in the cells (row = query): each query attends mostly to itself.
constexpr std::array<std::array<double, 4>, 4> kWeights{{{1.00, 0.30, 0.15, 0.40},
                                                         {0.35, 1.00, 0.45, 0.20},
                                                         {0.15, 0.50, 1.00, 0.30},
                                                         {0.45, 0.20, 0.35, 1.00}}};

Rgb8 CellColor(int i, int j) { return attnlab::MapColor(attnlab::Colormap::Viridis, kWeights[i][j]); }

std::string Hex(Rgb8 c) {
  char text[8];
  std::snprintf(text, sizeof text, "#%02x%02x%02x", c.r, c.g, c.b);
  return text;
}

std::string Svg() {
  std::string s =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"512\" height=\"512\" viewBox=\"0 0 512 512\">\n"
      "  <title>attnlab</title>\n";
  s += "  <rect x=\"16\" y=\"16\" width=\"480\" height=\"480\" rx=\"72\" fill=\"" + Hex(kBackground) + "\"/>\n";
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      s += "  <rect x=\"" + std::to_string(int(kCellX0 + j * kCellStep)) + "\" y=\"" +
           std::to_string(int(kCellX0 + i * kCellStep)) + "\" width=\"84\" height=\"84\" rx=\"8\" fill=\"" +
           Hex(CellColor(i, j)) + "\"/>\n";
    }
  }
  return s + "</svg>\n";
}

// Whether (x, y) lies in the square [x0, x0 + size) by [y0, y0 + size) with corner radius r.
bool InRounded(double x, double y, double x0, double y0, double size, double r) {
  if (x < x0 || y < y0 || x >= x0 + size || y >= y0 + size) return false;
  const double cx = x < x0 + r ? x0 + r : (x > x0 + size - r ? x0 + size - r : x);
  const double cy = y < y0 + r ? y0 + r : (y > y0 + size - r ? y0 + size - r : y);
  return (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r;
}

// Colour and coverage of one point of the view box (the shapes the SVG draws, in its order).
bool Sample(double x, double y, Rgb8* c) {
  if (!InRounded(x, y, kBgX, kBgX, kBgSize, kBgRadius)) return false;
  *c = kBackground;
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      const double cx = kCellX0 + j * kCellStep, cy = kCellX0 + i * kCellStep;
      if (InRounded(x, y, cx, cy, kCellSize, kCellRadius)) {
        *c = CellColor(i, j);
      }
    }
  }
  return true;
}

attnlab::exporter::Canvas Raster(int n) {
  constexpr int kSub = 4;  // 4x4 samples per pixel: anti-aliased edges
  attnlab::exporter::Canvas canvas(n, n, {0, 0, 0, 0});
  const double unit = kBox / n;
  for (int py = 0; py < n; ++py) {
    for (int px = 0; px < n; ++px) {
      double r = 0, g = 0, b = 0;
      int hits = 0;
      for (int sy = 0; sy < kSub; ++sy) {
        for (int sx = 0; sx < kSub; ++sx) {
          Rgb8 c;
          if (!Sample((px + (sx + 0.5) / kSub) * unit, (py + (sy + 0.5) / kSub) * unit, &c)) continue;
          r += c.r, g += c.g, b += c.b, ++hits;
        }
      }
      if (hits == 0) continue;
      const auto avg = [hits](double v) { return std::uint8_t(v / hits + 0.5); };
      canvas.fill({px, py, 1, 1}, {avg(r), avg(g), avg(b), std::uint8_t(255 * hits / (kSub * kSub))});
    }
  }
  return canvas;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "--svg" && argc == 2) {
    std::cout << Svg();
    return 0;
  }
  if (mode == "--png" && argc == 4) {
    const int n = std::atoi(argv[2]);
    if (n < 16 || n > 1024) {
      std::cerr << "attnlab-icon: size " << argv[2] << ": expected 16 to 1024\n";
      return 2;
    }
    std::ofstream out(argv[3], std::ios::binary);
    out << attnlab::exporter::encode_png(Raster(n));
    if (!out.flush()) {
      std::cerr << "attnlab-icon: " << argv[3] << ": cannot be written\n";
      return 1;
    }
    return 0;
  }
  std::cerr << "usage: attnlab-icon --svg | --png SIZE OUT.png\n";
  return 2;
}
