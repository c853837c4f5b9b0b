#pragma once
/// The arithmetic behind one cell of the Tiles view (GUI-free): one step of FlashAttention's online
/// softmax (attnlab/flash.h) for one query, written out with the scenario's numbers and token
/// labels: the state before the tile (or "nothing seen yet" at a row block's first tile), the
/// tile's max, the new m, the rescale factor alpha and what it does to l and O.
#include <cstdint>

#include "attnlab/flash.h"
#include "attnlab/scenario.h"
#include "attnlab/trace.h"
#include "view/hovered_cell.h"
#include "view/inspector_math.h"

namespace attnlab::app {

/// The loop a Tiles cell is explained from, run again only when the trace's version, the head or
/// the block sizes change: hovering cell after cell of one run looks each step up in the same run.
class TileRuns {
 public:
  /// The run of head `head` (0-based) in `block_rows` x `block_cols` blocks on `trace`, whose
  /// numbers `trace_version` identifies; null when flash_attention() refuses them.
  const attnlab::FlashRun* Get(const attnlab::Trace& trace, std::uint64_t trace_version, int head, int block_rows,
                               int block_cols);
  /// How many times the loop ran: what hovering has cost.
  int Runs() const { return runs_; }

 private:
  std::uint64_t version_ = ~std::uint64_t{0};
  int head_ = -1, block_rows_ = 0, block_cols_ = 0, runs_ = 0;
  bool ok_ = false;
  attnlab::FlashRun run_;
};

/// Explains `cell` (its `tile` set, `head` the query head) on `trace`, every number with at most
/// `decimals` decimals, from `run`, the loop on `trace` of the cell's head and block sizes. Not
/// valid for another run's cell, nor for a tile, query or column outside the run.
Explanation ExplainTile(const attnlab::Scenario& s, const attnlab::Trace& trace, const attnlab::FlashRun& run,
                        const HoveredCell& cell, int decimals);

}  // namespace attnlab::app
