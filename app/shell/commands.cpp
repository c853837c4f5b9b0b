#include "shell/commands.h"

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

}  // namespace attnlab::app
