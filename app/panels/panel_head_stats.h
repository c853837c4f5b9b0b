#pragma once
/// Head statistics panel: what each head does, in numbers. Heads ranked by one measure of their
/// weights (mean over the queries, as bars in each head's colour: entropy, largest weight, keys
/// holding 90% of the mass, weight on the first key, mean distance), and the selected head's
/// measures query by query. The numbers are the core's (attnlab/head_stats.h), as
/// `attnlab-cli compute` prints them.
#include <memory>

#include "panels/panel_contents.h"

namespace attnlab::app::panel_head_stats {

/// The panel, with what it keeps between frames.
std::unique_ptr<PanelContents> Make();

}  // namespace attnlab::app::panel_head_stats
