#pragma once
/// FlashAttention-2's forward loop (Dao 2023, Algorithm 1) for one query head of a computed trace:
/// the online softmax tile by tile, every tile's state kept so that a window or a lesson can step
/// through it. The scores of a tile are the trace's own masked stage (scaled, ALiBi's bias, the
/// mask), so the finished output equals the head's output in the trace.
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/matrix.h"
#include "attnlab/trace.h"

namespace attnlab {

/// One tile of the loop: queries [row0, row0 + rows) against keys [col0, col0 + cols), and the
/// state of its query block after it. A skipped tile (all its scores masked) changes nothing:
/// m, l and O are carried over and alpha is what the recurrence gives for a tile of -infinity
/// (1 for a row with a finite m, 0 for a row that has seen no visible key yet).
struct FlashTile {
  int q_block = 0, k_block = 0;
  Eigen::Index row0 = 0, rows = 0, col0 = 0, cols = 0;
  bool skipped = false;
  Vector m;      ///< rows: the running maximum, -infinity before the row's first visible key
  Vector l;      ///< rows: the running sum of exp(S - m)
  Vector alpha;  ///< rows: exp(m_before - m), the factor the tile multiplied l and O by
  Matrix O;      ///< rows by d_v: the unnormalised output, queries as rows
};

/// Elements (numbers) moved between main memory and the chip, in the accounting of the
/// FlashAttention paper (docs/FORMAT.md, "attnlab-cli flash"): the mask and the bias are
/// generated from indices, not read.
struct FlashMemory {
  long long tiled_read = 0, tiled_written = 0;        ///< this tiling
  long long standard_read = 0, standard_written = 0;  ///< S and A materialised, n_x by n_z each
};

struct FlashRun {
  int head = 0;                ///< 0-based query head
  int block_rows = 0;          ///< Br: queries per block
  int block_cols = 0;          ///< Bc: keys per block
  int q_blocks = 0, k_blocks = 0;
  Layout layout = Layout::rows;  ///< the trace's layout, in which the JSON writes O and output
  std::vector<FlashTile> tiles;  ///< in loop order: query block outer, key block inner
  int skipped = 0;               ///< tiles whose scores are all masked
  Matrix output;                 ///< n_x by d_v, queries as rows: O / l at the end of each row block
  FlashMemory memory;
};

/// The most tiles one run keeps (each holds its block's m, l, alpha and O).
constexpr long long kMaxFlashTiles = 1 << 20;

/// Runs the loop for query head `head` (0-based) of a computed trace with Br x Bc blocks. Blocks
/// larger than the sequence are one block. A query whose row the trace marks non-finite gets the
/// zeros compute() gives it; a query that sees no key gets zeros (l = 0).
/// Throws std::invalid_argument for a block size below 1, a head out of range, or blocks so small
/// that the run would hold more than kMaxFlashTiles tiles.
FlashRun flash_attention(const Trace& t, int head, int block_rows, int block_cols);

/// One query's step through one tile of a run, what a sentence about its rescale needs: the state
/// the previous tile of its query block left (nothing seen yet at the block's first tile, or while
/// every key so far was masked), the tile's largest score for it, the new m and alpha.
struct FlashRowStep {
  double m_before = -std::numeric_limits<double>::infinity();  ///< -infinity: nothing seen yet
  double l_before = 0;
  Vector o_before;  ///< d_v: the unnormalised output before the tile, zeros while nothing is seen
  double tile_max = -std::numeric_limits<double>::infinity();  ///< -infinity: the tile masks every key
  double m = -std::numeric_limits<double>::infinity();         ///< after the tile: max(m_before, tile_max)
  double alpha = 0;  ///< exp(m_before - m): 0 while nothing is seen, 1 when m stays

  bool nothing_seen() const { return m_before == -std::numeric_limits<double>::infinity(); }
};

/// Query `query` (0-based in the sequence) through tile `tile` (0-based, loop order) of `run`, with
/// the scores of `t`, the trace the run was computed from (its layout: queries as rows or columns).
/// Throws std::out_of_range for a tile outside the run or a query outside the tile's block.
FlashRowStep flash_row_step(const FlashRun& run, const Trace& t, std::size_t tile, Eigen::Index query);

/// {"head" (1-based), "block", "tiles", "output", "memory"}, -infinity as null, O and output in
/// the run's layout (docs/FORMAT.md).
nlohmann::ordered_json flash_to_json(const FlashRun& run);
/// The loop as a text table: one line per query of each tile (m, l, alpha, O after it; one line for a
/// skipped tile), then the output and the memory line.
std::string flash_to_text(const FlashRun& run, int precision);

/// "tiled: 56 elements read, 16 written; standard: 248 read, 144 written".
std::string flash_memory_line(const FlashMemory& m);

}  // namespace attnlab
