#include "row_exp.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace attnlab::row_exp {

namespace {

constexpr int kLanes = 8;
using Doubles = double __attribute__((vector_size(kLanes * sizeof(double))));
using Bits = unsigned long long __attribute__((vector_size(kLanes * sizeof(long long))));

/// The last n % 8 numbers of a row, padded with `fill`: copied into a full vector, worked on, copied
/// back. `work(in, out)` handles 8 lanes.
template <typename Work>
void tail(const double* in, double* out, Eigen::Index n, double fill, Work&& work) {
  const Eigen::Index j = n / kLanes * kLanes;
  if (j == n) return;
  double lanes[kLanes];
  const std::size_t rest = std::size_t(n - j);
  std::fill(lanes, lanes + kLanes, fill);
  std::memcpy(lanes, in + j, rest * sizeof(double));
  work(lanes, lanes);
  std::memcpy(out + j, lanes, rest * sizeof(double));
}

/// out[0, 8) = scale in[0, 8); `max` keeps the largest lane by lane, or NaN once a lane is NaN.
void scale_lanes(const double* in, double scale, double* out, Doubles& max) {
  Doubles x;
  std::memcpy(&x, in, sizeof x);
  x = x * scale;
  std::memcpy(out, &x, sizeof x);
  const Bits larger = (Bits)((x > max) | (x != x));  // all bits set, or none, lane by lane
  max = (Doubles)(((Bits)x & larger) | ((Bits)max & ~larger));
}

/// out[0, 8) = exp(in[j] - shift) lane by lane, added to `sum` (vectors pass by reference
/// only: by value they would change the ABI between builds with and without AVX-512).
/// With x = n ln2 + r, n whole and |r| <= ln2 / 2: exp(x) = 2^n exp(r), exp(r) by its Taylor series
/// to r^13 (truncation below 2^-58 of the result), 2^n built in the exponent bits. Lanes below
/// kUnderflow (or -inf) give 0; x must not exceed ~709 or be NaN.
void exp_lanes(const double* in, double shift, double* out, Doubles& sum) {
  constexpr double kShifter = 0x1.8p52;  // adding it rounds to a whole number, kept in the low bits
  constexpr double kLn2Hi = 6.93147180369123816490e-01, kLn2Lo = 1.90821492927058770002e-10;  // fdlibm
  constexpr double kInverseFactorials[] = {1.0 / 6227020800, 1.0 / 479001600, 1.0 / 39916800, 1.0 / 3628800,
                                           1.0 / 362880,     1.0 / 40320,     1.0 / 5040,     1.0 / 720,
                                           1.0 / 120,        1.0 / 24,        1.0 / 6,        0.5,
                                           1.0,              1.0};
  Doubles x;
  std::memcpy(&x, in, sizeof x);
  x = x - shift;  // no product to fuse with: the maximum's argument is exactly 0
  const Doubles t = x * 1.4426950408889634074 + kShifter;
  const Doubles n = t - kShifter;
  const Doubles r = (x - n * kLn2Hi) - n * kLn2Lo;  // n kLn2Hi is exact: kLn2Hi ends in 32 zero bits
  Doubles p = Doubles{} + kInverseFactorials[0];
  for (int i = 1; i < 14; ++i) p = p * r + kInverseFactorials[i];
  // Casts between vector types of one size reinterpret the bits (GCC, Clang). The low bits of t
  // hold n (a whole number from -1021 to 0 for the lanes kept): 2^n is (n + 1023) << 52.
  const Doubles two_to_n = (Doubles)(((Bits)t + 1023) << 52);
  const Bits kept = (Bits)(x >= kUnderflow);  // all bits set, or none (also for -inf and NaN)
  const Doubles e = (Doubles)((Bits)(p * two_to_n) & kept);
  std::memcpy(out, &e, sizeof e);
  sum += e;
}

double lane_sum(const Doubles& v) {
  double sum = 0;
  for (int i = 0; i < kLanes; ++i) sum += v[i];
  return sum;
}

double lane_max(const Doubles& v) {
  double max = v[0];
  for (int i = 1; i < kLanes; ++i) max = v[i] > max || v[i] != v[i] ? v[i] : max;
  return max;
}

}  // namespace

double scale_row(const double* in, double scale, double* out, Eigen::Index n) {
  constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();
  Doubles max = Doubles{} + kMinusInfinity;
  const Eigen::Index whole = n / kLanes * kLanes;
  for (Eigen::Index j = 0; j < whole; j += kLanes) scale_lanes(in + j, scale, out + j, max);
  tail(in, out, n, kMinusInfinity, [&](const double* i, double* o) { scale_lanes(i, scale, o, max); });
  return lane_max(max);
}

double exp_row(const double* in, double shift, double* out, Eigen::Index n) {
  Doubles sum = {};
  const Eigen::Index whole = n / kLanes * kLanes;
  for (Eigen::Index j = 0; j < whole; j += kLanes) exp_lanes(in + j, shift, out + j, sum);
  // Padding of -inf: its exponential is 0.
  tail(in, out, n, -std::numeric_limits<double>::infinity(),
       [&](const double* i, double* o) { exp_lanes(i, shift, o, sum); });
  return lane_sum(sum);
}

}  // namespace attnlab::row_exp
