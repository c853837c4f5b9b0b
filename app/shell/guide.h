#pragma once
/// The ways to the guide (the Help panel's docs/GUIDE.md): F1 and the Help menu (actions.cpp), and
/// the first-run hint at the right end of the menu bar that points to them.
#include "panels/app_state.h"
#include "panels/panels.h"

namespace attnlab::app {

/// Brings the Help panel to the front at the top of its guide; the first-run hint has done its
/// job and is dismissed for good.
void ShowGuide(AppState& state, PanelRegistry& panels);

/// "New here? Press F1 ..." at the right end of the main menu bar while the hint is due (call
/// inside BeginMainMenuBar). Clicking it opens the guide; its x dismisses it. Shortened, or left
/// out, when the bar has no room (lecture mode on a small screen).
void DrawFirstRunHint(AppState& state, PanelRegistry& panels);

}  // namespace attnlab::app
