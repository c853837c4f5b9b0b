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

namespace {
/// Llama 3's rule (_compute_llama3_parameters): long wavelengths (low frequencies) divided by
/// `factor`, short ones kept, those between blended smoothly.
double llama3_divisor(const RopeScaling& s, double theta) {
  const double wavelen = 2 * M_PI / theta;
  const double low_freq_wavelen = s.original_positions / s.low_freq_factor;
  const double high_freq_wavelen = s.original_positions / s.high_freq_factor;
  if (wavelen > low_freq_wavelen) return s.factor;
  if (wavelen < high_freq_wavelen) return 1.0;
  const double smooth = (s.original_positions / wavelen - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
  return 1.0 / ((1 - smooth) / s.factor + smooth);  // theta' = (1 - smooth) theta / factor + smooth theta
}
}  // namespace

std::vector<double> rope_frequency_divisors(const Rope& rope, int dims, double longest_position) {
  const RopeScaling& s = rope.scaling;
  std::vector<double> divisors(std::size_t(dims / 2), 1.0);
  for (int c = 0; c < dims / 2; ++c) {
    double& d = divisors[std::size_t(c)];
    switch (s.kind) {
      case RopeScaling::Kind::none: break;
      case RopeScaling::Kind::linear: d = s.factor; break;
      case RopeScaling::Kind::llama3: d = llama3_divisor(s, rope_theta(c, dims, rope.base)); break;
      case RopeScaling::Kind::longrope: {
        const std::vector<double>& f = longest_position + 1 > s.original_positions ? s.long_factors : s.short_factors;
        if (std::size_t(c) < f.size()) d = f[std::size_t(c)];
        break;
      }
    }
  }
  return divisors;
}

std::vector<double> rope_frequencies(const Rope& rope, int dims, double longest_position) {
  std::vector<double> f = rope_frequency_divisors(rope, dims, longest_position);
  for (int c = 0; c < dims / 2; ++c) f[std::size_t(c)] = rope_theta(c, dims, rope.base) / f[std::size_t(c)];
  return f;
}

double rope_attention_factor(const Rope& rope) {
  return rope.scaling.kind == RopeScaling::Kind::longrope ? rope.scaling.attention_factor : 1.0;
}

void rotate_rows(const Rope& rope, const std::vector<double>& frequencies, const Matrix& in,
                 const std::vector<double>& positions, Eigen::Index first, Eigen::Index count, Matrix& out) {
  out.middleRows(first, count) = in.middleRows(first, count);  // the coordinates past R pass unchanged
  const double a = rope_attention_factor(rope);  // 1 but for longrope: then x a is exact
  for (int c = 0; c < rope.dims / 2; ++c) {
    const double theta = frequencies[std::size_t(c)];
    const auto [x, y] = rope_pair(rope.style, c, rope.dims);
    for (Eigen::Index t = first; t < first + count; ++t) {
      const double angle = positions[std::size_t(t)] * theta, cos = std::cos(angle) * a, sin = std::sin(angle) * a;
      out(t, x) = in(t, x) * cos - in(t, y) * sin;
      out(t, y) = in(t, y) * cos + in(t, x) * sin;
    }
  }
}

}  // namespace attnlab::positional
