#pragma once
/// The exponentials of softmax, four at a time, with their sum: most of the N x N stages' time
/// outside the products. Eigen's vectorised exp (Padé, with a division) and SLEEF's (Debian's
/// libsleef, every range checked) both took 2.0 to 2.2 ns a number on this AMD EPYC (AVX2, one
/// thread, rows of 1024 in cache); this one, for softmax's range only, 1.6 to 1.7, and the sum
/// comes without another pass (docs/PERFORMANCE.md).
#include <Eigen/Core>

namespace attnlab::kernels {

/// out[j] = exp(in[j] * scale - shift) for j < n (the product and the difference each rounded, as
/// when written out), and returns the sum of out. Within 2 ulps where the argument lies in
/// [-708, 709]; an argument below -708 (-inf: a masked key) gives exp(-708), about 3e-308, which
/// callers replace by 0. NaN stays NaN. Every entry gets the same bits wherever it lies in the row.
double exp_sum(const double* in, double scale, double shift, double* out, Eigen::Index n);

}  // namespace attnlab::kernels
