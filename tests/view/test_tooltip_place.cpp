// view/tooltip_place.h: a tooltip grows from the mouse towards the middle of its panel.
#include <gtest/gtest.h>

#include "view/tooltip_place.h"

namespace test_tooltip_place {

using attnlab::app::TooltipInside;

TEST(TooltipPlace, GrowsTowardsThePanelsMiddle) {
  // A panel [400, 1280] x [40, 760]; the Pipeline's weights near its bottom right, where ImGui's
  // default tooltip (right and down) covered the Inspector beside it.
  const auto bottom_right = TooltipInside(1100, 700, 400, 40, 1280, 760, 16);
  EXPECT_EQ(bottom_right.pivot_x, 1.0f);  // left of the mouse
  EXPECT_EQ(bottom_right.pivot_y, 1.0f);  // above it
  EXPECT_FLOAT_EQ(bottom_right.x, 1084);
  EXPECT_FLOAT_EQ(bottom_right.y, 684);
  const auto top_left = TooltipInside(450, 100, 400, 40, 1280, 760, 16);
  EXPECT_EQ(top_left.pivot_x, 0.0f);
  EXPECT_EQ(top_left.pivot_y, 0.0f);
  EXPECT_FLOAT_EQ(top_left.x, 466);
  EXPECT_FLOAT_EQ(top_left.y, 116);
  const auto top_right = TooltipInside(1200, 100, 400, 40, 1280, 760, 16);
  EXPECT_EQ(top_right.pivot_x, 1.0f);
  EXPECT_EQ(top_right.pivot_y, 0.0f);
}

}  // namespace test_tooltip_place
