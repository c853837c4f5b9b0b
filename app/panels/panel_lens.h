#pragma once
/// Logit lens: what the open model would predict if it stopped after each layer (issue 39,
/// models/logit_lens.h), on the Model panel's text. A table of layers x positions with each cell's
/// most likely token written in and its probability as the colour; a chosen token (typed, or a click
/// on a cell) as a heatmap of its probability after every layer at every position. Computed off the
/// UI thread (session/instrument_runs.h), again when the text or the token changes.
#include <memory>

#include "panels/panel_contents.h"

namespace attnlab::app::panel_lens {

std::unique_ptr<PanelContents> Make();

}  // namespace attnlab::app::panel_lens
