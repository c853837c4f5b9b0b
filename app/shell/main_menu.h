#pragma once
/// The menu bar (File, Edit, View, Help) and the status bar along the bottom of the window.
#include "panels/app_state.h"
#include "panels/panels.h"

namespace attnlab::app {

void DrawMainMenuBar(AppState& state, PanelRegistry& panels);
void DrawStatusBar(AppState& state);

}  // namespace attnlab::app
