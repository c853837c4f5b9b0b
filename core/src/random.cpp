#include "attnlab/random.h"

#include <cmath>
#include <random>

namespace attnlab {

namespace {

/// Uniform in [0, 1) from the top 53 bits: the same on every platform, unlike std distributions.
double uniform01(std::mt19937_64& gen) { return static_cast<double>(gen() >> 11) * 0x1.0p-53; }

/// Box-Muller; uses both uniforms per sample so the stream stays simple and reproducible.
double standard_normal(std::mt19937_64& gen) {
  const double u1 = 1.0 - uniform01(gen);  // (0, 1]: log stays finite
  const double u2 = uniform01(gen);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

double draw(std::mt19937_64& gen, const RandomSpec& spec, int rows, int cols) {
  switch (spec.kind) {
    case RandomSpec::Kind::randint: {
      const std::uint64_t span = static_cast<std::uint64_t>(std::max(1, spec.high - spec.low));
      return spec.low + static_cast<double>(gen() % span);
    }
    case RandomSpec::Kind::xavier: {
      const double bound = std::sqrt(6.0 / (rows + cols));
      return (2.0 * uniform01(gen) - 1.0) * bound;
    }
    default: return spec.mean + spec.stddev * standard_normal(gen);
  }
}

}  // namespace

Matrix random_matrix(int rows, int cols, const RandomSpec& spec, std::uint64_t stream) {
  std::mt19937_64 gen(spec.seed * 0x9E3779B97F4A7C15ull + stream);
  Matrix m(rows, cols);
  for (Eigen::Index k = 0; k < m.size(); ++k) m.data()[k] = draw(gen, spec, rows, cols);
  return m;
}

namespace {

void randomize(std::optional<Matrix>& m, const RandomSpec& spec, std::uint64_t stream) {
  if (m) *m = random_matrix(static_cast<int>(m->rows()), static_cast<int>(m->cols()), spec, stream);
}

void randomize(std::optional<Vector>& v, const RandomSpec& spec, std::uint64_t stream) {
  if (v) *v = random_matrix(static_cast<int>(v->size()), 1, spec, stream).col(0);
}

/// Each field gets its own stream, so resizing one leaves the others' numbers unchanged.
void randomize(Projections& p, const RandomSpec& spec, std::uint64_t base) {
  randomize(p.W_q, spec, base + 1);
  randomize(p.W_k, spec, base + 2);
  randomize(p.W_v, spec, base + 3);
  randomize(p.b_q, spec, base + 4);
  randomize(p.b_k, spec, base + 5);
  randomize(p.b_v, spec, base + 6);
}

}  // namespace

void randomize_weights(Scenario& scenario, const RandomSpec& spec) {
  randomize(scenario.full, spec, 0);
  for (std::size_t h = 0; h < scenario.heads.size(); ++h) randomize(scenario.heads[h], spec, 16 * (h + 1));
  randomize(scenario.W_o, spec, 7);
  randomize(scenario.b_o, spec, 8);
}

}  // namespace attnlab
