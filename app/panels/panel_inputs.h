#pragma once
/// The Inputs panel: tabs for the tokens (inputs_tokens.h) with their embeddings X (and Z), the projections
/// W_q, W_k, W_v with their biases, the output projection W_o / b_o, and the sizes
/// (inputs_dimensions.h). Matrices are shown as stored, i.e. in the scenario's layout; the full W's show
/// the band each head takes in that head's colour, per-head weights are edited head by head.
/// Accepts an EditorRequest (panel_requests.h): that editor's tab in front.
#include <memory>

#include "panels/panel_contents.h"

namespace attnlab::app::panel_inputs {

/// The panel, with what it keeps between frames.
std::unique_ptr<PanelContents> Make();

}  // namespace attnlab::app::panel_inputs
