#pragma once
/// Where the tokens are: the math of positions shared by the core, the window and the exporters.
/// Sinusoidal encodings (Vaswani et al.), rotary embeddings (Su et al.) and ALiBi slopes (Press et al.).
#include <utility>
#include <vector>

#include "attnlab/matrix.h"
#include "attnlab/scenario.h"

namespace attnlab::positional {

/// PE(p, 2i) = sin(p / 10000^(2i/d)), PE(p, 2i+1) = cos(p / 10000^(2i/d)).
/// @return  positions.size() by d, one row per token (rows convention)
Matrix sinusoidal(const std::vector<double>& positions, long d);

/// The ALiBi paper's slopes for `heads` heads: 2^(-8k/H), k = 1 .. H, for H a power of two;
/// otherwise those of the power of two n below H, then every other slope of 2n's until there are H.
std::vector<double> alibi_slopes(int heads);

/// theta_c = base^(-2c/R): the angle pair c turns per position.
double rope_theta(int pair, int dims, double base);
/// The two coordinates pair c rotates: (c, c + R/2) in the half style, (2c, 2c + 1) interleaved.
std::pair<int, int> rope_pair(Rope::Style style, int pair, int dims);

/// The divisor of each pair's frequency under rope.scaling (1 for every pair without scaling), R/2 entries;
/// longrope chooses long_factors when the longest position + 1 exceeds original_positions, else short_factors
/// (Hugging Face's longrope_frequency_update: max(position_ids) + 1 > original_max_position_embeddings).
std::vector<double> rope_frequency_divisors(const Rope& rope, int dims, double longest_position);
/// Each pair's angle per position, theta_c / divisor_c: what rotate_rows() turns by. R/2 entries.
std::vector<double> rope_frequencies(const Rope& rope, int dims, double longest_position);
/// What cos and sin are multiplied by: longrope's attention_factor, else 1.
double rope_attention_factor(const Rope& rope);

/// out = the rows of `in` (n by d_k, rows convention) rotated by their tokens' positions: pair c
/// of row t turns by positions[t] frequencies[c] (rope_frequencies()), x' = a (x cos - y sin),
/// y' = a (y cos + x sin), a = rope_attention_factor(); coordinates from `rope.dims` on pass
/// unchanged. Rows [first, first + count) only.
void rotate_rows(const Rope& rope, const std::vector<double>& frequencies, const Matrix& in,
                 const std::vector<double>& positions, Eigen::Index first, Eigen::Index count, Matrix& out);

}  // namespace attnlab::positional
