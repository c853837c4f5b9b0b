// Shared by the window checkers (gui_*_check.cpp): screenshots, the window's layout dump
// (OUT.png.json) and heatmap cell geometry. Each checker keeps its own tolerances and verdicts.
#pragma once

#include <stb_image.h>  // implementation in Debian's libstb.so

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/colormap.h"
#include "attnlab/trace.h"
#include "gui_run_support.h"

namespace gui_check {

// A screenshot as packed 8-bit RGB, the form stb and the X server readback both give.
struct Image {
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;
  attnlab::Rgb8 At(int x, int y) const {
    const unsigned char* p = &rgb[(static_cast<std::size_t>(y) * width + x) * 3];
    return {p[0], p[1], p[2]};
  }
};

// Decodes a PNG to RGB (alpha dropped): the window's screenshots are what the user saw.
inline bool LoadImage(const std::string& path, Image* image) {
  int n = 0;
  unsigned char* data = stbi_load(path.c_str(), &image->width, &image->height, &n, 3);
  if (!data) return false;
  image->rgb.assign(data, data + static_cast<std::size_t>(image->width) * image->height * 3);
  stbi_image_free(data);
  return true;
}

// LoadImage that reports the failure: a missing screenshot must fail the test, loudly.
inline bool LoadScreenshot(const std::string& png, Image* image) {
  if (LoadImage(png, image)) return true;
  std::printf("FAIL: cannot read %s\n", png.c_str());
  return false;
}

// The layout dump written next to OUT.png: it says only where cells are, never their colours.
inline nlohmann::json LoadLayout(const std::string& png) {
  return nlohmann::json::parse(std::ifstream(png + ".json"));
}

// The colormap named by a dump or heatmap entry: expected colours use the window's choice.
inline bool ColormapOf(const nlohmann::json& j, attnlab::Colormap* map) {
  return attnlab::ColormapFromName(j["colormap"].get<std::string>().c_str(), map);
}

// The colour the window draws masked cells in (not a colormap value).
inline attnlab::Rgb8 MaskedRgb(const nlohmann::json& dump) {
  const auto m = dump["masked_rgb"].get<std::vector<int>>();
  return {static_cast<unsigned char>(m[0]), static_cast<unsigned char>(m[1]),
          static_cast<unsigned char>(m[2])};
}

// The largest per-channel difference: every tolerance is per 8-bit channel.
inline int ChannelError(attnlab::Rgb8 a, attnlab::Rgb8 b) {
  return std::max({std::abs(a.r - b.r), std::abs(a.g - b.g), std::abs(a.b - b.b)});
}

// The most frequent colour in [x0, x1) x [y0, y1), clipped to the image: a cell's fill even
// where digits or hatching cover its centre. *share: its fraction of the pixels (0: empty box).
inline attnlab::Rgb8 DominantColor(const Image& img, int x0, int y0, int x1, int y1, double* share) {
  std::map<unsigned, int> counts;
  int total = 0;
  for (int y = std::max(y0, 0); y < std::min(y1, img.height); ++y)
    for (int x = std::max(x0, 0); x < std::min(x1, img.width); ++x) {
      const attnlab::Rgb8 c = img.At(x, y);
      ++counts[(unsigned(c.r) << 16) | (unsigned(c.g) << 8) | c.b];
      ++total;
    }
  if (counts.empty()) {
    *share = 0;
    return {};
  }
  auto best = std::max_element(counts.begin(), counts.end(),
                               [](auto& a, auto& b) { return a.second < b.second; });
  *share = double(best->second) / total;
  const unsigned v = best->first;
  return {static_cast<unsigned char>(v >> 16), static_cast<unsigned char>(v >> 8),
          static_cast<unsigned char>(v)};
}

// One heatmap's grid from the dump (window coordinates): where its cells are and what is visible.
struct Grid {
  float x0, y0, cell, gap;
  std::vector<float> clip;
};

// Reads a heatmap entry's grid once, so the cell loops do arithmetic, not JSON lookups.
inline Grid GridOf(const nlohmann::json& hm) {
  return {hm["x0"].get<float>(), hm["y0"].get<float>(), hm["cell"].get<float>(),
          hm["gap"].get<float>(), hm["clip"].get<std::vector<float>>()};
}

// A cell's filled square (the gap excluded), in window coordinates.
struct CellRect {
  float left, top, right, bottom;
};

// Cell (r, c) of the grid: rows go down, columns across.
inline CellRect CellAt(const Grid& g, long r, long c) {
  const float left = g.x0 + c * g.cell, top = g.y0 + r * g.cell;
  return {left, top, left + g.cell - g.gap, top + g.cell - g.gap};
}

// Whether the whole cell is inside the panel's clip rectangle: a scrolled-off cell is not drawn.
inline bool InClip(const Grid& g, const CellRect& c) {
  return !(c.left < g.clip[0] || c.top < g.clip[1] || c.right > g.clip[2] || c.bottom > g.clip[3]);
}

// The cell's centre pixel in the framebuffer; false when it falls outside the screenshot.
inline bool CentrePixel(const CellRect& c, float fb_scale, const Image& img, int* cx, int* cy) {
  *cx = int(std::floor((c.left + c.right) * 0.5f * fb_scale));
  *cy = int(std::floor((c.top + c.bottom) * 0.5f * fb_scale));
  return !(*cx < 0 || *cy < 0 || *cx >= img.width || *cy >= img.height);
}

// Whether the cell keeps some pixels after an `inset` on each side: tiny cells have no interior.
inline bool HasInterior(const CellRect& c, float fb_scale, int inset) {
  return (c.right - c.left) * fb_scale > 2 * inset + 2;
}

// The dominant colour of the cell's interior, `inset` framebuffer pixels in from its edges.
inline attnlab::Rgb8 InteriorColor(const Image& img, const CellRect& c, float fb_scale, int inset,
                                   double* share) {
  return DominantColor(img, int(std::ceil(c.left * fb_scale)) + inset,
                       int(std::ceil(c.top * fb_scale)) + inset,
                       int(std::floor(c.right * fb_scale)) - inset,
                       int(std::floor(c.bottom * fb_scale)) - inset, share);
}

// What a weights cell of `head` must show: masked cells in masked_rgb, the rest mapped over [0, 1].
inline attnlab::Rgb8 WeightColor(const attnlab::Trace& trace, int head, long r, long c,
                                 attnlab::Colormap map, attnlab::Rgb8 masked_rgb) {
  const attnlab::Matrix& w = trace.heads[static_cast<std::size_t>(head)].weights;
  return trace.is_masked(r, c) ? masked_rgb : attnlab::MapValue({map, 0.0, 1.0}, w(r, c));
}

// A pooled heatmap (dump "pooling" other than "none": cells smaller than a pixel) draws texel x
// of texels[0], one pixel wide, for the block of columns [x * cols / texels[0], (x + 1) * cols /
// texels[0]) (integer division), rows likewise.
struct PooledGrid {
  float x0 = 0, y0 = 0;
  long rows = 0, cols = 0, texels_w = 0, texels_h = 0;
  std::vector<float> clip;
};

inline bool IsPooled(const nlohmann::json& hm) { return hm.value("pooling", "none") != "none"; }

inline PooledGrid PooledGridOf(const nlohmann::json& hm) {
  return {hm["x0"].get<float>(),   hm["y0"].get<float>(),       hm["rows"].get<long>(),
          hm["cols"].get<long>(),  hm["texels"][0].get<long>(), hm["texels"][1].get<long>(),
          hm["clip"].get<std::vector<float>>()};
}

// First cell of texel i along a side of n cells drawn as n_px texels.
inline long FirstCellOfTexel(long i, long n, long n_px) { return i * n / n_px; }

// The texel whose block holds cell k: the last texel starting at or before k.
inline long TexelOfCell(long k, long n, long n_px) { return ((k + 1) * n_px - 1) / n; }

// What texel (x, y) of head's pooled weights must show: the largest weight of its block that is
// not masked (max-pooling), or masked_rgb when every cell of the block is masked.
inline attnlab::Rgb8 PooledWeightColor(const attnlab::Trace& trace, int head, const PooledGrid& g,
                                       long x, long y, attnlab::Colormap map, attnlab::Rgb8 masked_rgb) {
  const attnlab::Matrix& w = trace.heads[static_cast<std::size_t>(head)].weights;
  double best = -1.0;
  for (long r = FirstCellOfTexel(y, g.rows, g.texels_h); r < FirstCellOfTexel(y + 1, g.rows, g.texels_h); ++r)
    for (long c = FirstCellOfTexel(x, g.cols, g.texels_w); c < FirstCellOfTexel(x + 1, g.cols, g.texels_w); ++c)
      if (!trace.is_masked(r, c)) best = std::max(best, w(r, c));
  return best < 0 ? masked_rgb : attnlab::MapValue({map, 0.0, 1.0}, best);
}

// The framebuffer pixel at the centre of texel (x, y); false when clipped or off the image.
inline bool TexelPixel(const PooledGrid& g, long x, long y, float fb_scale, const Image& img, int* px, int* py) {
  const float left = g.x0 + float(x), top = g.y0 + float(y);
  if (left < g.clip[0] || top < g.clip[1] || left + 1 > g.clip[2] || top + 1 > g.clip[3]) return false;
  *px = int(std::floor((left + 0.5f) * fb_scale));
  *py = int(std::floor((top + 0.5f) * fb_scale));
  return !(*px < 0 || *py < 0 || *px >= img.width || *py >= img.height);
}

// Where cell (r, c) of head's weights heatmap `hm` shows on screen and the colour it must have
// there: the centre of its own pixels, or of its block's texel when pooled. False when not in view.
inline bool WeightProbe(const nlohmann::json& hm, const Image& img, float fb_scale,
                        const attnlab::Trace& trace, int head, long r, long c, attnlab::Colormap map,
                        attnlab::Rgb8 masked_rgb, int* px, int* py, attnlab::Rgb8* expected) {
  if (IsPooled(hm)) {
    const PooledGrid g = PooledGridOf(hm);
    const long x = TexelOfCell(c, g.cols, g.texels_w), y = TexelOfCell(r, g.rows, g.texels_h);
    *expected = PooledWeightColor(trace, head, g, x, y, map, masked_rgb);
    return TexelPixel(g, x, y, fb_scale, img, px, py);
  }
  const Grid grid = GridOf(hm);
  const CellRect rect = CellAt(grid, r, c);
  *expected = WeightColor(trace, head, r, c, map, masked_rgb);
  return InClip(grid, rect) && CentrePixel(rect, fb_scale, img, px, py);
}

// Makes OUT.png's directory and removes an old OUT.png: a stale screenshot must not pass.
inline void PrepareOutput(const std::string& out) {
  std::filesystem::create_directories(std::filesystem::path(out).parent_path());
  std::filesystem::remove(out);
}

// The window command that opens `scenario` and writes OUT.png with its layout dump.
inline std::string ScreenshotCommand(const std::string& app, const std::string& scenario,
                                     const std::string& out) {
  return Quote(app) + " " + Quote(scenario) + " --screenshot " + Quote(out);
}

// Appends argv[first..] quoted: the checker's extra arguments go to the window unchanged.
inline void AppendArgs(std::string* command, int argc, char** argv, int first) {
  for (int i = first; i < argc; ++i) *command += " " + Quote(argv[i]);
}

// Runs `command` after echoing it, so a failing test's log shows how to reproduce the run.
inline bool RunEchoed(const std::string& command) {
  std::printf("running: %s\n", command.c_str());
  return std::system(command.c_str()) == 0;
}

}  // namespace gui_check
