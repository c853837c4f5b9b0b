#pragma once
/// Help panel: keyboard shortcuts and how to read the views.
#include "panels/app_state.h"

namespace attnlab::app::HelpPanel {

void Draw(AppState& state);

}  // namespace attnlab::app::HelpPanel
