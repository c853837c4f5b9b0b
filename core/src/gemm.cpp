#include "gemm.h"

#include <algorithm>
#include <cassert>

#if defined(ATTNLAB_HAVE_OPENBLAS)
#include <cblas.h>
extern "C" void openblas_set_num_threads(int);
#endif

namespace attnlab::gemm {

namespace {

#if defined(ATTNLAB_HAVE_OPENBLAS)
/// Each call is one thread's share of the work (attention.cpp), so OpenBLAS must not start its own.
void single_threaded_blas() {
  static const bool once = [] {
    openblas_set_num_threads(1);
    return true;
  }();
  (void)once;
}
#endif

#if defined(ATTNLAB_HAVE_OPENBLAS)
/// OpenBLAS (0.3.21, x86-64 with AVX-512) multiplies A B without packing either operand when
/// m n k <= 1e6 (its "small matrix" kernels). For the tall, thin products of attention, strips of
/// C's rows under that size were measured faster than one packed product: 1024 x 1024 weights times
/// 1024 x 64 values 3.3 -> 2.7 ms, 1024 x 512 inputs times a head's 512 x 64 W 1.84 -> 1.42 ms.
/// Strips are a multiple of 4 rows (7-row strips ran 1.5x slower than 4-row ones). 0: no strips.
Eigen::Index small_strip_rows(Eigen::Index n, Eigen::Index k) {
  constexpr double kSmallProduct = 1e6;
  const auto rows = static_cast<Eigen::Index>(kSmallProduct / (double(n) * double(k))) / 4 * 4;
  return rows >= 4 ? rows : 0;
}
#endif

/// C = A op(B). BLAS refuses empty matrices (a leading dimension of 0), so they are handled here.
void product(ConstRef A, ConstRef B, bool transpose_b, Ref C) {
  if (C.size() == 0) return;
  if (A.cols() == 0) {
    C.setZero();
    return;
  }
#if defined(ATTNLAB_HAVE_OPENBLAS)
  single_threaded_blas();
  const Eigen::Index strip = transpose_b ? 0 : small_strip_rows(C.cols(), A.cols());
  if (strip > 0 && C.rows() > strip) {
    for (Eigen::Index r = 0; r < C.rows(); r += strip) {
      const Eigen::Index rows = std::min(strip, C.rows() - r);
      product(A.middleRows(r, rows), B, false, C.middleRows(r, rows));
    }
    return;
  }
  const auto dim = [](Eigen::Index i) { return static_cast<int>(i); };
  cblas_dgemm(CblasRowMajor, CblasNoTrans, transpose_b ? CblasTrans : CblasNoTrans, dim(C.rows()), dim(C.cols()),
              dim(A.cols()), 1.0, A.data(), dim(A.outerStride()), B.data(), dim(B.outerStride()), 0.0, C.data(),
              dim(C.outerStride()));
#else
  if (transpose_b)
    C.noalias() = A * B.transpose();
  else
    C.noalias() = A * B;
#endif
}

}  // namespace

void multiply(ConstRef A, ConstRef B, Ref C) {
  assert(A.cols() == B.rows() && C.rows() == A.rows() && C.cols() == B.cols());
  product(A, B, false, C);
}

void multiply_transposed(ConstRef A, ConstRef B, Ref C) {
  assert(A.cols() == B.cols() && C.rows() == A.rows() && C.cols() == B.rows());
  product(A, B, true, C);
}

const char* backend() {
#if defined(ATTNLAB_HAVE_OPENBLAS)
  return "OpenBLAS";
#else
  return "Eigen";
#endif
}

}  // namespace attnlab::gemm
