#pragma once
/// The arithmetic behind one cell of the Tiles view (GUI-free): one step of FlashAttention's online
/// softmax (attnlab/flash.h) for one query, written out with the scenario's numbers and token
/// labels: the state before the tile (or "nothing seen yet" at a row block's first tile), the
/// tile's max, the new m, the rescale factor alpha and what it does to l and O.
#include "attnlab/scenario.h"
#include "attnlab/trace.h"
#include "view/hovered_cell.h"
#include "view/inspector_math.h"

namespace attnlab::app {

/// Explains `cell` (its `tile` set, `head` the query head) on `trace`, every number with at most
/// `decimals` decimals. Runs the loop again (flash_attention) with the cell's block sizes; not
/// valid for a tile, query or column outside that run.
Explanation ExplainTile(const attnlab::Scenario& s, const attnlab::Trace& trace, const HoveredCell& cell,
                        int decimals);

}  // namespace attnlab::app
