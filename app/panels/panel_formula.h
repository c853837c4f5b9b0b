#pragma once
/// Formula strip: one line above the Pipeline with the equation of the hovered (or pinned) stage in
/// the scenario's layout's notation, or the whole head's equation when nothing is hovered.
#include "panels/app_state.h"

namespace attnlab::app::FormulaPanel {

void Draw(AppState& state);

}  // namespace attnlab::app::FormulaPanel
