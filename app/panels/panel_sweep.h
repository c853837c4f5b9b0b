#pragma once
/// Sweep panel: one number of the scenario (the scale, a matrix cell, an ALiBi slope, RoPE's base)
/// played from one value to another while every stage follows, with each head's mean entropy drawn
/// against the value (against the temperature T = 1/scale for the scale: the 1/sqrt(d_k) lesson).
/// Opened by "Sweep" beside the scale and by a right-click on a cell of the Inputs.
#include <memory>

#include "panels/panel_contents.h"

namespace attnlab::app::panel_sweep {

/// The panel, with what it keeps between frames.
std::unique_ptr<PanelContents> Make();

}  // namespace attnlab::app::panel_sweep
