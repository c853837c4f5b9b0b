#pragma once
/// Where the window's own windows are, as ImGui placed them this frame: the menu bar, the status
/// bar and every tile of the arrangement. Written next to a screenshot (OUT.png.json,
/// "window_arrangement") and, with --layout-log FILE, whenever it changes during an interactive
/// run, with the frame's heatmaps and the presenter's step, so that window tests can check the
/// arrangement and the pixels after real key presses and resizes.
#include <string>

#include <nlohmann/json.hpp>

#include "panels/app_state.h"
#include "instruments/layout_dump.h"
#include "panels/panels.h"

namespace attnlab::app {

/// {"display": [w, h], "font_size", "line_height", "scale", "arrangement", "lecture", "presenting",
///  "presenter_step", "presenter_revealed", "menu_bar": [x, y, w, h], "status_bar": [...],
///  "windows": [{"name", "panels", "front", "box"}]}.
/// Boxes are read back from ImGui's windows, not from the arrangement that asked for them.
nlohmann::json WindowArrangement(const AppState& state, const PanelRegistry& panels);

class LayoutLog {
 public:
  explicit LayoutLog(std::string path) : path_(std::move(path)) {}
  /// Told where each heatmap of the frame drew (HeatmapContext::on_drawn).
  void Add(const HeatmapPlacement& placement) { heatmaps_.push_back(PlacementJson(placement)); }
  /// Rewrites the file when the frame's arrangement or heatmaps differ from the last written.
  void AfterDraw(const AppState& state, const PanelRegistry& panels);

 private:
  std::string path_;
  std::string last_;
  nlohmann::json heatmaps_ = nlohmann::json::array();
};

}  // namespace attnlab::app
