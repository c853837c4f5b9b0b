#pragma once
/// Pipeline panel: the selected head's computation in order (Q, K, V; scores; scaled; masked;
/// weights; head output), then the concatenation of the heads, W_o and the final output.
#include "panels/app_state.h"

namespace attnlab::app::PipelinePanel {

void Draw(AppState& state);

}  // namespace attnlab::app::PipelinePanel
