#pragma once
/// Inspector panel: the arithmetic of the hovered (or pinned, by clicking) heatmap cell, written
/// out with the actual numbers in the scenario's layout's notation (see inspector_math.h).
#include <memory>

#include "panels/panel_contents.h"

namespace attnlab::app::panel_inspector {

/// The panel, with what it keeps between frames.
std::unique_ptr<PanelContents> Make();

}  // namespace attnlab::app::panel_inspector
