#pragma once
/// Mask panel: causal, padding and custom cells, combined (a key is allowed only when every part
/// allows it). A grid of the effective mask where clicking a cell toggles it.
#include "panels/app_state.h"

namespace attnlab::app::MaskPanel {

void Draw(AppState& state);

}  // namespace attnlab::app::MaskPanel
