#pragma once
/// The matrix products of the attention core, on the calling thread: OpenBLAS when the build found
/// it (ATTNLAB_BLAS), Eigen's own product otherwise. attention.cpp splits the work across threads
/// itself, so each call here stays on one thread.
#include "attnlab/matrix.h"

namespace attnlab::gemm {

/// A row-major matrix or a block of one (rows or columns of it), without copying.
using ConstRef = Eigen::Ref<const Matrix, 0, Eigen::OuterStride<>>;
using Ref = Eigen::Ref<Matrix, 0, Eigen::OuterStride<>>;

/// C = A B (A: m by k, B: k by n, C: m by n).
void multiply(ConstRef A, ConstRef B, Ref C);

/// "OpenBLAS" or "Eigen": what multiply() runs on.
const char* backend();

}  // namespace attnlab::gemm
