#pragma once
/// A cell of one stage's matrix, e.g. the one under the mouse (GUI-free). Stages are core's
/// (attnlab/stage.h).
#include "attnlab/stage.h"

namespace attnlab::app {

/// Which number of FlashAttention's loop state (attnlab/flash.h) a cell of the Tiles view is: a
/// score of the current tile, or the block's m, l, alpha or unnormalised O after the tile.
enum class TileValue { none, score, m, l, alpha, O };

/// A cell of the Tiles view: the number `what` after tile `tile` (0-based, in loop order) of the
/// Br x Bc run; `query` is 0-based over the whole sequence and `col` a key (score) or O's column.
struct TileCell {
  TileValue what = TileValue::none;
  int tile = -1, block_rows = 0, block_cols = 0;
  int query = -1, col = -1;
};

struct HoveredCell {
  HoveredCell() = default;
  HoveredCell(StageId s, int h, int r, int c) : stage(s), head(h), row(r), col(c) {}

  StageId stage = StageId::none;
  int head = -1, row = -1, col = -1;  ///< row/col in the matrix as displayed (current layout)
  TileCell tile;                      ///< set by the Tiles view only (stage none for m, l, alpha, O)
};

/// Whether `cell` names anything to explain: a stage's cell or a cell of the Tiles view.
inline bool Names(const HoveredCell& cell) {
  return cell.stage != StageId::none || cell.tile.what != TileValue::none;
}

}  // namespace attnlab::app
