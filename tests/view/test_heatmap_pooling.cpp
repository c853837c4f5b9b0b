// view/heatmap_pooling.h without a window: which cells a texel covers, the colour a pooled texel
// gets, and which cell a hover over it inspects (the one whose value the pixel shows).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "attnlab/colormap.h"
#include "view/heatmap_pooling.h"

namespace test_heatmap_pooling {

namespace {

using namespace attnlab;
using namespace attnlab::app;

const ColorScale kWeights{Colormap::Viridis, 0.0, 1.0};
const ColorScale kSigned{Colormap::RdBu, -4.0, 4.0};

Rgb8 TexelAt(const std::vector<std::uint8_t>& rgba, const TexelGrid& g, int x, int y) {
  const std::uint8_t* p = &rgba[(std::size_t(y) * std::size_t(g.cols_px) + std::size_t(x)) * 4];
  return {p[0], p[1], p[2]};
}

int ChannelError(Rgb8 a, Rgb8 b) {
  return std::max({std::abs(a.r - b.r), std::abs(a.g - b.g), std::abs(a.b - b.b)});
}

TEST(Pooling, CellsOfAPixelOrMoreAreNotPooled) {
  for (float cell : {1.0f, 1.5f, 2.0f, 32.0f}) {
    const TexelGrid g = MakeTexelGrid(300, 200, cell, kWeights);
    EXPECT_EQ(g.pooling, Pooling::None) << "cell " << cell;
    EXPECT_EQ(g.rows_px, 300);
    EXPECT_EQ(g.cols_px, 200);
  }
}

TEST(Pooling, SubPixelCellsFitTheirPixels) {
  const TexelGrid g = MakeTexelGrid(256, 256, 79.0f / 256.0f, kWeights);
  EXPECT_EQ(g.rows_px, 79);
  EXPECT_EQ(g.cols_px, 79);
  EXPECT_EQ(g.pooling, Pooling::Max);
  EXPECT_EQ(MakeTexelGrid(2048, 64, 0.25f, kSigned).pooling, Pooling::MaxAbs);
}

TEST(Pooling, TexelsPartitionTheCells) {
  for (const auto& [n, n_px] :
       std::vector<std::pair<int, int>>{{256, 79}, {2048, 300}, {10, 10}, {7, 3}}) {
    int next = 0;
    for (int i = 0; i < n_px; ++i) {
      const CellSpan s = CellsOfTexel(i, n, n_px);
      EXPECT_EQ(s.first, next) << n << " cells in " << n_px << " texels, texel " << i;
      EXPECT_GT(s.last, s.first);
      next = s.last;
    }
    EXPECT_EQ(next, n);
  }
}

// A one-hot row keeps its peak: the texel over it shows the peak's colour, not a faded mean,
// and a hover there inspects the peak's cell.
TEST(Pooling, MaxPoolingKeepsAPeakAndHoverFindsIt) {
  Matrix w = Matrix::Constant(8, 8, 0.01);
  w(5, 6) = 0.93;
  const HeatmapData data{&w, nullptr};
  const TexelGrid g = MakeTexelGrid(8, 8, 0.25f, kWeights);  // 2 x 2 texels of 4 x 4 cells
  ASSERT_EQ(g.cols_px, 2);
  const std::vector<std::uint8_t> rgba = BuildTexels(data, g, kWeights);
  const int err = ChannelError(TexelAt(rgba, g, 1, 1), MapValue(kWeights, 0.93));
  EXPECT_LE(err, 2) << "peak texel off by " << err;
  EXPECT_LE(ChannelError(TexelAt(rgba, g, 0, 0), MapValue(kWeights, 0.01)), 2);
  const CellIndex shown = ShownCell(data, g, 1, 1);
  EXPECT_EQ(shown.row, 5);
  EXPECT_EQ(shown.col, 6);
}

// Masked cells take no part, unless the whole block is masked (causal: above the diagonal).
TEST(Pooling, MaskedCellsArePooledOnlyWhenTheWholeBlockIs) {
  Matrix w = Matrix::Zero(4, 4);
  BoolArray allowed = BoolArray::Constant(4, 4, true);
  for (int r = 0; r < 4; ++r)
    for (int c = r + 1; c < 4; ++c) allowed(r, c) = false;
  w(1, 0) = 0.2;
  w(0, 1) = 0.9;  // forbidden: must not win its block
  const HeatmapData data{&w, &allowed};
  const TexelGrid g = MakeTexelGrid(4, 4, 0.5f, kWeights);
  const std::vector<std::uint8_t> rgba = BuildTexels(data, g, kWeights);
  EXPECT_LE(ChannelError(TexelAt(rgba, g, 0, 0), MapValue(kWeights, 0.2)), 2);
  EXPECT_EQ(TexelAt(rgba, g, 1, 0), kMaskedFill);  // rows 0-1, columns 2-3: all above the diagonal
  const CellIndex shown = ShownCell(data, g, 0, 0);
  EXPECT_EQ(shown.row, 1);
  EXPECT_EQ(shown.col, 0);
}

// Signed data pool to the value farthest from 0, sign kept: a strong negative stays visible.
TEST(Pooling, SignedDataKeepTheirExtremeWithItsSign) {
  Matrix s(2, 2);
  s << 1.0, -3.5, 2.0, 0.5;
  const HeatmapData data{&s, nullptr};
  const TexelGrid g = MakeTexelGrid(2, 2, 0.5f, kSigned);
  const std::vector<std::uint8_t> rgba = BuildTexels(data, g, kSigned);
  EXPECT_LE(ChannelError(TexelAt(rgba, g, 0, 0), MapValue(kSigned, -3.5)), 2);
  const CellIndex shown = ShownCell(data, g, 0, 0);
  EXPECT_EQ(shown.row, 0);
  EXPECT_EQ(shown.col, 1);
}

// Equal distances from 0 go to the larger value, whatever the order of the cells: the texel and
// the hover agree however the block is read.
TEST(Pooling, ATieGoesToTheLargerValue) {
  for (const double first : {-2.0, 2.0}) {
    Matrix s(1, 2);
    s << first, -first;
    const HeatmapData data{&s, nullptr};
    const TexelGrid g = MakeTexelGrid(1, 2, 0.5f, kSigned);
    ASSERT_EQ(g.cols_px, 1);
    EXPECT_EQ(TexelAt(BuildTexels(data, g, kSigned), g, 0, 0), MapValue(kSigned, 2.0));
    EXPECT_EQ(s(0, ShownCell(data, g, 0, 0).col), 2.0);
  }
}

TEST(Pooling, ExactTexelsAreTheCellsColours) {
  Matrix w(2, 3);
  w << 0.0, 0.25, 0.5, 0.75, 1.0, -INFINITY;
  const HeatmapData data{&w, nullptr};
  const TexelGrid g = MakeTexelGrid(2, 3, 4.0f, kWeights);
  const std::vector<std::uint8_t> rgba = BuildTexels(data, g, kWeights);
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 3; ++c) {
      const Rgb8 expected = std::isfinite(w(r, c)) ? MapValue(kWeights, w(r, c)) : kMaskedFill;
      EXPECT_LE(ChannelError(TexelAt(rgba, g, c, r), expected), 2) << "cell " << r << ", " << c;
      const CellIndex shown = ShownCell(data, g, c, r);
      EXPECT_EQ(shown.row, r);
      EXPECT_EQ(shown.col, c);
    }
}

}  // namespace

}  // namespace test_heatmap_pooling
