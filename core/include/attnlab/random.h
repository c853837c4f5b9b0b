#pragma once
/// Seeded random weights for the window's "randomize". Same seed, same numbers on every platform
/// (own generators on top of std::mt19937_64, whose output the standard fixes).
#include <cstdint>

#include "attnlab/matrix.h"
#include "attnlab/scenario.h"

namespace attnlab {

struct RandomSpec {
  enum class Kind { randint, normal, xavier };
  Kind kind = Kind::normal;
  std::uint64_t seed = 0;
  int low = 0, high = 3;       ///< randint: integers in [low, high)
  double mean = 0, stddev = 1; ///< normal
};

/// rows by cols matrix. Xavier: uniform in +-sqrt(6 / (rows + cols)).
Matrix random_matrix(int rows, int cols, const RandomSpec& spec, std::uint64_t stream);
/// Replaces every weight and bias present in the scenario (full or per head, W_o, b_o) with random
/// values of the same shape; identity projections stay identity. Deterministic in spec.seed.
void randomize_weights(Scenario& scenario, const RandomSpec& spec);

}  // namespace attnlab
