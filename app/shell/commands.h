#pragma once
/// View commands, run by the action table (actions.h) and at start-up.
#include "panels/app_state.h"
#include "panels/panels.h"

namespace attnlab::app {

/// Lecture mode: projector fonts and contrast; the panels marked hide_in_lecture (Single query,
/// Help) step aside and come back as they were (F1 brings Help back meanwhile).
void SetLectureMode(AppState& state, PanelRegistry& panels, bool on);
void ToggleLectureMode(AppState& state, PanelRegistry& panels);

}  // namespace attnlab::app
