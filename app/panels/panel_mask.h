#pragma once
/// Mask panel: causal, padding and custom cells, combined (a key is allowed only when every part
/// allows it). A grid of the effective mask where clicking a cell toggles it.
#include <memory>

#include "panels/panel_contents.h"

namespace attnlab::app::panel_mask {

/// The panel, with what it keeps between frames.
std::unique_ptr<PanelContents> Make();

}  // namespace attnlab::app::panel_mask
