#pragma once
/// Single query panel (Phuong & Hutter, Algorithm 3): one query token of the selected head against
/// every key: q, the score against each k_j, the weights as bars, and the weighted sum of v.
#include <memory>

#include "panels/panel_contents.h"

namespace attnlab::app::panel_single_query {

/// The panel, with what it keeps between frames.
std::unique_ptr<PanelContents> Make();

}  // namespace attnlab::app::panel_single_query
