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

/// The keys of one head laid out for scores(): panels of 8 keys, each panel's d_k rows of 8 numbers
/// contiguous (the last panel padded with zeros). Packed once per head, as the keys are projected,
/// where a general product packs K^T again for every block of queries.
struct PackedKeys {
  Eigen::Index keys = 0, depth = 0;
  Vector panels;
  /// Room for `keys` keys of `depth` numbers, to be filled by pack_keys() (the last panel zeroed:
  /// its padding).
  void resize(Eigen::Index keys, Eigen::Index depth);
};

/// Packs rows [r, r + len) of K (keys by depth) into `out` (already sized for all of K's rows).
void pack_keys(ConstRef K, Eigen::Index r, Eigen::Index len, PackedKeys& out);

/// S = Q K^T (Q: m by depth, S: m by keys), each entry a chain of multiply-adds (fused, with AVX2)
/// over the depth in order, so a block of rows gets the same bits as the whole. Attention's scores are
/// short products (depth = d_k) into a wide S: written once here, where OpenBLAS zeroes S first
/// and packs K^T for each call (docs/PERFORMANCE.md, "The scores' own kernel").
void scores(ConstRef Q, const PackedKeys& K, Ref S);

/// B narrow enough for multiply_narrow(): at most this many columns. There it was faster than
/// OpenBLAS on one thread (64 x 64 times 64 x 16: 4.6 -> 3.2 us; 256 x 256 x 32: 120 -> 105 us;
/// 128 x 512 x 64: 217 -> 190 us); wider, packing B for each call costs more than OpenBLAS's
/// blocking saves (128 x 512 x 512: 1.9 -> 2.5 ms).
constexpr Eigen::Index kNarrowColumns = 64;

/// B's columns as keys (the columns of K^T): C = A B is then scores(A, out, C). For a B packed once
/// and multiplied by several blocks of rows.
void pack_columns(ConstRef B, PackedKeys& out);

/// Rows [r, r + len) of B into `out`, already sized for all of B's columns (keys) and rows (depth):
/// a head's values packed block by block as they are projected, as pack_keys() does the keys.
void pack_rows(ConstRef B, Eigen::Index r, Eigen::Index len, PackedKeys& out);

/// True where multiply_narrow() runs the own kernel for a B `cols` wide: at most kNarrowColumns,
/// on a processor with AVX2. The one test of whether a product, or a B packed for scores(), goes
/// that way.
bool narrow(Eigen::Index cols);

/// C = A B through the scores' kernel, B's columns packed as keys first (one head's projections,
/// A V: B at most kNarrowColumns columns wide). Each entry is a chain over A's columns in order, so
/// rows computed alone get the bits of the whole product. Where the processor lacks AVX2, multiply()
/// (the plain loops are slower than OpenBLAS), without that promise.
void multiply_narrow(ConstRef A, ConstRef B, Ref C);

/// "OpenBLAS" or "Eigen": what multiply() runs on.
const char* backend();

}  // namespace attnlab::gemm
