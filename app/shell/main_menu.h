#pragma once
/// The menu bar (File, Edit, View, Help), drawn from the action table, and the status bar along
/// the bottom of the window.
#include "panels/app_state.h"
#include "shell/actions.h"

namespace attnlab::app {

void DrawMainMenuBar(ActionContext& ctx, const ActionTable& actions);
void DrawStatusBar(AppState& state);

}  // namespace attnlab::app
