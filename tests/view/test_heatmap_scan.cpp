// view/heatmap_scan.h: one pass finds the largest finite magnitude, masked cells (-inf, NaN; not
// +inf), negatives and whether every value is whole; the cache answers by matrix and version and
// forgets what a frame did not ask for; large scans wait when the frame's budget is spent.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "view/heatmap_scan.h"

namespace test_heatmap_scan {

namespace {

using attnlab::Matrix;
using attnlab::app::FrameWork;
using attnlab::app::ScanCache;
using attnlab::app::ValueScan;

TEST(HeatmapScan, ScanValuesSkipsNonFiniteCellsAndReportsMaskedOnes) {
  Matrix m(2, 3);
  m << 1, -3, 2, -INFINITY, 0.5, std::numeric_limits<double>::quiet_NaN();
  const ValueScan v = attnlab::app::ScanValues(m, true);
  EXPECT_EQ(v.max_abs, 3.0);
  EXPECT_TRUE(v.masked);
  EXPECT_TRUE(v.negative);
  EXPECT_FALSE(v.integers) << "0.5";
  Matrix whole(1, 3);
  whole << 2, INFINITY, 4;
  const ValueScan w = attnlab::app::ScanValues(whole, true);
  EXPECT_FALSE(w.masked) << "+inf is not a masked cell";
  EXPECT_FALSE(w.negative);
  EXPECT_TRUE(w.integers);
  EXPECT_EQ(w.max_abs, 4.0);
  EXPECT_TRUE(attnlab::app::ScanValues(m, false).integers) << "not looked for unless asked";
  EXPECT_EQ(attnlab::app::ScanValues(Matrix::Constant(2, 2, -INFINITY), false).max_abs, 0.0);
}

TEST(HeatmapScan, TheCacheAnswersByVersionAndForgetsWhatAFrameDidNotAskFor) {
  Matrix m = Matrix::Constant(4, 4, 1.0);
  ScanCache cache;
  FrameWork work;
  EXPECT_EQ(cache.Values(m, 1, false, work)->max_abs, 1.0);
  m(0, 0) = 9;  // same version: the data did not change as far as the cache knows
  EXPECT_EQ(cache.Values(m, 1, false, work)->max_abs, 1.0);
  EXPECT_EQ(cache.Values(m, 2, false, work)->max_abs, 9.0);
  cache.EndFrame();
  cache.EndFrame();  // a frame that asked for nothing: both entries go
  m(0, 0) = 7;
  EXPECT_EQ(cache.Values(m, 1, false, work)->max_abs, 7.0) << "scanned again after being forgotten";
  attnlab::BoolArray allowed = attnlab::BoolArray::Constant(3, 3, true);
  EXPECT_EQ(cache.AnyForbidden(allowed, 1, work), false);
  allowed(1, 2) = false;
  EXPECT_EQ(cache.AnyForbidden(allowed, 2, work), true);
}

TEST(HeatmapScan, ALargeScanWaitsWhenTheFramesBudgetIsSpent) {
  const Matrix big = Matrix::Ones(300, 300);  // above FrameWork::kAlwaysCells
  ScanCache cache;
  FrameWork work;
  work.BeginFrame();
  ASSERT_TRUE(work.Take(FrameWork::kCellsPerFrame));
  EXPECT_FALSE(cache.Values(big, 1, false, work).has_value());
  EXPECT_TRUE(cache.Values(Matrix::Ones(4, 4), 1, false, work).has_value()) << "small jobs always run";
  work.BeginFrame();
  EXPECT_TRUE(cache.Values(big, 1, false, work).has_value());
}

}  // namespace

}  // namespace test_heatmap_scan
