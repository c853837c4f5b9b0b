// view/tooltip_place.h: a tooltip beside the mouse, inside its panel.
#include <gtest/gtest.h>

#include "view/tooltip_place.h"

namespace test_tooltip_place {

using attnlab::app::TooltipInside;

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

}  // namespace test_tooltip_place
