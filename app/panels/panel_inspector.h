#pragma once
/// Inspector panel: the arithmetic of the hovered (or pinned, by clicking) heatmap cell, written
/// out with the actual numbers in the scenario's layout's notation (see inspector_math.h).
#include "panels/app_state.h"

namespace attnlab::app::InspectorPanel {

void Draw(AppState& state);

}  // namespace attnlab::app::InspectorPanel
