#pragma once
/// Compare panel: before and after. "Keep as reference" snapshots the current trace; then, for
/// every stage of the selected head (and those shared by the heads), the current matrix, the
/// reference and their difference on a diverging map centred on 0, the largest change outlined
/// and written in the stage's title; unchanged stages fold into one line. Hovering any of the
/// three shows the cell in the Inspector with both values.
#include <memory>

#include "panels/panel_contents.h"

namespace attnlab::app::panel_compare {

/// The panel, with what it keeps between frames.
std::unique_ptr<PanelContents> Make();

}  // namespace attnlab::app::panel_compare
