#pragma once
/// Scenario panel: preset picker with the preset's notes, layout (rows/columns), number of heads,
/// scale (1/sqrt(d_k), none, temperature), colormap, and the shapes that follow from them.
#include "panels/app_state.h"

namespace attnlab::app::ScenarioPanel {

void Draw(AppState& state);

}  // namespace attnlab::app::ScenarioPanel
