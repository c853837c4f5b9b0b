#pragma once
/// The menu bar (File, Edit, View, Help) and the status bar along the bottom of the window.
#include "panels/app_state.h"

namespace attnlab::app {

void DrawMainMenuBar(AppState& state);
void DrawStatusBar(AppState& state);

}  // namespace attnlab::app
