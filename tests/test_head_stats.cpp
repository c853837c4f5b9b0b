// Per-head statistics (head_stats.h): the invariants of each definition, on computed traces and on
// hand-made weights. The NumPy reference is in scripts/fixture_stats.py (tests/fixtures/*.json,
// checked by test_fixtures.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "attnlab/attention.h"
#include "attnlab/head_stats.h"
#include "attnlab/scenario.h"
#include "test_support.h"

namespace test_head_stats {

namespace {

using attnlab::HeadStats;
using attnlab::Layout;
using attnlab::Matrix;
using attnlab::Scenario;
using attnlab::Trace;

constexpr double kTolerance = 1e-12;  // relative to max(1, |value|)

/// n tokens of width 3 whose keys are all zero: every score is 0, every weight 1/n (no mask).
Scenario uniform_scenario(int n) {
  Scenario s = attnlab::testing::random_scenario(n, 3, 1, 15);
  s.full.W_k = Matrix::Zero(3, 3);
  return s;
}

/// A one-head trace holding `weights` (queries as rows), in `layout`, without positions.
Trace trace_of(const Matrix& weights, Layout layout = Layout::rows) {
  Trace t;
  t.layout = layout;
  t.heads.resize(1);
  t.heads[0].weights = layout == Layout::rows ? weights : Matrix(weights.transpose());
  return t;
}

double relative(double a, double b) { return std::abs(a - b) / std::max(1.0, std::abs(b)); }

/// Largest relative difference of the real-valued statistics; the integer ones must be equal.
double stats_error(const HeadStats& a, const HeadStats& b) {
  EXPECT_EQ(a.argmax, b.argmax);
  EXPECT_EQ(a.keys_for_90, b.keys_for_90);
  double worst = 0;
  for (auto field : {&HeadStats::entropy, &HeadStats::max_weight, &HeadStats::first_key, &HeadStats::mean_distance}) {
    EXPECT_EQ((a.*field).size(), (b.*field).size());
    for (std::size_t i = 0; i < (a.*field).size() && i < (b.*field).size(); ++i)
      worst = std::max(worst, relative((a.*field)[i], (b.*field)[i]));
  }
  return worst;
}

TEST(HeadStats, UniformWeightsHaveEntropyLnNAndNeedNineTenthsOfTheKeys) {
  for (int n : {1, 2, 3, 7, 10, 20, 30}) {
    const Trace t = attnlab::compute(uniform_scenario(n));
    const HeadStats s = attnlab::head_stats(t, 0);
    ASSERT_EQ(s.entropy.size(), std::size_t(n));
    const int nine_tenths = (9 * n + 9) / 10;  // ceil(0.9 n), in integers
    double worst = 0;
    for (int i = 0; i < n; ++i) {
      worst = std::max(worst, relative(s.entropy[std::size_t(i)], std::log(double(n))));
      EXPECT_EQ(s.keys_for_90[std::size_t(i)], nine_tenths) << "n = " << n << ", query " << i;
      EXPECT_EQ(s.argmax[std::size_t(i)], 0) << "equal weights: the lowest key";
      EXPECT_NEAR(s.max_weight[std::size_t(i)], 1.0 / n, kTolerance);
      EXPECT_NEAR(s.first_key[std::size_t(i)], 1.0 / n, kTolerance);
    }
    std::cout << "  n = " << n << ": |entropy - ln n| / max(1, ln n) = " << worst << "\n";
    EXPECT_LE(worst, kTolerance) << "n = " << n;
  }
}

TEST(HeadStats, OneHotRowHasEntropyZeroAndOneKey) {
  Matrix A = Matrix::Zero(3, 4);
  A(0, 2) = 1;
  A(1, 0) = 1;
  A(2, 3) = 1;
  for (Layout layout : {Layout::rows, Layout::columns}) {
    const HeadStats s = attnlab::head_stats(trace_of(A, layout), 0);
    EXPECT_EQ(s.entropy, (std::vector<double>{0, 0, 0}));
    EXPECT_EQ(s.keys_for_90, (std::vector<int>{1, 1, 1}));
    EXPECT_EQ(s.argmax, (std::vector<int>{2, 0, 3}));
    EXPECT_EQ(s.max_weight, (std::vector<double>{1, 1, 1}));
    EXPECT_EQ(s.first_key, (std::vector<double>{0, 1, 0}));
    // Without positions in the trace the tokens are at 0, 1, 2, ...: the distance to the one key.
    EXPECT_EQ(s.mean_distance, (std::vector<double>{2, 1, 1}));
  }
}

TEST(HeadStats, TiesGoToTheLowestKeyAndKeysFor90CountsTheLargestFirst) {
  Matrix A(2, 4);
  A << 0.1, 0.4, 0.1, 0.4,  // two maxima: key 1; 0.4 + 0.4 < 0.9 <= 0.4 + 0.4 + 0.1
      0.05, 0.05, 0.85, 0.05;
  const HeadStats s = attnlab::head_stats(trace_of(A), 0);
  EXPECT_EQ(s.argmax, (std::vector<int>{1, 2}));
  EXPECT_EQ(s.keys_for_90, (std::vector<int>{3, 2}));
  EXPECT_DOUBLE_EQ(s.max_weight[0], 0.4);
  const double h0 = -(2 * 0.1 * std::log(0.1) + 2 * 0.4 * std::log(0.4));
  EXPECT_NEAR(s.entropy[0], h0, kTolerance);
  EXPECT_NEAR(s.mean_distance[0], 0.4 * 1 + 0.1 * 2 + 0.4 * 3, kTolerance);  // query 0 at position 0
  EXPECT_NEAR(s.mean_distance[1], 0.05 * 1 + 0.85 * 1 + 0.05 * 2, kTolerance);  // query 1 at position 1
}

TEST(HeadStats, AQueryThatAttendsNothingGetsZerosAndArgmaxMinusOne) {
  Scenario sc = attnlab::testing::random_scenario(4, 4, 2, 16);
  Matrix cells = Matrix::Ones(4, 4);
  cells.row(2).setZero();  // query 2 may attend no key
  sc.mask.cells = cells;
  for (Layout layout : {Layout::rows, Layout::columns}) {
    const Trace t = attnlab::compute(attnlab::with_layout(sc, layout));
    for (std::size_t h = 0; h < t.heads.size(); ++h) {
      const HeadStats s = attnlab::head_stats(t, h);
      EXPECT_EQ(s.entropy[2], 0.0);
      EXPECT_EQ(s.max_weight[2], 0.0);
      EXPECT_EQ(s.argmax[2], -1);
      EXPECT_EQ(s.keys_for_90[2], 0);
      EXPECT_EQ(s.first_key[2], 0.0);
      EXPECT_EQ(s.mean_distance[2], 0.0);
      for (std::size_t i : {0u, 1u, 3u}) {  // the others attend something
        EXPECT_GE(s.argmax[i], 0);
        EXPECT_GE(s.keys_for_90[i], 1);
        EXPECT_GT(s.max_weight[i], 0.0);
      }
    }
  }
}

TEST(HeadStats, RowsAndColumnsLayoutsGiveTheSameStatistics) {
  for (std::uint64_t seed : {21u, 22u, 23u}) {
    Scenario rows = attnlab::testing::random_scenario(5, 4, 2, seed);
    rows.mask.causal = seed % 2 == 0;
    rows.positions = {3, 1, 4, 1, 5};
    const Trace tr = attnlab::compute(rows);
    const Trace tc = attnlab::compute(attnlab::with_layout(rows, Layout::columns));
    ASSERT_EQ(tc.layout, Layout::columns);
    for (std::size_t h = 0; h < tr.heads.size(); ++h) {
      const double err = stats_error(attnlab::head_stats(tc, h), attnlab::head_stats(tr, h));
      std::cout << "  seed " << seed << " head " << h << ": columns vs rows " << err << "\n";
      EXPECT_LE(err, kTolerance);
    }
  }
}

TEST(HeadStats, MeanDistanceReadsTheTokensPositions) {
  // Self-attention at positions 0, 5, 7 with equal weights: the mean |p_i - p_j| over the three keys.
  Scenario s = uniform_scenario(3);
  s.positions = {0, 5, 7};
  const HeadStats self = attnlab::head_stats(attnlab::compute(s), 0);
  const double self_want[] = {12.0 / 3, 7.0 / 3, 9.0 / 3};
  for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(self.mean_distance[i], self_want[i], kTolerance) << i;

  // Cross-attention: the keys at the context positions; causal by position leaves query 0 (at 1)
  // the keys at 0 and 1, query 1 (at 10) all four.
  s.Z = attnlab::testing::random_scenario(4, 3, 1, 17).X;
  s.positions = {1, 10, 0};
  s.context_positions = {0, 1, 8, 9};
  s.mask.causal = true;
  s.full.W_k = Matrix::Zero(3, 3);
  s.full.W_v = Matrix::Identity(3, 3);
  for (Layout layout : {Layout::rows, Layout::columns}) {
    const Trace t = attnlab::compute(attnlab::with_layout(s, layout));
    const HeadStats cross = attnlab::head_stats(t, 0);
    EXPECT_NEAR(cross.mean_distance[0], (1.0 + 0.0) / 2, kTolerance);
    EXPECT_NEAR(cross.mean_distance[1], (10.0 + 9.0 + 2.0 + 1.0) / 4, kTolerance);
    EXPECT_NEAR(cross.mean_distance[2], 0.0, kTolerance);  // at 0, one key at 0
    EXPECT_EQ(cross.keys_for_90, (std::vector<int>{2, 4, 1}));
  }
}

TEST(HeadStats, FirstKeyIsTheWeightOnKeyZero) {
  const Trace t = attnlab::compute(attnlab::testing::random_scenario(6, 4, 2, 18));
  for (std::size_t h = 0; h < t.heads.size(); ++h) {
    const HeadStats s = attnlab::head_stats(t, h);
    for (Eigen::Index i = 0; i < 6; ++i) EXPECT_EQ(s.first_key[std::size_t(i)], t.heads[h].weights(i, 0));
  }
}

TEST(HeadStats, AnUnknownHeadIsRefused) {
  const Trace t = attnlab::compute(uniform_scenario(2));
  EXPECT_THROW(attnlab::head_stats(t, 1), std::out_of_range);
}

}  // namespace

}  // namespace test_head_stats
