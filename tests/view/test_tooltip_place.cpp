// view/tooltip_place.h: a tooltip beside the mouse, inside its panel.
#include <gtest/gtest.h>

#include "view/tooltip_place.h"

namespace test_tooltip_place {

using attnlab::app::TooltipClearOfRows;
using attnlab::app::TooltipInside;
using attnlab::app::TooltipRect;

// A panel [400, 1280] x [40, 760], a tooltip 300 x 60, 16 px from the mouse.
TEST(TooltipPlace, BelowRightWhereItFits) {
  const auto p = TooltipInside(500, 100, 400, 40, 1280, 760, 300, 60, 16);
  EXPECT_FLOAT_EQ(p.x, 516);
  EXPECT_FLOAT_EQ(p.y, 116);
}

TEST(TooltipPlace, AboveLeftNearThePanelsBottomRight) {
  // The Pipeline's weights near its bottom right, where ImGui's default tooltip covered the
  // Inspector beside it.
  const auto p = TooltipInside(1100, 740, 400, 40, 1280, 760, 300, 60, 16);
  EXPECT_FLOAT_EQ(p.x, 1100 - 16 - 300);
  EXPECT_FLOAT_EQ(p.y, 740 - 16 - 60);
}

TEST(TooltipPlace, WiderThanEitherSideItTouchesThePanelsRightEdge) {
  // A matrix editor's cell tooltip (370 wide) in a 470-wide Inputs panel, mouse at x = 165.
  const auto p = TooltipInside(165, 250, 0, 40, 470, 760, 370, 90, 16);
  EXPECT_FLOAT_EQ(p.x, 100);  // 100 + 370 = 470: inside, covering the mouse rather than the next panel
  EXPECT_FLOAT_EQ(p.y, 266);
}

TEST(TooltipPlace, WiderThanThePanelStartsAtItsLeftEdge) {
  const auto p = TooltipInside(165, 250, 0, 40, 300, 760, 370, 90, 16);
  EXPECT_FLOAT_EQ(p.x, 0);
}

// The Heads panel's large head in lecture mode at 1280x800: a 6 x 6 grid of 34 px cells at
// (68, 250) in a panel [0, 432] x [100, 468], on a 1280 x 800 screen; a tooltip 368 x 87.
constexpr TooltipRect kHeadsPanel{0, 100, 432, 468}, kScreen{0, 0, 1280, 800};
constexpr float kGridX0 = 68, kGridY0 = 250, kCell = 34;

// The grid's width from its first row down to row `row`, as the heatmap keeps it clear.
TooltipRect RowsUpTo(int row) {
  return {kGridX0, kGridY0, kGridX0 + 6 * kCell, kGridY0 + kCell * float(row + 1)};
}

bool Covers(attnlab::app::TooltipPlace p, float w, float h, const TooltipRect& r) {
  return p.x < r.x1 && r.x0 < p.x + w && p.y < r.y1 && r.y0 < p.y + h;
}

TEST(TooltipClearOfRows, BelowTheHoveredRowWhereThePanelHasRoom) {
  const TooltipRect keep = RowsUpTo(0);
  const auto p = TooltipClearOfRows(170, 267, keep, kHeadsPanel, kScreen, 368, 87, 16);
  EXPECT_FLOAT_EQ(p.y, 288);  // 4 px under the row's bottom (284), further than the mouse's 16 px
  EXPECT_FALSE(Covers(p, 368, 87, keep));
}

TEST(TooltipClearOfRows, BesideTheGridWhenBelowLeavesThePanel) {
  // Row 3 of 6: 87 px below it would cross the panel's bottom; TooltipInside put it above the
  // mouse, over rows 0 to 2. Neither side of the grid has 368 px in the panel: right of it on
  // the screen.
  const TooltipRect keep = RowsUpTo(3);
  const auto p = TooltipClearOfRows(170, 369, keep, kHeadsPanel, kScreen, 368, 87, 16);
  EXPECT_FLOAT_EQ(p.x, kGridX0 + 6 * kCell + 4);
  EXPECT_FLOAT_EQ(p.y, 369 - 87 / 2.0f);  // centred on the hovered row
  EXPECT_FALSE(Covers(p, 368, 87, keep));
  const auto old = TooltipInside(170, 369, kHeadsPanel.x0, kHeadsPanel.y0, kHeadsPanel.x1,
                                 kHeadsPanel.y1, 368, 87, 16);
  EXPECT_TRUE(Covers(old, 368, 87, RowsUpTo(0)));  // what the class saw
}

TEST(TooltipClearOfRows, BesideTheLastRowItStaysWithinThePanelsHeight) {
  // Row 5 of 6 (its bottom on the panel's bottom, 454): below the mouse, the tooltip crossed into
  // the Inspector under the Heads panel and covered its title.
  const TooltipRect keep = RowsUpTo(5);
  const auto p = TooltipClearOfRows(170, 437, keep, kHeadsPanel, kScreen, 368, 87, 16);
  EXPECT_FLOAT_EQ(p.x, kGridX0 + 6 * kCell + 4);
  EXPECT_FLOAT_EQ(p.y + 87, kHeadsPanel.y1);
  EXPECT_FALSE(Covers(p, 368, 87, keep));
}

TEST(TooltipClearOfRows, BesideInsideThePanelBeforeTheScreen) {
  // A narrow tooltip fits right of the grid inside the panel.
  const TooltipRect keep = RowsUpTo(4);
  const auto p = TooltipClearOfRows(170, 403, keep, kHeadsPanel, kScreen, 150, 87, 16);
  EXPECT_FLOAT_EQ(p.x, kGridX0 + 6 * kCell + 4);
  EXPECT_LE(p.x + 150, kHeadsPanel.x1);
  EXPECT_LE(p.y + 87, kHeadsPanel.y1);
}

TEST(TooltipClearOfRows, LeftOfTheGridAtTheScreensRightEdge) {
  // A grid against the screen's right edge, a tooltip wider than its panel: left of the grid.
  const TooltipRect keep{1000, 200, 1270, 700}, panel{900, 100, 1280, 780};
  const auto p = TooltipClearOfRows(1100, 690, keep, panel, kScreen, 368, 87, 16);
  EXPECT_FLOAT_EQ(p.x, 1000 - 4 - 368);
  EXPECT_FALSE(Covers(p, 368, 87, keep));
}

TEST(TooltipClearOfRows, AboveTheGridWhenNothingElseFits) {
  // A grid as wide as the screen whose last row is hovered near the screen's bottom.
  const TooltipRect keep{0, 300, 1280, 790};
  const auto p = TooltipClearOfRows(640, 780, keep, kScreen, kScreen, 368, 87, 16);
  EXPECT_FLOAT_EQ(p.y, 300 - 4 - 87);
  EXPECT_FALSE(Covers(p, 368, 87, keep));
}

}  // namespace test_tooltip_place
