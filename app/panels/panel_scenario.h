#pragma once
/// Scenario panel: preset picker with the preset's notes, layout (rows/columns), number of heads,
/// scale (1/sqrt(d_k), none, temperature), colormap, and the shapes that follow from them.
#include <memory>

#include "panels/panel_contents.h"

namespace attnlab::app::panel_scenario {

/// The panel, with what it keeps between frames.
std::unique_ptr<PanelContents> Make();

}  // namespace attnlab::app::panel_scenario
