#include "shell/commands.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <utility>

#include "attnlab/scenario_io.h"
#include "shell/dialogs.h"
#include "panels/panels.h"

namespace attnlab::app {

LoadedScenario LoadDocument(const AppState& state, const std::string& path) {
  return AsDocument(state, path, LoadAndValidate(path));
}

LoadedScenario AsDocument(const AppState& state, const std::string& path,
                          attnlab::Scenario scenario) {
  namespace fs = std::filesystem;
  LoadedScenario loaded{std::move(scenario), path, fs::path(path).filename().string(), false};
  // A preset opened by its path is still a preset: Save must never write into the library.
  std::error_code ec;
  for (const PresetInfo& p : state.presets)
    if (fs::equivalent(p.path, path, ec)) {
      loaded.is_preset = true;
      loaded.name = p.stem;
    }
  return loaded;
}

bool OpenDocument(AppState& state, const std::string& path) {
  try {
    const LoadedScenario loaded = LoadDocument(state, path);
    state.document.Open(loaded);
    state.document.status = "opened " + path;
    return true;
  } catch (const std::exception& e) {
    state.document.status = e.what();
    std::fprintf(stderr, "attnlab: %s\n", e.what());
    return false;
  }
}

bool OpenPreset(AppState& state, const PresetInfo& preset) {
  try {
    state.document.Open({LoadAndValidate(preset.path), preset.path, preset.stem, true});
    state.document.status = "preset " + preset.stem;
    return true;
  } catch (const std::exception& e) {
    state.document.status = preset.stem + ": " + e.what();
    return false;
  }
}

std::string SavePath(const AppState& state) {
  if (!state.document.path.empty()) return state.document.path;
  const char* home = std::getenv("HOME");
  std::string name = state.document.name.empty() ? "scenario" : state.document.name;
  if (name.size() < 5 || name.compare(name.size() - 5, 5, ".json") != 0) name += ".json";
  return (std::filesystem::path(home ? home : ".") / ("attnlab-" + name)).string();
}

bool SaveDocument(AppState& state) {
  const std::string path = SavePath(state);
  try {
    attnlab::save_scenario(state.document.GetScenario(), path);  // temp file + rename: never half-written
    state.document.MarkSaved(path, state.document.Version());
    state.document.name = std::filesystem::path(path).filename().string();
    state.document.status = "saved " + path;
    return true;
  } catch (const std::exception& e) {
    state.document.status = std::string("not saved: ") + e.what();
    return false;
  }
}

void SetLectureMode(AppState& state, PanelRegistry& panels, bool on) {
  if (state.ui.lecture_mode == on) return;
  state.ui.lecture_mode = on;
  state.ui.reset_layout = true;  // the menu bar height and the columns change with the font
  for (Panel& panel : panels.List()) {
    if (std::string(panel.name) != "Help") continue;
    if (on) state.ui.help_open_before_lecture = panel.open;
    panel.open = on ? false : state.ui.help_open_before_lecture;
  }
  for (Panel& panel : panels.List()) {
    if (!panel.hide_in_lecture) continue;
    if (on) panel.open_before_lecture = panel.open;
    panel.open = on ? false : panel.open_before_lecture;
  }
}

void ToggleLectureMode(AppState& state, PanelRegistry& panels) {
  SetLectureMode(state, panels, !state.ui.lecture_mode);
}

void SelectHead(AppState& state, int head) {
  if (head >= 0 && head < state.document.HeadCount()) state.ui.selected_head = head;
}

void HandleShortcuts(AppState& state, PanelRegistry& panels) {
  const ImGuiIO& io = ImGui::GetIO();
  const bool ctrl = io.KeyCtrl;
  // Text fields keep their own Ctrl+Z and digits.
  const bool typing = io.WantTextInput;
  if (DocumentDialogs* dialogs = Dialogs(state)) dialogs->HandleShortcuts(state);  // Ctrl+O/S, F12
  if (ctrl && ImGui::IsKeyPressed(GLFW_KEY_Q, false)) state.ui.quit_requested = true;
  if (ctrl && ImGui::IsKeyPressed(GLFW_KEY_L, false)) ToggleLectureMode(state, panels);
  if (ImGui::IsKeyPressed(GLFW_KEY_F11, false)) ToggleLectureMode(state, panels);
  if (ImGui::IsKeyPressed(GLFW_KEY_F1, false)) panels.ShowPanel(state, "Help");
  // While "Opening..." or "Saving..." is up the document cannot change: no undo either.
  if (typing || (state.dialogs && state.dialogs->Blocking())) return;
  if (ctrl && ImGui::IsKeyPressed(GLFW_KEY_Z)) {
    if (io.KeyShift)
      state.document.Redo();
    else
      state.document.Undo();
  }
  if (ctrl && ImGui::IsKeyPressed(GLFW_KEY_Y)) state.document.Redo();
  if (!ctrl) {
    for (int k = 0; k < 9; ++k)
      if (ImGui::IsKeyPressed(GLFW_KEY_1 + k, false)) SelectHead(state, k);
    const int h = state.ui.selected_head;
    if (ImGui::IsKeyPressed(GLFW_KEY_RIGHT_BRACKET)) SelectHead(state, std::min(h + 1, state.document.HeadCount() - 1));
    if (ImGui::IsKeyPressed(GLFW_KEY_LEFT_BRACKET)) SelectHead(state, std::max(h - 1, 0));
  }
}

std::vector<HelpPanel::ShortcutRow> ShortcutRows() {
  // Keep in sync with HandleShortcuts() and README.md.
  return {
      {"Ctrl+O", "Open a scenario file"},
      {"Ctrl+S", "Save (a preset asks where to keep a copy)"},
      {"Ctrl+Shift+S", "Save as"},
      {"Ctrl+Z", "Undo"},
      {"Ctrl+Shift+Z", "Redo"},
      {"Ctrl+Y", "Redo"},
      {"1 ... 9", "Select head"},
      {"[  ]", "Previous / next head"},
      {"Ctrl+L", "Lecture mode"},
      {"F11", "Lecture mode"},
      {"F1", "Show this help"},
      {"F12", "Screenshot of the window"},
      {"Shift+F12", "Screenshot at 2x"},
      {"Right-click", "Export a heatmap (PNG, SVG, CSV, copy)"},
      {"Ctrl+Q", "Quit"},
  };
}

}  // namespace attnlab::app
