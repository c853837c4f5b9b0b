#pragma once
/// Sizes (a tab of the Inputs panel): d_model (the width of X), d_z, d_k and d_v, and "Randomize"
/// with a seed and a distribution. The resizes are the core's (attnlab/edits.h): each matrix keeps
/// its overlapping block, each head's band its own columns; new entries are zeros or random values.
#include "attnlab/random.h"
#include "panels/app_state.h"

namespace attnlab::app::inputs_dimensions {

/// What the Sizes tab keeps between frames (its owner, the Inputs panel, keeps it): how grown
/// matrices are filled and the settings of "Randomize".
struct State {
  attnlab::RandomSpec random;  ///< distribution and seed
  bool grow_random = false;    ///< pad grown matrices with random values, not zeros
};

void Draw(AppState& state, State& self);

}  // namespace attnlab::app::inputs_dimensions
