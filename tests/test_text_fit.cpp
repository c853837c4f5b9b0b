// attnlab/text_fit.h: the longest fitting part of a label, found with few measures.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "attnlab/text_fit.h"

namespace test_text_fit {

namespace {

using namespace attnlab;

TEST(TextFit, LongestFittingIsTheLargestFittingCountForEveryThreshold) {
  for (std::size_t n : {0u, 1u, 2u, 3u, 7u, 8u, 100u, 1000u})
    for (std::size_t limit = 0; limit <= n + 1; ++limit) {  // fits(k) iff k <= limit
      const std::size_t got = longest_fitting(n, [&](std::size_t k) { return k <= limit; });
      EXPECT_EQ(got, std::min(limit, n)) << "n " << n << ", limit " << limit;
    }
}

TEST(TextFit, LongestFittingMeasuresLogarithmicallyAndNeverFarPastTheAnswer) {
  const std::size_t n = 1'000'000, answer = 37;
  int calls = 0;
  std::size_t largest = 0;
  longest_fitting(n, [&](std::size_t k) {
    ++calls;
    largest = std::max(largest, k);
    return k <= answer;
  });
  EXPECT_LE(calls, 14) << "doubling then bisection";
  EXPECT_LE(largest, 2 * answer + 1) << "a candidate is never much longer than what fits";
}

TEST(TextFit, CodePointOffsetsFromBothEnds) {
  const std::string s = "a\xC3\xBC" "b\xE2\x80\xA6" "c";  // a ü b … c
  EXPECT_EQ(after_code_points(s, 0), 0u);
  EXPECT_EQ(after_code_points(s, 2), 3u);
  EXPECT_EQ(after_code_points(s, 4), 7u);
  EXPECT_EQ(after_code_points(s, 99), s.size());
  EXPECT_EQ(before_last_code_points(s, 1), 7u);
  EXPECT_EQ(before_last_code_points(s, 2), 4u);
  EXPECT_EQ(before_last_code_points(s, 99), 0u);
}

TEST(TextFit, WidthUpToStopsMeasuringOnceAPrefixIsTooWide) {
  const std::string label(1 << 20, 'w');
  std::size_t measured = 0;
  const auto width = [&](std::string_view s) {
    measured += s.size();
    return 10.0 * static_cast<double>(s.size());
  };
  EXPECT_GT(width_up_to(label, 150, width), 150);
  EXPECT_LE(measured, 64u) << "16 characters, then 32: wider than 150 px";
  EXPECT_EQ(width_up_to("short", 150, width), 50);
}

}  // namespace

}  // namespace test_text_fit
