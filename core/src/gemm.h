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

/// C = A B as products of `rows` rows of C at a time (the last one shorter), each through multiply().
/// multiply() takes this path where OpenBLAS has small-matrix kernels (has_small_kernels()).
void multiply_in_strips(ConstRef A, ConstRef B, Ref C, Eigen::Index rows);

/// True when OpenBLAS's kernels for `core` (openblas_get_corename(), null: unknown) include the
/// small-matrix ones the strips are for: 0.3.21 has them for its AVX-512 cores only.
bool has_small_kernels(const char* core);

/// "OpenBLAS" or "Eigen": what multiply() runs on.
const char* backend();

}  // namespace attnlab::gemm
