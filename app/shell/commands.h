#pragma once
/// View commands, shared by the menu bar and the keyboard shortcuts.
#include <string>

#include "panels/app_state.h"

namespace attnlab::app {

/// Lecture mode: projector fonts and contrast; the Help panel steps aside (F1 brings it back).
void SetLectureMode(AppState& state, bool on);
void ToggleLectureMode(AppState& state);
void SelectHead(AppState& state, int head);

/// Global keyboard shortcuts (listed in the Help panel); call once per frame.
void HandleShortcuts(AppState& state);

}  // namespace attnlab::app
