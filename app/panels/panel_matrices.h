#pragma once
/// The Inputs panel: tabs for the tokens (TokensPanel) with their embeddings X (and Z), the projections
/// W_q, W_k, W_v with their biases, the output projection W_o / b_o, and the sizes
/// (DimensionsPanel). Matrices are shown as stored, i.e. in the scenario's layout; the full W's show
/// the band each head takes in that head's colour, per-head weights are edited head by head.
#include <memory>
#include <string>

#include "panels/app_state.h"
#include "panels/panel_contents.h"
#include "panels/panels.h"

namespace attnlab::app::MatricesPanel {

/// The panel, with what it keeps between frames.
std::unique_ptr<PanelContents> Make();
/// Brings the Inputs panel to the front, and in it the tab with the editor of `source` ("X",
/// "W_q", "heads[1].b_k", ...), as a user clicking their tabs would.
void ShowEditor(AppState& state, PanelRegistry& panels, const std::string& source);

}  // namespace attnlab::app::MatricesPanel
