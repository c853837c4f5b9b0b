#pragma once
/// Heads overview: every head's attention weights side by side (small multiples, one shared
/// colour scale); clicking one selects it for the Pipeline panel.
#include <memory>

#include "panels/panel_contents.h"

namespace attnlab::app::panel_heads {

/// The panel, with what it keeps between frames.
std::unique_ptr<PanelContents> Make();

}  // namespace attnlab::app::panel_heads
