#include "gemm.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include "cpu_features.h"
#if defined(ATTNLAB_X86_KERNELS)
#include <immintrin.h>
#endif

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

namespace {

constexpr Eigen::Index kPanel = 8;  ///< keys per panel: two AVX2 registers of doubles

/// A row of S against one panel, in a plain loop: for processors without AVX2.
void score_row_portable(const double* q, const double* panel, Eigen::Index depth, double* s, Eigen::Index cols) {
  for (Eigen::Index c = 0; c < cols; ++c) {
    double sum = 0.0;
    for (Eigen::Index k = 0; k < depth; ++k) sum += q[k] * panel[kPanel * k + c];
    s[c] = sum;
  }
}

#if defined(ATTNLAB_X86_KERNELS)
/// Rows [i, i + MR) of S against one panel: S[i + r][j0 + c] for c < cols (at most 8), each entry
/// a chain of fused multiply-adds over the depth, kept in two registers a row.
template <int MR>
ATTNLAB_AVX2_FMA void score_tile(const double* q, Eigen::Index q_stride, const double* panel, Eigen::Index depth,
                                 double* s, Eigen::Index s_stride, Eigen::Index cols) {
  __m256d lo[MR], hi[MR];
  // Unrolled over the rows so that the accumulators stay in registers (at -O1 and -O2 too).
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) lo[r] = hi[r] = _mm256_setzero_pd();
  for (Eigen::Index k = 0; k < depth; ++k) {
    const __m256d b_lo = _mm256_loadu_pd(panel + kPanel * k), b_hi = _mm256_loadu_pd(panel + kPanel * k + 4);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const __m256d a = _mm256_broadcast_sd(q + r * q_stride + k);
      lo[r] = _mm256_fmadd_pd(a, b_lo, lo[r]);
      hi[r] = _mm256_fmadd_pd(a, b_hi, hi[r]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    double* row = s + r * s_stride;
    if (cols == kPanel) {
      _mm256_storeu_pd(row, lo[r]);
      _mm256_storeu_pd(row + 4, hi[r]);
    } else {
      alignas(32) double out[kPanel];
      _mm256_store_pd(out, lo[r]);
      _mm256_store_pd(out + 4, hi[r]);
      std::memcpy(row, out, std::size_t(cols) * sizeof(double));
    }
  }
}

/// Rows [i, i + MR) of S, a panel at a time along the row.
template <int MR>
ATTNLAB_AVX2_FMA void score_rows(const double* q, Eigen::Index q_stride, const PackedKeys& K, double* s,
                                 Eigen::Index s_stride) {
  for (Eigen::Index j = 0; j < K.keys; j += kPanel)
    score_tile<MR>(q, q_stride, K.panels.data() + j * K.depth, K.depth, s + j, s_stride, std::min(kPanel, K.keys - j));
}

/// scores() with AVX2: tiles of 6 rows x 8 keys (12 accumulators: enough independent chains to keep
/// both FMA units busy; 4 x 8 ran at 24 GFLOP/s, 6 x 8 at 32.6), then one tile of the last 1 to 5
/// rows (row by row, the last 4 of 16 rows took as long as the 12 before them).
ATTNLAB_AVX2_FMA void scores_avx2(ConstRef Q, const PackedKeys& K, Ref S) {
  constexpr int kRows = 6;
  const Eigen::Index m = Q.rows(), qs = Q.outerStride(), ss = S.outerStride();
  Eigen::Index i = 0;
  for (; i + kRows <= m; i += kRows) score_rows<kRows>(Q.data() + i * qs, qs, K, S.data() + i * ss, ss);
  const double* q = Q.data() + i * qs;
  double* s = S.data() + i * ss;
  switch (m - i) {
    case 5: return score_rows<5>(q, qs, K, s, ss);
    case 4: return score_rows<4>(q, qs, K, s, ss);
    case 3: return score_rows<3>(q, qs, K, s, ss);
    case 2: return score_rows<2>(q, qs, K, s, ss);
    case 1: return score_rows<1>(q, qs, K, s, ss);
    default: return;
  }
}
#endif

}  // namespace

void PackedKeys::resize(Eigen::Index key_count, Eigen::Index key_depth) {
  keys = key_count;
  depth = key_depth;
  // Only the last panel is zeroed (its padding is multiplied, never stored): the window packs K
  // again at every edit, and zeroing all of it wrote 4 MB more at 1024 x 512 x 8.
  panels.resize((keys + kPanel - 1) / kPanel * kPanel * depth);
  panels.tail(keys > 0 ? kPanel * depth : 0).setZero();
}

void pack_keys(ConstRef K, Eigen::Index r, Eigen::Index len, PackedKeys& out) {
  assert(K.cols() == out.depth && r + len <= out.keys);
  for (Eigen::Index j = r; j < r + len; ++j) {
    double* panel = out.panels.data() + j / kPanel * kPanel * out.depth + j % kPanel;
    for (Eigen::Index k = 0; k < out.depth; ++k) panel[kPanel * k] = K(j, k);
  }
}

void pack_rows(ConstRef B, Eigen::Index r, Eigen::Index len, PackedKeys& out) {
  assert(B.cols() == out.keys && r + len <= out.depth);
  const Eigen::Index full = B.cols() / kPanel * kPanel, rest = B.cols() - full;
  for (Eigen::Index k = r; k < r + len; ++k) {  // a row of B at a time, read in order: its runs of 8
    const double* b = B.data() + k * B.outerStride();
    double* to = out.panels.data() + kPanel * k;  // the row's place in the first panel
    for (Eigen::Index j = 0; j < full; j += kPanel)  // a fixed size: two vector moves, not a call
      std::memcpy(to + j * out.depth, b + j, sizeof(double) * kPanel);
    std::copy(b + full, b + full + rest, to + full * out.depth);
  }
}

void pack_columns(ConstRef B, PackedKeys& out) {
  out.resize(B.cols(), B.rows());
  pack_rows(B, 0, B.rows(), out);
}

void scores(ConstRef Q, const PackedKeys& K, Ref S) {
  assert(Q.cols() == K.depth && S.rows() == Q.rows() && S.cols() == K.keys);
#if defined(ATTNLAB_X86_KERNELS)
  if (cpu::use_avx2_fma()) return scores_avx2(Q, K, S);
#endif
  for (Eigen::Index i = 0; i < Q.rows(); ++i)
    for (Eigen::Index j = 0; j < K.keys; j += kPanel)
      score_row_portable(Q.data() + i * Q.outerStride(), K.panels.data() + j / kPanel * kPanel * K.depth, K.depth,
                         S.data() + i * S.outerStride() + j, std::min(kPanel, K.keys - j));
}

bool narrow(Eigen::Index cols) { return cols <= kNarrowColumns && cpu::use_avx2_fma(); }

void multiply_narrow(ConstRef A, ConstRef B, Ref C) {
  assert(A.cols() == B.rows() && C.rows() == A.rows() && C.cols() == B.cols());
  if (!cpu::use_avx2_fma()) return multiply(A, B, C);
  thread_local PackedKeys columns;  // reused: no allocation per product
  pack_columns(B, columns);
  scores(A, columns, C);
}

const char* backend() {
#if defined(ATTNLAB_HAVE_OPENBLAS)
  return "OpenBLAS";
#else
  return "Eigen";
#endif
}

}  // namespace attnlab::gemm
