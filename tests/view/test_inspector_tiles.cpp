// view/inspector_tiles.h against the core's loop (attnlab/flash.h): for every tile, query and
// quantity of the Tiles preset and of a random causal scenario in both layouts, the explanation's
// value is the run's number; a row block's first tile explains alpha = 0 as "nothing seen yet";
// a rescale writes exp(m before - m) with the numbers and ends on the number after the tile.
// TileRuns runs the loop once for every cell of one trace version, head and block size.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "attnlab/attention.h"
#include "attnlab/flash.h"
#include "attnlab/number_format.h"
#include "attnlab/scenario_io.h"
#include "test_support.h"
#include "view/inspector_tiles.h"
#include "view/stage_labels.h"

namespace test_inspector_tiles {

namespace {

using attnlab::app::Explanation;
using attnlab::app::HoveredCell;
using attnlab::app::TileValue;

constexpr int kDecimals = 4;

HoveredCell Cell(const attnlab::FlashRun& run, std::size_t tile, TileValue what, Eigen::Index query, Eigen::Index col) {
  HoveredCell c;
  c.head = run.head;
  c.tile = {what, int(tile), run.block_rows, run.block_cols, int(query), int(col)};
  return c;
}

double Expected(const attnlab::FlashTile& t, TileValue what, Eigen::Index i, Eigen::Index col) {
  switch (what) {
    case TileValue::m: return t.m(i);
    case TileValue::l: return t.l(i);
    case TileValue::alpha: return t.alpha(i);
    default: return t.O(i, col);
  }
}

bool Contains(const Explanation& e, const std::string& text) {
  for (const std::string& line : e.lines)
    if (line.find(text) != std::string::npos) return true;
  return false;
}

// Every quantity of every tile and query: the value, and the sentences a class reads.
void CheckRun(const attnlab::Scenario& s, int br, int bc) {
  const attnlab::Trace trace = attnlab::compute(s);
  const attnlab::FlashRun run = attnlab::flash_attention(trace, 0, br, bc);
  int rescales = 0, first = 0;
  for (std::size_t k = 0; k < run.tiles.size(); ++k) {
    const attnlab::FlashTile& t = run.tiles[k];
    for (Eigen::Index i = 0; i < t.rows; ++i) {
      for (TileValue what : {TileValue::m, TileValue::l, TileValue::alpha, TileValue::O}) {
        const Explanation e = attnlab::app::ExplainTile(s, trace, run, Cell(run, k, what, t.row0 + i, 0), kDecimals);
        ASSERT_TRUE(e.valid) << "tile " << k << " query " << t.row0 + i;
        const double want = Expected(t, what, i, 0);
        EXPECT_TRUE(e.value == want || std::abs(e.value - want) <= 1e-15) << e.title;
        const bool nothing_seen = t.k_block == 0 || !std::isfinite(run.tiles[k - 1].m(i));
        if (nothing_seen && what == TileValue::alpha && !t.skipped) {
          EXPECT_TRUE(Contains(e, "nothing seen yet")) << e.title;
          ++first;
        }
        if (!nothing_seen && !t.skipped && what == TileValue::O && t.m(i) != run.tiles[k - 1].m(i)) {
          const std::string factor = "exp(" + attnlab::app::Num(run.tiles[k - 1].m(i), kDecimals) + " \xE2\x88\x92 " +
                                     attnlab::app::Num(t.m(i), kDecimals) + ") = " + attnlab::app::Num(t.alpha(i), kDecimals);
          const std::string& sentence = e.lines.back();  // the rescale, last
          EXPECT_NE(sentence.find(factor), std::string::npos) << sentence << "\nwants " << factor;
          const std::string end = "= " + attnlab::app::Num(t.O(i, 0), kDecimals);
          EXPECT_EQ(sentence.substr(sentence.size() - end.size()), end) << sentence;
          ++rescales;
        }
      }
    }
  }
  EXPECT_GT(first, 0);
  EXPECT_GT(rescales, 0);
  std::printf("%d first tiles explained, %d rescales written out (blocks %dx%d)\n", first, rescales, br, bc);
}

}  // namespace

TEST(InspectorTiles, EveryStateOfThePreset) {
  const std::filesystem::path preset =
      std::filesystem::path(ATTNLAB_SOURCE_DIR) / "assets" / "presets" / "modern-flashattention-tiles.json";
  const attnlab::Scenario s = attnlab::load_scenario(preset.string());
  CheckRun(s, 2, 2);
  CheckRun(attnlab::with_layout(s, attnlab::Layout::columns), 2, 3);
}

TEST(InspectorTiles, RandomCausalScenario) {
  attnlab::Scenario s = attnlab::testing::random_scenario(7, 6, 2, 31);
  s.mask.causal = true;
  CheckRun(s, 3, 2);
}

TEST(InspectorTiles, ScoreOfTheTileAndOutside) {
  attnlab::Scenario s = attnlab::testing::random_scenario(4, 4, 1, 32);
  s.mask.causal = true;
  const attnlab::Trace trace = attnlab::compute(s);
  const attnlab::FlashRun run = attnlab::flash_attention(trace, 0, 2, 2);
  // Tile 2 is (1, 0): queries 2-3, keys 0-1, all visible; its score (2, 1) adds exp(S - m) to l.
  const Explanation e = attnlab::app::ExplainTile(s, trace, run, Cell(run, 2, TileValue::score, 2, 1), kDecimals);
  ASSERT_TRUE(e.valid);
  const double p = std::exp(trace.masked(0)(2, 1) - run.tiles[2].m(0));
  EXPECT_NE(e.lines.back().find("= " + attnlab::app::Num(p, kDecimals) + ": it adds"), std::string::npos) << e.lines.back();
  // A key outside the tile, a query outside its block, a tile past the run: nothing to explain.
  EXPECT_FALSE(attnlab::app::ExplainTile(s, trace, run, Cell(run, 2, TileValue::score, 2, 3), kDecimals).valid);
  EXPECT_FALSE(attnlab::app::ExplainTile(s, trace, run, Cell(run, 2, TileValue::m, 0, 0), kDecimals).valid);
  EXPECT_FALSE(attnlab::app::ExplainTile(s, trace, run, Cell(run, 9, TileValue::m, 2, 0), kDecimals).valid);
  // The skipped tile (0, 1) says so.
  const Explanation skipped = attnlab::app::ExplainTile(s, trace, run, Cell(run, 1, TileValue::l, 0, 0), kDecimals);
  EXPECT_TRUE(Contains(skipped, "skipped")) << skipped.title;
}

// Hovering every cell of a 32-token run costs one run of the loop; a new trace version, another
// head or other blocks one more each, and a cell of another run is not explained from this one.
TEST(InspectorTiles, HoveringCellAfterCellRunsTheLoopOnce) {
  const attnlab::Scenario s = attnlab::testing::random_scenario(32, 8, 2, 33);
  const attnlab::Trace trace = attnlab::compute(s);
  attnlab::app::TileRuns runs;
  int explained = 0;
  for (std::size_t k = 0; k < 64; ++k) {  // 4 x 4 blocks: 8 x 8 tiles
    const attnlab::FlashRun* run = runs.Get(trace, 7, 1, 4, 4);
    ASSERT_NE(run, nullptr);
    for (Eigen::Index i = 0; i < 4; ++i)
      explained += attnlab::app::ExplainTile(s, trace, *run, Cell(*run, k, TileValue::O, run->tiles[k].row0 + i, 1),
                                             kDecimals).valid;
  }
  EXPECT_EQ(explained, 64 * 4);
  EXPECT_EQ(runs.Runs(), 1);
  EXPECT_EQ(runs.Get(trace, 8, 1, 4, 4)->head, 1);
  EXPECT_EQ(runs.Get(trace, 8, 0, 4, 4)->head, 0);
  EXPECT_EQ(runs.Get(trace, 8, 0, 4, 2)->block_cols, 2);
  EXPECT_EQ(runs.Get(trace, 8, 0, 4, 2)->tiles.size(), 8u * 16u);
  EXPECT_EQ(runs.Runs(), 4);
  EXPECT_EQ(runs.Get(trace, 8, 2, 4, 2), nullptr);  // no third head: refused, and not run again
  EXPECT_EQ(runs.Get(trace, 8, 2, 4, 2), nullptr);
  EXPECT_EQ(runs.Runs(), 5);
  const attnlab::FlashRun& run = *runs.Get(trace, 8, 0, 4, 2);
  HoveredCell other = Cell(run, 0, TileValue::m, 0, 0);
  other.head = 1;
  EXPECT_FALSE(attnlab::app::ExplainTile(s, trace, run, other, kDecimals).valid);
  std::printf("%d cells explained, the loop run %d times\n", explained, runs.Runs());
}

}  // namespace test_inspector_tiles
