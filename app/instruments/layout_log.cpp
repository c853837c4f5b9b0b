#include "instruments/layout_log.h"

#include <imgui.h>
#include <imgui_internal.h>  // the windows' rectangles as ImGui placed them

#include <cstdio>
#include <exception>

#include "attnlab/scenario_io.h"
#include "instruments/model_script.h"

namespace attnlab::app {
namespace {

// [x, y, w, h] of a drawn top-level window, or null when it was not drawn this frame.
nlohmann::json BoxOf(const char* name) {
  const ImGuiWindow* w = ImGui::FindWindowByName(name);
  if (!w || !w->Active || w->Hidden) return nullptr;
  return {w->Pos.x, w->Pos.y, w->Size.x, w->Size.y};
}

}  // namespace

nlohmann::json WindowArrangement(const AppState& state, const PanelRegistry& panels) {
  const ImGuiIO& io = ImGui::GetIO();
  nlohmann::json doc = {{"display", {io.DisplaySize.x, io.DisplaySize.y}},
                        {"font_size", ImGui::GetFontSize()},
                        {"line_height", ImGui::GetTextLineHeightWithSpacing()},  // a line's pitch
                        {"arrangement", ArrangementName(panels.LastArrangement())},
                        {"lecture", state.ui.lecture_mode},
                        {"presenting", state.ui.presenting},
                        {"presenter_step", state.ui.presenter_step},
                        {"presenter_revealed", state.ui.presenter_revealed},
                        {"menu_bar", BoxOf("##MainMenuBar")},
                        {"status_bar", BoxOf("##status")}};
  nlohmann::json windows = nlohmann::json::array();
  for (const PlacedWindow& placed : panels.LastPlacement())
    windows.push_back({{"name", placed.window}, {"panels", placed.panels}, {"front", placed.front},
                       {"box", BoxOf(placed.window.c_str())}});
  doc["windows"] = std::move(windows);
  return doc;
}

void LayoutLog::AfterDraw(const AppState& state, const PanelRegistry& panels) {
  nlohmann::json doc = WindowArrangement(state, panels);
  doc["heatmaps"] = std::move(heatmaps_);
  doc["masked_rgb"] = {kMaskedFill.r, kMaskedFill.g, kMaskedFill.b};
  doc["hidden_rgb"] = {kHiddenFill.r, kHiddenFill.g, kHiddenFill.b};
  doc["model"] = ModelJson(state);
  heatmaps_ = nlohmann::json::array();
  const std::string text = doc.dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text == last_) return;
  try {
    attnlab::write_file_atomically(path_, text);
    last_ = text;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnlab: --layout-log: %s\n", e.what());
  }
}

}  // namespace attnlab::app
