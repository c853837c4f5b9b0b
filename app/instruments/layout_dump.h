#pragma once
/// A record of where each heatmap drew its cells in one frame, written next to a screenshot as
/// `OUT.png.json` so that pixel tests know where to look (they compute the colours themselves).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "panels/app_state.h"
#include "widgets/control_marks.h"
#include "widgets/heatmap.h"

namespace attnlab::app {

/// One heatmap's placement as the dumps write it.
nlohmann::json PlacementJson(const HeatmapPlacement& placement);

class LayoutDump {
 public:
  void Add(HeatmapPlacement placement) { placements_.push_back(std::move(placement)); }
  void AddControl(ControlMark mark) { controls_.push_back(std::move(mark)); }
  void Clear() {
    placements_.clear();
    controls_.clear();
  }
  /// Where the window's own windows were (layout_log.h), written as "window_arrangement".
  void SetArrangement(nlohmann::json arrangement) { arrangement_ = std::move(arrangement); }
  /// Writes JSON: framebuffer size and scale, selected head, colormap, masked colour, heatmaps,
  /// named controls.
  /// Returns false with `error` set when the file cannot be written.
  bool Write(const std::string& path, int fb_width, int fb_height, float fb_scale,
             const AppState& state, std::string* error) const;

 private:
  std::vector<HeatmapPlacement> placements_;
  nlohmann::json arrangement_;
  std::vector<ControlMark> controls_;
};

}  // namespace attnlab::app
