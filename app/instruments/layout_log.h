#pragma once
/// Where the window's own windows are, as ImGui placed them this frame: the menu bar, the status
/// bar and every tile of the arrangement. Written next to a screenshot (OUT.png.json, "window_arrangement")
/// and, with --layout-log FILE, whenever it changes during an interactive run, so that window
/// tests can check the arrangement after real key presses and resizes.
#include <string>

#include <nlohmann/json.hpp>

#include "panels/app_state.h"
#include "panels/panels.h"

namespace attnlab::app {

/// {"display": [w, h], "font_size", "scale", "arrangement", "lecture", "presenting",
///  "menu_bar": [x, y, w, h], "status_bar": [...], "windows": [{"name", "panels", "box"}]}.
/// Boxes are read back from ImGui's windows, not from the arrangement that asked for them.
nlohmann::json WindowArrangement(const AppState& state, const PanelRegistry& panels);

class LayoutLog {
 public:
  explicit LayoutLog(std::string path) : path_(std::move(path)) {}
  /// Rewrites the file when the arrangement differs from the last one written.
  void AfterDraw(const AppState& state, const PanelRegistry& panels);

 private:
  std::string path_;
  std::string last_;
};

}  // namespace attnlab::app
