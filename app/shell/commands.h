#pragma once
/// Document and view commands, run by the action table (actions.h) and at start-up.
#include <string>

#include "panels/app_state.h"
#include "panels/panels.h"

namespace attnlab::app {

/// Opens a scenario file. On failure the current document stays and the error goes to the status
/// bar (and stderr). Returns whether the file was opened.
bool OpenDocument(AppState& state, const std::string& path);
/// Reads and validates `path`; a file of the preset library opens as a (read-only) preset.
/// Throws ScenarioError.
LoadedScenario LoadDocument(const AppState& state, const std::string& path);
/// LoadDocument for a `scenario` already read and validated from `path` (e.g. off the UI thread).
LoadedScenario AsDocument(const AppState& state, const std::string& path,
                          attnlab::Scenario scenario);
/// Opens a preset read-only: Save writes a copy, never over the preset.
bool OpenPreset(AppState& state, const PresetInfo& preset);
/// Saves atomically to the document's path, or to a copy in the home directory for presets.
bool SaveDocument(AppState& state);
/// Where Save writes for the current document.
std::string SavePath(const AppState& state);

/// Lecture mode: projector fonts and contrast; the Help panel steps aside (F1 brings it back).
void SetLectureMode(AppState& state, PanelRegistry& panels, bool on);
void ToggleLectureMode(AppState& state, PanelRegistry& panels);
void SelectHead(AppState& state, int head);

}  // namespace attnlab::app
