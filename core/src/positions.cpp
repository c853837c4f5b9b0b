#include "attnlab/positions.h"

#include <cmath>

namespace attnlab::positional {

Matrix sinusoidal(const std::vector<double>& positions, long d) {
  Matrix pe(long(positions.size()), d);
  for (long c = 0; c < d; ++c) {
    const double frequency = std::pow(10000.0, -double(c - c % 2) / double(d));  // 10000^(-2i/d)
    for (long t = 0; t < pe.rows(); ++t) {
      const double angle = positions[std::size_t(t)] * frequency;
      pe(t, c) = c % 2 == 0 ? std::sin(angle) : std::cos(angle);
    }
  }
  return pe;
}

namespace {
/// 2^(-8k/n), k = 1 .. n (n a power of two).
std::vector<double> geometric_slopes(int n) {
  std::vector<double> slopes;
  for (int k = 1; k <= n; ++k) slopes.push_back(std::exp2(-8.0 * k / n));
  return slopes;
}
}  // namespace

std::vector<double> alibi_slopes(int heads) {
  int n = 1;
  while (n * 2 <= heads) n *= 2;
  std::vector<double> slopes = geometric_slopes(n);
  const std::vector<double> finer = geometric_slopes(2 * n);
  for (std::size_t k = 0; int(slopes.size()) < heads; k += 2) slopes.push_back(finer[k]);
  return slopes;
}

double rope_theta(int pair, int dims, double base) { return std::pow(base, -2.0 * pair / dims); }

std::pair<int, int> rope_pair(Rope::Style style, int pair, int dims) {
  return style == Rope::Style::half ? std::pair{pair, pair + dims / 2} : std::pair{2 * pair, 2 * pair + 1};
}

void rotate_rows(const Rope& rope, const Matrix& in, const std::vector<double>& positions, Eigen::Index first,
                 Eigen::Index count, Matrix& out) {
  out.middleRows(first, count) = in.middleRows(first, count);  // the coordinates past R pass unchanged
  for (int c = 0; c < rope.dims / 2; ++c) {
    const double theta = rope_theta(c, rope.dims, rope.base);
    const auto [x, y] = rope_pair(rope.style, c, rope.dims);
    for (Eigen::Index t = first; t < first + count; ++t) {
      const double angle = positions[std::size_t(t)] * theta, cos = std::cos(angle), sin = std::sin(angle);
      out(t, x) = in(t, x) * cos - in(t, y) * sin;
      out(t, y) = in(t, y) * cos + in(t, x) * sin;
    }
  }
}

}  // namespace attnlab::positional
