#pragma once
/// Sizes (a tab of the Inputs panel): d_model (the width of X), d_z, d_k and d_v, and "Randomize"
/// with a seed and a distribution. Resizing keeps the overlapping block of every matrix, head by
/// head for the full W_q / W_k / W_v (each head's band keeps its own columns), and fills new entries
/// with zeros or random values. The resize operations are plain functions on a Scenario.
#include "panels/app_state.h"
#include "attnlab/random.h"

namespace attnlab::app::DimensionsPanel {

/// How new entries are filled when a matrix grows.
struct Fill {
  bool random = false;
  attnlab::RandomSpec spec;  ///< used when `random`
};

/// Width of X (d_x = d_model): X, the input side of W_q (and of W_k, W_v in self-attention), and
/// W_o / b_o's output side when d_out was d_model. An omitted W becomes an explicit identity first.
void SetModelWidth(attnlab::Scenario& s, int d_x, const Fill& fill);
/// Width of Z (cross-attention): Z and the input side of W_k, W_v.
void SetContextWidth(attnlab::Scenario& s, int d_z, const Fill& fill);
/// Per-head query/key width: every head's band of W_q, W_k, b_q, b_k.
void SetKeyWidth(attnlab::Scenario& s, int d_k, const Fill& fill);
/// Per-head value width: every head's band of W_v, b_v and of W_o's input side.
void SetValueWidth(attnlab::Scenario& s, int d_v, const Fill& fill);

void Draw(AppState& state);

}  // namespace attnlab::app::DimensionsPanel
