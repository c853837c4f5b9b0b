// The one number formatter of the window and the exports (attnlab/number_format.h).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>

#include "attnlab/number_format.h"

namespace test_number_format {

namespace {

using attnlab::format_fixed;
using attnlab::format_trimmed;

TEST(NumberFormat, NegativeValuesThatRoundToZeroHaveNoSign) {
  EXPECT_EQ(format_fixed(-0.0, 2), "0.00");
  EXPECT_EQ(format_fixed(-0.001, 2), "0.00");
  EXPECT_EQ(format_fixed(-0.004999, 2), "0.00");
  EXPECT_EQ(format_fixed(-0.4, 0), "0");
  EXPECT_EQ(format_fixed(-1e-300, 6), "0.000000");
  EXPECT_EQ(format_trimmed(-0.0001, 3), "0");
  // ... but a value that rounds away from zero keeps it.
  EXPECT_EQ(format_fixed(-0.005001, 2), "-0.01");
  EXPECT_EQ(format_fixed(-0.0004, 4), "-0.0004");
}

TEST(NumberFormat, RoundsToTheChosenDecimalsOneToSix) {
  // UDL 12.2's X'[0][0], as the notebook prints it with precision=3.
  const double v = -21.20701234;
  const char* const want[] = {"-21.2", "-21.21", "-21.207", "-21.2070", "-21.20701", "-21.207012"};
  for (int d = attnlab::kMinDecimals; d <= attnlab::kMaxDecimals; ++d)
    EXPECT_EQ(format_fixed(v, d), want[d - 1]) << "decimals " << d;
  EXPECT_EQ(format_fixed(0.125, 2), "0.12");  // binary 0.125 is exact: printf rounds half to even
  EXPECT_EQ(format_fixed(0.3650001, 2), "0.37");
  EXPECT_EQ(format_fixed(9.996, 2), "10.00");
  EXPECT_EQ(format_fixed(3, 0), "3");
}

TEST(NumberFormat, AgreesWithPrintfWhereverPrintfHasNoNegativeZero) {
  // Independent reference: %.*f itself, on a sweep of values of both signs.
  for (int d = 1; d <= 6; ++d)
    for (double v = -3.0; v <= 3.0; v += 0.0137) {
      char ref[64];
      std::snprintf(ref, sizeof ref, "%.*f", d, v);
      const bool rounds_to_zero = std::fabs(v) < 0.5 * std::pow(10.0, -d);
      if (!rounds_to_zero)
        EXPECT_EQ(format_fixed(v, d), ref) << v << " at " << d;
      else
        EXPECT_EQ(format_fixed(v, d).front(), '0') << v << " at " << d;
    }
}

TEST(NumberFormat, NonFiniteValuesAndTrimming) {
  EXPECT_EQ(format_fixed(-INFINITY, 2), "-inf");
  EXPECT_EQ(format_fixed(INFINITY, 2), "inf");
  EXPECT_EQ(format_fixed(std::numeric_limits<double>::quiet_NaN(), 2), "nan");
  EXPECT_EQ(format_trimmed(0.25, 6), "0.25");
  EXPECT_EQ(format_trimmed(1.0, 2), "1");
  EXPECT_EQ(format_trimmed(-21.20701, 2), "-21.21");
  EXPECT_EQ(format_trimmed(100.0, 3), "100");
  EXPECT_EQ(format_trimmed(-INFINITY, 3), "-inf");
}

TEST(NumberFormat, SignificantDigitsWriteTheCellsMinusSign) {
  // A cell's tooltip and a sensitivity: the value in full, its minus the cells' U+2212.
  using attnlab::format_significant;
  EXPECT_EQ(format_significant(-0.2397341, 6), "\xE2\x88\x92" "0.239734");
  EXPECT_EQ(format_significant(0.0664771, 6), "0.0664771");
  EXPECT_EQ(format_significant(1.454271, 6), "1.45427");
  EXPECT_EQ(format_significant(-std::numeric_limits<double>::infinity(), 6), "\xE2\x88\x92\xE2\x88\x9E");
  // A listed gradient: its sign always, trailing zeros kept so that the column lines up.
  EXPECT_EQ(format_significant(5.62, 4, true), "+5.620");
  EXPECT_EQ(format_significant(-8.19, 4, true), "\xE2\x88\x92" "8.190");
  EXPECT_EQ(format_significant(0.0, 4, true), "+0.000");
}

}  // namespace

}  // namespace test_number_format
