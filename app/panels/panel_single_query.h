#pragma once
/// Single query panel (Phuong & Hutter, Algorithm 3): one query token of the selected head against
/// every key: q, the score against each k_j, the weights as bars, and the weighted sum of v.
#include "panels/app_state.h"

namespace attnlab::app::SingleQueryPanel {

void Draw(AppState& state);

}  // namespace attnlab::app::SingleQueryPanel
