#pragma once
/// The exponentials of a softmax row, several lanes at a time (GCC/Clang vector extensions: AVX-512
/// with ATTNLAB_NATIVE on this machine, SSE2 in a portable build).
///
/// Eigen's vectorised exp divides once per lane (a Pade approximant) and a softmax written with
/// Eigen passes over a row four or five times; at 64 keys the passes' set-up costs as much as the
/// exponentials. Here one pass gives the exponentials and their sum.
#include <Eigen/Core>

namespace attnlab::row_exp {

/// Below this, exp_row() gives exactly 0 (exp(-708) ~ 3e-308 is the smallest it gives).
constexpr double kUnderflow = -708.0;

/// out[j] = exp(scale * in[j] - shift) for 0 <= j < n, and exactly 0 where scale * in[j] - shift is
/// below kUnderflow (-inf included); returns the sum of out. Within 2 ulp of std::exp for arguments
/// from kUnderflow to 0, which is all a softmax passes when `shift` is the row's largest
/// scale * in[j]. `in` and `out` may be the same row.
double exp_row(const double* in, double scale, double shift, double* out, Eigen::Index n);

}  // namespace attnlab::row_exp
