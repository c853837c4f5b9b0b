#pragma once
/// Heads overview: every head's attention weights side by side (small multiples, one shared
/// colour scale); clicking one selects it for the Pipeline panel.
#include "panels/app_state.h"

namespace attnlab::app::HeadsPanel {

void Draw(AppState& state);

}  // namespace attnlab::app::HeadsPanel
