#pragma once
/// Sensitivity panel: which input moves this output? Pick one cell of the output (or of a head's
/// weights, scores or output; a pinned cell of those stages is taken as the target) and see the
/// exact gradient of that number with respect to every input and weight (attnlab/sensitivity.h:
/// backpropagation through the whole computation), as diverging heatmaps laid out like the
/// Inputs, with the cells that move it most listed first. A click on a listed cell sweeps it.
#include <memory>

#include "panels/panel_contents.h"

namespace attnlab::app::panel_sensitivity {

/// The panel, with what it keeps between frames.
std::unique_ptr<PanelContents> Make();

}  // namespace attnlab::app::panel_sensitivity
