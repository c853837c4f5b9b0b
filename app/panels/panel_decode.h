#pragma once
/// Decode panel: the KV cache token by token (core/include/attnlab/decode.h). A timeline (token t of
/// n: the arrow keys while the panel is hovered or focused, a slider, play), each key/value head's
/// cache as K and V heatmaps growing by one column a step with evicted columns hatched, the new
/// query's weights over the cache as one row, the same row outlined in the full weights map, a line
/// saying the decoded row equals the full computation, and the cache's size in bytes.
#include <memory>

#include "panels/panel_contents.h"

namespace attnlab::app::panel_decode {

/// The panel, with its timeline and the decoding it last computed.
std::unique_ptr<PanelContents> Make();

}  // namespace attnlab::app::panel_decode
