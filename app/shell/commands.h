#pragma once
/// View commands, run by the action table (actions.h) and at start-up.
#include "panels/app_state.h"
#include "panels/panels.h"

namespace attnlab::app {

/// Lecture mode: projector fonts and contrast; the Help panel steps aside (F1 brings it back).
void SetLectureMode(AppState& state, PanelRegistry& panels, bool on);
void ToggleLectureMode(AppState& state, PanelRegistry& panels);

}  // namespace attnlab::app
