#include "gemm.h"

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

/// C = A op(B). BLAS refuses empty matrices (a leading dimension of 0), so they are handled here.
void product(ConstRef A, ConstRef B, bool transpose_b, Ref C) {
  if (C.size() == 0) return;
  if (A.cols() == 0) {
    C.setZero();
    return;
  }
#if defined(ATTNLAB_HAVE_OPENBLAS)
  single_threaded_blas();
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
