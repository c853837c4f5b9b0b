#pragma once
/// A record of where each heatmap drew its cells in one frame, written next to a screenshot as
/// `OUT.png.json` so that pixel tests know where to look (they compute the colours themselves).
#include <string>
#include <vector>

#include "panels/app_state.h"

namespace attnlab::app {

struct HeatmapPlacement {
  std::string window;  ///< ImGui window the heatmap is in
  std::string id;
  Stage stage = Stage::None;
  int head = -1;
  int rows = 0, cols = 0;
  float x0 = 0, y0 = 0;  ///< top-left of cell (0, 0), in window coordinates (pixels / fb scale)
  float cell = 0;        ///< pitch between cells
  float gap = 0;         ///< background gap at the right/bottom of each cell
  float clip[4] = {0, 0, 0, 0};  ///< visible part: x0, y0, x1, y1
  bool values_drawn = false;     ///< numbers printed over the cells
  bool texture = false;          ///< drawn as a texture instead of rectangles
  /// "none": every cell has its own pixels. Else (cell < 1) texel x of texels_w covers columns
  /// [x * cols / texels_w, (x + 1) * cols / texels_w), rows likewise, drawn one texel a pixel in
  /// the colour of the block's "max" (or "max_abs": farthest from 0) unmasked value.
  std::string pooling = "none";
  int texels_w = 0, texels_h = 0;
  std::string colormap;
  double lo = 0, hi = 1;
};

class LayoutDump {
 public:
  void Add(HeatmapPlacement placement) { placements_.push_back(std::move(placement)); }
  void Clear() { placements_.clear(); }
  /// Writes JSON: framebuffer size and scale, selected head, colormap, masked colour, heatmaps.
  /// Returns false with `error` set when the file cannot be written.
  bool Write(const std::string& path, int fb_width, int fb_height, float fb_scale,
             const AppState& state, std::string* error) const;

 private:
  std::vector<HeatmapPlacement> placements_;
};

}  // namespace attnlab::app
