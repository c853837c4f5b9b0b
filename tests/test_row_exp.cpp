// core/src/row_exp.h: the softmax's two vector passes. The exponentials against the C library's
// exp, lane by lane, on the arguments a softmax passes (kUnderflow to 0), at every row length a
// tail can take; the scaling pass rounds each product before the maximum is subtracted.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "row_exp.h"  // core/src

namespace {

using attnlab::row_exp::exp_row;
using attnlab::row_exp::kUnderflow;
using attnlab::row_exp::scale_row;
constexpr double kInf = std::numeric_limits<double>::infinity();

/// Distance in units in the last place between two positive finite doubles.
std::int64_t ulps(double a, double b) {
  std::int64_t x, y;
  std::memcpy(&x, &a, sizeof a);
  std::memcpy(&y, &b, sizeof b);
  return x > y ? x - y : y - x;
}

TEST(RowExp, WithinTwoUlpOfTheCLibraryFromUnderflowToZero) {
  std::vector<double> in;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> any(kUnderflow, 0.0), small(-1.0, 0.0);
  for (int i = 0; i < 100000; ++i) in.push_back(any(rng));
  for (int i = 0; i < 20000; ++i) in.push_back(small(rng));
  // Where the reduction x - n ln2 switches n, and the ends of the range.
  for (int n = 0; n <= 1021; ++n)
    for (double d : {-1e-9, 0.0, 1e-9}) in.push_back(std::min(0.0, -n * std::log(2.0) / 2 + d));
  for (double x : {0.0, -0.0, -1e-300, -5e-324, -1e-16, -0.5, -707.9, -708.0}) in.push_back(x);
  std::vector<double> out(in.size());
  exp_row(in.data(), 0.0, out.data(), Eigen::Index(in.size()));
  std::int64_t worst = 0;
  double worst_at = 0;
  for (std::size_t j = 0; j < in.size(); ++j) {
    const std::int64_t d = ulps(out[j], std::exp(in[j]));
    if (d > worst) worst = d, worst_at = in[j];
  }
  EXPECT_LE(worst, 2) << "at x = " << worst_at;
}

TEST(RowExp, BelowUnderflowAndMinusInfinityGiveExactlyZero) {
  const double in[] = {-708.0001, -709, -745, -1e300, -kInf, -707.99};
  double out[6];
  const double sum = exp_row(in, 0.0, out, 6);
  for (int j = 0; j < 5; ++j) EXPECT_EQ(out[j], 0.0) << in[j];
  EXPECT_GT(out[5], 0.0);
  EXPECT_EQ(sum, out[5]);
}

TEST(RowExp, ScalesShiftsAndSumsAtEveryTailLength) {
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> score(-30.0, 30.0);
  for (int n = 0; n <= 35; ++n) {
    std::vector<double> in(std::size_t(n) + 1, 1e300), scaled(std::size_t(n) + 1, -1.0), out(scaled);  // + a guard cell
    for (int j = 0; j < n; ++j) in[std::size_t(j)] = score(rng);
    const double scale = 0.25, shift = 7.5 + 1e-3 * n;
    double want_max = -kInf;
    for (int j = 0; j < n; ++j) want_max = std::max(want_max, scale * in[std::size_t(j)]);
    EXPECT_EQ(scale_row(in.data(), scale, scaled.data(), n), want_max) << "n = " << n;
    const double sum = exp_row(scaled.data(), shift, out.data(), n);
    double want_sum = 0;
    for (int j = 0; j < n; ++j) {
      EXPECT_EQ(scaled[std::size_t(j)], scale * in[std::size_t(j)]);
      const double want = std::exp(scale * in[std::size_t(j)] - shift);
      EXPECT_NEAR(out[std::size_t(j)], want, 4e-16 * want) << "n = " << n << ", j = " << j;
      want_sum += want;
    }
    EXPECT_NEAR(sum, want_sum, 1e-14 * want_sum) << "n = " << n;
    EXPECT_EQ(scaled[std::size_t(n)], -1.0) << "wrote past the row, n = " << n;
    EXPECT_EQ(out[std::size_t(n)], -1.0) << "wrote past the row, n = " << n;
  }
}

TEST(RowExp, TheMaximumGetsExactlyOneHoweverLargeTheScores) {
  // Scaled scores near 5e31: one ulp is 2^53 there. Subtracting the maximum from a product that was
  // not rounded first (a fused multiply-add) left ~1e15 instead of 0, and exp gave inf or 0.
  const double in[] = {8.1e31, 8.1e31 * (1 - 1e-15), -8.1e31, 7e31, 8.0999e31, 1.0, 2.0, 3.0, 8.1e31 / 3};
  const int n = 9;
  double scaled[n], out[n];
  const double max = scale_row(in, 1 / std::sqrt(3.0), scaled, n);
  const double sum = exp_row(scaled, max, out, n);
  EXPECT_EQ(out[0], 1.0);
  EXPECT_EQ(sum, out[0] + out[1]);  // the second is within exp's range of the first; the rest are 0
  for (int j = 2; j < n; ++j) EXPECT_EQ(out[j], 0.0) << j;
}

TEST(RowExp, TheMaximumOfARowWithNaNIsNaN) {
  for (int at : {0, 3, 8, 10}) {  // in the vector part and in the tail
    std::vector<double> in(11, 1.0), out(11);
    in[std::size_t(at)] = std::numeric_limits<double>::quiet_NaN();
    EXPECT_TRUE(std::isnan(scale_row(in.data(), 2.0, out.data(), 11))) << at;
  }
  EXPECT_EQ(scale_row(nullptr, 2.0, nullptr, 0), -kInf);
}

TEST(RowExp, InPlaceGivesTheSameAsIntoAnotherRow) {
  std::vector<double> row(21), other(21);
  for (int j = 0; j < 21; ++j) row[std::size_t(j)] = -0.37 * j;
  const double sum = exp_row(row.data(), 1.0, other.data(), 21);
  EXPECT_EQ(exp_row(row.data(), 1.0, row.data(), 21), sum);
  EXPECT_EQ(row, other);
}

}  // namespace
