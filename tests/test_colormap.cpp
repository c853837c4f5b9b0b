// attnlab/colormap.h: the colours every figure (window and export) is drawn with.
#include <cmath>

#include <gtest/gtest.h>

#include "attnlab/colormap.h"

namespace test_colormap {

namespace {

using namespace attnlab;

TEST(Colormap, EndsAreTheReferenceTablesEnds) {
  EXPECT_EQ(MapColor(Colormap::Viridis, 0.0), (Rgb8{68, 1, 84}));     // matplotlib viridis[0]
  EXPECT_EQ(MapColor(Colormap::Viridis, 1.0), (Rgb8{253, 231, 37}));  // viridis[255]
  EXPECT_EQ(MapColor(Colormap::Grayscale, 0.0), (Rgb8{0, 0, 0}));
  EXPECT_EQ(MapColor(Colormap::Grayscale, 1.0), (Rgb8{255, 255, 255}));
  EXPECT_EQ(MapColor(Colormap::RdBu, 0.5), (Rgb8{247, 247, 247}));  // diverging maps are white-ish at 0
}

TEST(Colormap, MapValueUsesTheExplicitRangeAndClamps) {
  const ColorScale weights{Colormap::Viridis, 0.0, 1.0};
  EXPECT_EQ(MapValue(weights, 0.25), MapColor(Colormap::Viridis, 0.25));
  EXPECT_EQ(MapValue(weights, -3.0), MapColor(Colormap::Viridis, 0.0));
  EXPECT_EQ(MapValue(weights, 7.0), MapColor(Colormap::Viridis, 1.0));
  const ColorScale signed_scale{Colormap::RdBu, -4.0, 4.0};
  EXPECT_EQ(MapValue(signed_scale, 0.0), MapColor(Colormap::RdBu, 0.5));
  EXPECT_EQ(MapValue({Colormap::RdBu, 2.0, 2.0}, 2.0), MapColor(Colormap::RdBu, 0.5));  // degenerate range
  EXPECT_EQ(MapColor(Colormap::Viridis, std::nan("")), MapColor(Colormap::Viridis, 0.0));
}

TEST(Colormap, NamesRoundTripAndDivergingPartners) {
  for (int i = 0; i < kColormapCount; ++i) {
    const auto map = static_cast<Colormap>(i);
    Colormap back{};
    ASSERT_TRUE(ColormapFromName(ColormapName(map), &back)) << ColormapName(map);
    EXPECT_EQ(back, map);
  }
  Colormap unused{};
  EXPECT_FALSE(ColormapFromName("jet", &unused));
  EXPECT_EQ(DivergingFor(Colormap::Viridis), Colormap::RdBu);
  EXPECT_EQ(DivergingFor(Colormap::Grayscale), Colormap::GrayDiverging);
  EXPECT_TRUE(IsSequential(Colormap::Cividis));
  EXPECT_FALSE(IsSequential(Colormap::RdBu));
}

TEST(Colormap, LuminancePicksReadableText) {
  EXPECT_DOUBLE_EQ(Luminance({0, 0, 0}), 0.0);
  EXPECT_DOUBLE_EQ(Luminance({255, 255, 255}), 1.0);
  EXPECT_LT(Luminance(MapColor(Colormap::Viridis, 0.0)), 0.2);  // dark purple: white text
  EXPECT_GT(Luminance(MapColor(Colormap::Viridis, 1.0)), 0.7);  // yellow: black text
}

}  // namespace

}  // namespace test_colormap
