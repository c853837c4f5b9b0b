// core/src/exp_kernel.h: softmax's exponentials against the C library's expl (long double), their
// sum, the lanes of a row's last 1 to 3 numbers, and the values callers replace (below -708, NaN).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "exp_kernel.h"  // core/src

namespace test_exp_kernel {

namespace {

using attnlab::kernels::exp_sum;

/// |got - exp(x)| in units of the double spacing at exp(x).
double ulps(double got, double x) {
  const long double want = std::exp(static_cast<long double>(x));
  return static_cast<double>(std::fabs((static_cast<long double>(got) - want) / want)) / std::numeric_limits<double>::epsilon();
}

TEST(ExpKernel, WithinTwoUlpsOverSoftmaxsRange) {
  // Softmax's arguments: x - max in [-708, 0]; the kernel's range goes on to 709.
  std::mt19937_64 random(11);
  std::uniform_real_distribution<double> softmax(-708.0, 0.0), beyond(0.0, 709.0), near(-1.0, 1.0);
  std::vector<double> in;
  for (int i = 0; i < 20000; ++i) in.insert(in.end(), {softmax(random), beyond(random), near(random)});
  in.insert(in.end(), {0.0, -0.0, -708.0, 709.0, -1e-300, 0.5 * std::log(2.0), -0.5 * std::log(2.0)});
  std::vector<double> out(in.size());
  exp_sum(in.data(), 1.0, 0.0, out.data(), Eigen::Index(in.size()));
  double worst = 0;
  for (std::size_t i = 0; i < in.size(); ++i) worst = std::max(worst, ulps(out[i], in[i]));
  EXPECT_LT(worst, 2.0);
  EXPECT_EQ(out[in.size() - 7], 1.0);  // exp(0) exactly
}

TEST(ExpKernel, ScalesShiftsAndSumsEveryLengthsLastLanes) {
  // Lengths 1 to 9: every remainder of four, through the masked last lanes. Each entry must have the
  // same bits wherever it lies in the row (a row's tail against the same number in a body).
  for (Eigen::Index n = 1; n <= 9; ++n) {
    std::vector<double> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n) + 1, 77.0);
    for (Eigen::Index j = 0; j < n; ++j) in[std::size_t(j)] = 0.37 * double(j) - 1.5;
    const double sum = exp_sum(in.data(), 0.5, 0.25, out.data(), n);
    long double want = 0;
    for (Eigen::Index j = 0; j < n; ++j) {
      const double x = in[std::size_t(j)] * 0.5 - 0.25;
      EXPECT_LT(ulps(out[std::size_t(j)], x), 2.0) << "n " << n << ", j " << j;
      double alone = 0;
      exp_sum(&in[std::size_t(j)], 0.5, 0.25, &alone, 1);
      EXPECT_EQ(alone, out[std::size_t(j)]) << "n " << n << ", j " << j;
      want += out[std::size_t(j)];
    }
    EXPECT_NEAR(sum, double(want), 1e-15 * double(n));
    EXPECT_EQ(out[std::size_t(n)], 77.0) << "wrote past the row at n " << n;
  }
}

TEST(ExpKernel, TheProductIsRoundedBeforeTheShift) {
  // softmax's largest scaled score is its shift: exp(0) = 1 exactly. Fused into one multiply-add,
  // scale x - shift would keep the product's rounding error (~1e15 at scores of 1e31) and give inf
  // or garbage (docs/PERFORMANCE.md: an earlier exp of our own, compiled with -ffp-contract=fast).
  const double scale = 1.0 / std::sqrt(3.0);
  const std::vector<double> in(6, 8.1000001e31);
  std::vector<double> out(in.size());
  const double shift = in[0] * scale;
  EXPECT_EQ(exp_sum(in.data(), scale, shift, out.data(), Eigen::Index(in.size())), 6.0);
  for (double e : out) EXPECT_EQ(e, 1.0);
}

TEST(ExpKernel, NaNStaysNaNAndBelowTheRangeIsExpOfMinus708) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const std::vector<double> in{nan, -inf, -709.5, -1e300, -5.0};
  std::vector<double> out(in.size());
  exp_sum(in.data(), 1.0, 0.0, out.data(), Eigen::Index(in.size()));
  EXPECT_TRUE(std::isnan(out[0]));
  for (std::size_t i = 1; i < 4; ++i) {  // what callers replace by 0: tiny, positive, never -inf or NaN
    EXPECT_GT(out[i], 0.0) << in[i];
    EXPECT_LT(ulps(out[i], -708.0), 2.0) << in[i];
  }
  EXPECT_LT(ulps(out[4], -5.0), 2.0);
}

}  // namespace

}  // namespace test_exp_kernel
