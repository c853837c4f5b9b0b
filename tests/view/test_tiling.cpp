// view/tiling.h: the computed arrangement tiles the area at every size (inside, no overlap, whole
// pixels, gaps between neighbours), follows the shares, honours minimums while there is room, and
// a dragged splitter trades size between its two neighbours only.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "view/tiling.h"

namespace test_tiling {

namespace {

using attnlab::app::Box;
using attnlab::app::DragSplitter;
using attnlab::app::Distribute;
using attnlab::app::Splitter;
using attnlab::app::TileArea;
using attnlab::app::TileColumn;
using attnlab::app::Tiling;

std::vector<TileColumn> ThreeColumns() {
  return {{"left", 0.25f, 200, {{"setup", 0.6f, 120}, {"mask", 0.4f, 80}}},
          {"centre", 0.48f, 300, {{"formula", 0, 0, 30}, {"pipeline", 1.0f, 100}}},
          {"right", 0.27f, 200, {{"heads", 0.55f, 100}, {"details", 0.45f, 100}}}};
}

bool Inside(const Box& b, const Box& area) {
  return b.x >= area.x && b.y >= area.y && b.Right() <= area.Right() && b.Bottom() <= area.Bottom();
}
bool Overlap(const Box& a, const Box& b) {
  return a.x < b.Right() && b.x < a.Right() && a.y < b.Bottom() && b.y < a.Bottom();
}
bool Whole(float v) { return v == std::floor(v); }

void ExpectTiles(const Tiling& t, const Box& area) {
  for (std::size_t i = 0; i < t.tiles.size(); ++i) {
    const Box& b = t.tiles[i].box;
    EXPECT_TRUE(Inside(b, area)) << t.tiles[i].key << " at " << area.w << "x" << area.h;
    EXPECT_TRUE(Whole(b.x) && Whole(b.y) && Whole(b.w) && Whole(b.h)) << t.tiles[i].key;
    for (std::size_t j = i + 1; j < t.tiles.size(); ++j)
      EXPECT_FALSE(Overlap(b, t.tiles[j].box)) << t.tiles[i].key << " / " << t.tiles[j].key;
    for (const Splitter& s : t.splitters) EXPECT_FALSE(Overlap(b, s.box)) << t.tiles[i].key;
  }
}

TEST(Tiling, EverySizeIsTiledInsideWithoutOverlap) {
  for (float w : {320.f, 800.f, 1024.f, 1280.f, 1920.f, 2560.f, 3840.f})
    for (float h : {200.f, 600.f, 768.f, 800.f, 1080.f, 1440.f, 2160.f}) {
      const Box area{0, 25, w, h - 50};
      const Tiling t = TileArea(area, ThreeColumns(), 5);
      ASSERT_EQ(t.tiles.size(), 6u);
      ExpectTiles(t, area);
    }
}

TEST(Tiling, ColumnsFillTheWidthWithGapsBetween) {
  const Box area{0, 0, 1280, 750};
  const Tiling t = TileArea(area, ThreeColumns(), 5);
  ASSERT_EQ(t.columns.size(), 3u);
  EXPECT_EQ(t.columns[0].x, 0);
  EXPECT_EQ(t.columns[1].x, t.columns[0].Right() + 5);
  EXPECT_EQ(t.columns[2].x, t.columns[1].Right() + 5);
  EXPECT_EQ(t.columns[2].Right(), 1280);
  // Shares hold where no minimum binds: 1270 px split 25/48/27 (within rounding).
  EXPECT_NEAR(t.columns[0].w, 1270 * 0.25f, 1.0f);
  EXPECT_NEAR(t.columns[1].w, 1270 * 0.48f, 1.0f);
  // The strip keeps its height; the last slot of each column reaches the bottom.
  EXPECT_EQ(t.tiles[2].key, "formula");
  EXPECT_EQ(t.tiles[2].box.h, 30);
  for (int i : {1, 3, 5}) EXPECT_EQ(t.tiles[i].box.Bottom(), 750) << t.tiles[i].key;
  // Two vertical splitters and one between each pair of flexible slots (none beside the strip).
  int vertical = 0, horizontal = 0;
  for (const Splitter& s : t.splitters) (s.vertical ? vertical : horizontal)++;
  EXPECT_EQ(vertical, 2);
  EXPECT_EQ(horizontal, 2);
}

TEST(Tiling, MinimumsHoldWhileThereIsRoomAndShrinkInProportionAfter) {
  std::vector<TileColumn> cols = ThreeColumns();
  cols[0].share = 0.01f;  // a column dragged almost shut keeps its minimum
  Tiling t = TileArea({0, 0, 1280, 800}, cols, 5);
  EXPECT_EQ(t.columns[0].w, 200);
  t = TileArea({0, 0, 350, 800}, ThreeColumns(), 5);  // minimums 700 > 340: all shrink alike
  EXPECT_NEAR(t.columns[0].w / t.columns[1].w, 200.0f / 300.0f, 0.02f);
  EXPECT_EQ(t.columns[2].Right(), 350);
}

TEST(Tiling, DistributeAddsUpToTheTotalOnWholePixels) {
  const std::vector<float> sizes = Distribute(1001, {1, 1, 1}, {0, 0, 0});
  EXPECT_EQ(sizes[0] + sizes[1] + sizes[2], 1001);
  for (float s : sizes) EXPECT_TRUE(Whole(s));
  const std::vector<float> bad = Distribute(300, {NAN, -1, 1}, {0, 0, 0});  // a hand-edited file
  EXPECT_EQ(bad[0] + bad[1] + bad[2], 300);
  EXPECT_GT(bad[2], 250);
}

TEST(Tiling, DraggingAColumnSplitterMovesOnlyItsNeighbours) {
  std::vector<TileColumn> cols = ThreeColumns();
  const Box area{0, 0, 1600, 900};
  const Tiling before = TileArea(area, cols, 5);
  Splitter first;
  for (const Splitter& s : before.splitters)
    if (s.vertical && s.column == 0) first = s;
  ASSERT_TRUE(first.vertical);
  DragSplitter(cols, before, first, 60);
  const Tiling after = TileArea(area, cols, 5);
  EXPECT_NEAR(after.columns[0].w, before.columns[0].w + 60, 1.0f);
  EXPECT_NEAR(after.columns[1].w, before.columns[1].w - 60, 1.0f);
  EXPECT_NEAR(after.columns[2].w, before.columns[2].w, 1.0f);
  // The proportions persist: at another size the columns keep their new ratio.
  const Tiling wide = TileArea({0, 0, 3200, 1800}, cols, 5);
  EXPECT_NEAR(wide.columns[0].w / wide.columns[2].w, after.columns[0].w / after.columns[2].w, 0.01f);
}

TEST(Tiling, DraggingStopsAtTheNeighboursMinimum) {
  std::vector<TileColumn> cols = ThreeColumns();
  const Box area{0, 0, 1600, 900};
  const Tiling before = TileArea(area, cols, 5);
  Splitter slot_splitter;
  for (const Splitter& s : before.splitters)
    if (!s.vertical && s.column == 0) slot_splitter = s;
  DragSplitter(cols, before, slot_splitter, 5000);  // far past the bottom
  const Tiling after = TileArea(area, cols, 5);
  EXPECT_EQ(after.tiles[1].key, "mask");
  EXPECT_NEAR(after.tiles[1].box.h, 80, 1.0f);
  EXPECT_EQ(after.tiles[1].box.Bottom(), 900);
}

}  // namespace

}  // namespace test_tiling
