#pragma once
/// Formula strip: one line above the Pipeline with the equation of the hovered (or pinned) stage in
/// the scenario's layout's notation, or the whole head's equation when nothing is hovered.
#include <memory>

#include "panels/panel_contents.h"

namespace attnlab::app::panel_formula {

/// The panel, with what it keeps between frames.
std::unique_ptr<PanelContents> Make();

}  // namespace attnlab::app::panel_formula
