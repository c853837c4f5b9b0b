#pragma once
/// A softmax row's two vector passes, several lanes at a time (GCC/Clang vector extensions: AVX-512
/// with ATTNLAB_NATIVE on this machine, SSE2 in a portable build): scale and find the maximum,
/// then the exponentials and their sum.
///
/// Eigen's vectorised exp divides once per lane (a Pade approximant) and a softmax written with
/// Eigen passes over a row four or five times; at 64 keys the passes' set-up costs as much as the
/// exponentials.
#include <Eigen/Core>

namespace attnlab::row_exp {

/// Below this, exp_row() gives exactly 0 (exp(-708) ~ 3e-308 is the smallest it gives).
constexpr double kUnderflow = -708.0;

/// out[j] = scale * in[j], each rounded to a double, for 0 <= j < n; returns the largest (NaN when
/// one is NaN, -inf for n = 0). `in` and `out` may be the same row.
double scale_row(const double* in, double scale, double* out, Eigen::Index n);

/// out[j] = exp(in[j] - shift) for 0 <= j < n, and exactly 0 where in[j] - shift is below
/// kUnderflow (-inf included); returns the sum of out. Within 2 ulp of std::exp for arguments from
/// kUnderflow to 0, which is all a softmax passes when `shift` is the row's maximum: that element
/// gets exactly exp(0) = 1, however large the scores. `in` and `out` may be the same row.
double exp_row(const double* in, double shift, double* out, Eigen::Index n);

}  // namespace attnlab::row_exp
