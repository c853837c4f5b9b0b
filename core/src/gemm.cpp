#include "gemm.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#if defined(ATTNLAB_HAVE_OPENBLAS)
#include <cblas.h>
extern "C" void openblas_set_num_threads(int);
extern "C" char* openblas_get_corename(void);
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

/// OpenBLAS (0.3.21, x86-64 with AVX-512) multiplies A B without packing either operand when
/// m n k <= 1e6 (its "small matrix" kernels). For the tall, thin products of attention, strips of
/// C's rows under that size were measured faster than one packed product: 1024 x 1024 weights times
/// 1024 x 64 values 3.3 -> 2.7 ms, 1024 x 512 inputs times a head's 512 x 64 W 1.84 -> 1.42 ms,
/// 256 x 32 queries times 32 x 256 keys 90 -> 80 us. Not for wide C: 1024 x 64 times 64 x 1024 in
/// 12-row strips was slower (3.2 vs 3.0 ms). Strips are a multiple of 4 rows (7-row strips ran 1.5x
/// slower than 4-row ones). On a core without those kernels (an AMD EPYC with AVX2: "Zen") every
/// strip packs B again, and one product is faster (docs/PERFORMANCE.md). 0: no strips.
Eigen::Index small_strip_rows(Eigen::Index n, Eigen::Index k) {
  static const bool small_kernels = has_small_kernels(openblas_get_corename());
  constexpr double kSmallProduct = 1e6;
  constexpr Eigen::Index kWidest = 256;
  if (!small_kernels || n > kWidest) return 0;
  const auto rows = static_cast<Eigen::Index>(kSmallProduct / (double(n) * double(k))) / 4 * 4;
  return rows >= 4 ? rows : 0;
}
#endif

}  // namespace

bool has_small_kernels(const char* core) {
  for (const char* name : {"SkylakeX", "Cooperlake", "SapphireRapids"})
    if (core && std::strcmp(core, name) == 0) return true;
  return false;
}

void multiply_in_strips(ConstRef A, ConstRef B, Ref C, Eigen::Index rows) {
  assert(rows > 0);
  for (Eigen::Index r = 0; r < C.rows(); r += rows) {
    const Eigen::Index len = std::min(rows, C.rows() - r);
    multiply(A.middleRows(r, len), B, C.middleRows(r, len));
  }
}

void multiply(ConstRef A, ConstRef B, Ref C) {
  assert(A.cols() == B.rows() && C.rows() == A.rows() && C.cols() == B.cols());
  if (C.size() == 0) return;
  if (A.cols() == 0) {  // BLAS refuses a leading dimension of 0
    C.setZero();
    return;
  }
#if defined(ATTNLAB_HAVE_OPENBLAS)
  single_threaded_blas();
  const Eigen::Index strip = small_strip_rows(C.cols(), A.cols());
  if (strip > 0 && C.rows() > strip) return multiply_in_strips(A, B, C, strip);
  const auto dim = [](Eigen::Index i) { return static_cast<int>(i); };
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, dim(C.rows()), dim(C.cols()), dim(A.cols()), 1.0, A.data(),
              dim(A.outerStride()), B.data(), dim(B.outerStride()), 0.0, C.data(), dim(C.outerStride()));
#else
  C.noalias() = A * B;
#endif
}

const char* backend() {
#if defined(ATTNLAB_HAVE_OPENBLAS)
  return "OpenBLAS";
#else
  return "Eigen";
#endif
}

}  // namespace attnlab::gemm
