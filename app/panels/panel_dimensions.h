#pragma once
/// Sizes (a tab of the Inputs panel): d_model (the width of X), d_z, d_k and d_v, and "Randomize"
/// with a seed and a distribution. The resizes are the core's (attnlab/edits.h): each matrix keeps
/// its overlapping block, each head's band its own columns; new entries are zeros or random values.
#include "panels/app_state.h"

namespace attnlab::app::DimensionsPanel {

void Draw(AppState& state);

}  // namespace attnlab::app::DimensionsPanel
