#include "attnlab/attention.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "attnlab/numbering.h"
#include "attnlab/positions.h"
#include "cpu_features.h"
#include "exp_kernel.h"
#include "gemm.h"
#include "task_pool.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace attnlab {

namespace {

constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();
constexpr double kExpUnderflow = -708.0;  // below this kernels::exp_sum returns exp(-708), not 0

/// Rows of one head's N x N stages handled together: about 1 MB per stage (128 rows of 1024 keys),
/// few enough blocks that packing K and V for each block's products stays cheap (measured: 32 rows
/// spent ~1/8 of the time packing), small enough that a block's stages are still in cache.
Eigen::Index row_block(Eigen::Index n_z) {
  return std::clamp<Eigen::Index>(131072 / std::max<Eigen::Index>(n_z, 1), 32, 256);
}
/// Rows of X (or Z) one projection task multiplies by one head's W (d_in by d_out): an eighth of
/// the tokens, or more when that product would be under ~64k multiply-adds (smaller ones spent more
/// in each call's overhead than in multiplying: 64 tokens, 4 heads took 21 us on two threads in 48
/// tasks of 16 rows, 17 us in 12 tasks of 64), at most 256.
Eigen::Index projection_rows(Eigen::Index n, Eigen::Index d_in, Eigen::Index d_out) {
  const Eigen::Index enough = 65536 / std::max<Eigen::Index>(d_in * d_out, 1);
  return std::clamp<Eigen::Index>(std::max((n + 7) / 8, enough), 16, 256);
}
/// Heads one projection task multiplies together: all when a block of X is large enough that
/// packing it for each head costs more than the head's columns gain from a product of their own
/// (1024 x 512 x 8, blocks of 128 x 512: 30.8 -> 35 GFLOP/s together), else one (64 x 64 x 4:
/// together, blocks of 16 rows, 12% slower).
Eigen::Index projection_heads(Eigen::Index rows, Eigen::Index d_in, Eigen::Index H) {
  constexpr Eigen::Index kLargeBlock = 32768;  // numbers of X in a block: 256 KiB
  return rows * d_in >= kLargeBlock ? H : 1;
}
/// Rows of the output projection per task: at most 256, and small enough that each of the threads
/// gets several tasks (a whole output projection is one product: as one task it left a core idle).
Eigen::Index output_rows(Eigen::Index n) { return std::clamp<Eigen::Index>((n + 7) / 8, 16, 256); }
/// Below this many multiply-adds (~20 us) a trace is computed on the calling thread alone: waking
/// the pool's helper costs a few microseconds (task_pool.h).
constexpr double kParallelWork = 5e5;

/// Softmax of one row, `out = softmax(in)`, along the row: subtracts the row maximum before exp.
/// Returns false when the row has no finite maximum to normalise by. `in` and `out` must not alias.
template <typename In, typename Out>
bool softmax_row(const In& in, Out&& out) {
  const double max = in.maxCoeff();
  if (max == kMinusInfinity) {  // nothing allowed: all-zero weights
    out.setZero();
    return true;
  }
  if (std::isnan(max) || std::isinf(max)) {  // +inf or NaN scores (overflow): weights undefined
    out.setZero();
    return false;
  }
  // exp(in - max), vectorised. Below -708 (masked keys: -inf) the kernel gives exp(-708), ~3e-308,
  // so masked keys and keys that far below the maximum are then set to exactly 0 (a branch-free
  // pass over a row in cache), and only then summed.
  kernels::exp_sum(in.data(), 1.0, max, out.data(), in.size());
  const Eigen::Index n = in.size();
  for (Eigen::Index j = 0; j < n; ++j) out(j) = in(j) - max < kExpUnderflow ? 0.0 : out(j);
  out *= 1.0 / out.sum();  // one division a row, not one a cell
  return true;
}

/// Asks Linux to back a large, not yet touched matrix with 2 MiB pages: a fresh N x N stage then
/// costs a few page faults instead of one per 4 KiB (at 1024 x 512 x 8, 65536 faults, ~10% of
/// the compute). Only a hint; the values are unaffected.
void prefer_huge_pages(Matrix& m) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  const auto begin = reinterpret_cast<std::uintptr_t>(m.data());
  const std::uintptr_t end = begin + static_cast<std::uintptr_t>(m.size()) * sizeof(double);
  const std::uintptr_t first = (begin + kHuge - 1) & ~(kHuge - 1), last = end & ~(kHuge - 1);
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)m;
#endif
}

/// Resizes to rows x cols; a new allocation of a large matrix asks for huge pages before first use.
void resize_stage(Matrix& m, Eigen::Index rows, Eigen::Index cols) {
  const double* before = m.data();
  m.resize(rows, cols);
  if (m.data() != before) prefer_huge_pages(m);
}

void warn_unattending_queries(const Model& model, std::vector<std::string>& warnings) {
  for (Eigen::Index i = 0; i < model.allowed.rows(); ++i)
    if (!model.allowed.row(i).any())
      warnings.push_back("query " + model.query_label(i) + " (#" + std::to_string(i) +
                         ") may attend no key: its weights and head outputs are all zero");
}

/// One thread's scratch: a row of masked scores, and for the columns layout the block's scores and
/// weights, computed as rows and stored transposed.
struct Scratch {
  Eigen::RowVectorXd masked;
  Matrix scores, weights;
};

/// ALiBi for one query: its head's slope, its position and the keys' positions; and the softcap.
struct AlibiRow {
  double slope = 0, position = 0;
  const double* keys = nullptr;  ///< null: no ALiBi
  double softcap = 0;            ///< > 0: the scaled scores capped (Gemma 2) before the bias
};

/// weights_row() with a softcap: S'' = softcap tanh(scale S / softcap) + ALiBi's bias, -inf where
/// forbidden. A path of its own, so the rows without a softcap keep their vectorised one.
template <typename Out>
bool capped_weights_row(const double* __restrict S, const bool* __restrict allowed, double scale,
                        const AlibiRow& row, Eigen::RowVectorXd& masked, Out&& A) {
  double* __restrict m = masked.data();
  for (Eigen::Index j = 0; j < masked.size(); ++j) {
    const double bias = row.keys ? -row.slope * std::abs(row.position - row.keys[j]) : 0.0;
    m[j] = allowed[j] ? softcapped_logit(S[j], scale, row.softcap, bias) : kMinusInfinity;
  }
  return softmax_row(masked, A);
}

/// A = softmax(S'') for one query, S'' = scale S (+ ALiBi's bias) or -inf where forbidden: the
/// masked stage lives only in `masked` (one row, in cache). Returns false when the row's scores are
/// not finite.
template <typename Out>
bool weights_row(const double* __restrict S, const bool* __restrict allowed, double scale, const AlibiRow& alibi,
                 Eigen::RowVectorXd& masked, Out&& A) {
  const Eigen::Index n = masked.size();
  if (alibi.softcap > 0) return capped_weights_row(S, allowed, scale, alibi, masked, A);
  if (alibi.keys) {  // -m |p_i - c_j| added to the scaled scores, before the mask
    double* __restrict m = masked.data();
    for (Eigen::Index j = 0; j < n; ++j)
      m[j] = allowed[j] ? biased_logit(S[j], scale, -alibi.slope * std::abs(alibi.position - alibi.keys[j]))
                        : kMinusInfinity;
    return softmax_row(masked, A);
  }
  if (!std::memchr(allowed, false, static_cast<std::size_t>(n))) {  // nothing masked: vectorised
    const auto s = Eigen::Map<const Eigen::RowVectorXd>(S, n);
    // scale > 0 (resolve()), so the largest of scale S is scale max(S), exactly. When no key lies
    // so far below it that exp underflows, one pass gives the exponentials and their sum, and one
    // more the weights (the same values as softmax_row, without its copy and clean-up passes).
    const double hi = s.maxCoeff() * scale, lo = s.minCoeff() * scale;
    if (std::isfinite(hi) && lo - hi >= kExpUnderflow) {
      A *= 1.0 / kernels::exp_sum(S, scale, hi, A.data(), n);
      return true;
    }
    masked = s * scale;
  } else {
    double* __restrict m = masked.data();
    for (Eigen::Index j = 0; j < n; ++j) m[j] = allowed[j] ? S[j] * scale : kMinusInfinity;
  }
  return softmax_row(masked, A);
}

/// dst = src^T, in square tiles: reading a column of a large row-major block touches a new cache
/// line (and often a new page) per element; a tile's rows and columns both stay in L1. At
/// 2048 x 512 x 8 in the columns layout, each head's scores and weights are written this way.
void transpose_tiled(gemm::ConstRef src, gemm::Ref dst) {
  constexpr Eigen::Index kTile = 32;
  for (Eigen::Index i0 = 0; i0 < src.rows(); i0 += kTile)
    for (Eigen::Index j0 = 0; j0 < src.cols(); j0 += kTile) {
      const Eigen::Index rows = std::min(kTile, src.rows() - i0), cols = std::min(kTile, src.cols() - j0);
      dst.block(j0, i0, cols, rows) = src.block(i0, j0, rows, cols).transpose();
    }
}

/// Which N x N stages compute_rows() computes; the others `out` already holds (rows layout).
struct RowStages {
  bool scores = true, weights = true;
};

/// One head's keys and values as compute_rows() reads them: K packed for gemm::scores(), V packed
/// the same way where narrow (null: V multiplied by OpenBLAS).
struct KeysValues {
  const gemm::PackedKeys& K;
  const Matrix& V;
  const gemm::PackedKeys* V_packed;
};

/// Rows [r, r + b) of one head's N x N stages, computed while they are in cache:
///   S = Q K^T,  A = softmax_rows(scale S, -inf where masked),  Y = A V.
/// Q, V, Y are in the rows layout, K is packed for gemm::scores(). S and A are written to `out` (rows
/// layout) or to `scratch` and then transposed into `out` (columns). Marks `nonfinite[i]` for a
/// query whose scores overflowed.
void compute_rows(const Model& model, std::size_t head, const Matrix& Q, const KeysValues& kv, Eigen::Index r,
                  Eigen::Index b, Layout layout, RowStages stages, HeadTrace& out, gemm::Ref Y, Scratch& scratch,
                  char* nonfinite) {
  const bool rows = layout == Layout::rows;
  const Eigen::Index n_z = kv.K.keys;
  scratch.masked.resize(n_z);
  if (!rows)
    for (Matrix* m : {&scratch.scores, &scratch.weights})
      if (m->rows() < b || m->cols() != n_z) m->resize(b, n_z);
  auto S = rows ? out.scores.middleRows(r, b) : scratch.scores.topRows(b);
  auto A = rows ? out.weights.middleRows(r, b) : scratch.weights.topRows(b);
  if (stages.scores) gemm::scores(Q.middleRows(r, b), kv.K, S);  // S = Q K^T: b by n_z
  if (stages.weights)
    for (Eigen::Index i = 0; i < b; ++i) {
      AlibiRow alibi;
      if (!model.slopes.empty())
        alibi = {model.slopes[head], model.query_positions[std::size_t(r + i)], model.key_positions.data()};
      alibi.softcap = model.softcap;
      nonfinite[r + i] = !weights_row(&S(i, 0), &model.allowed(r + i, 0), model.scale, alibi, scratch.masked, A.row(i));
    }
  if (kv.V_packed) gemm::scores(A, *kv.V_packed, Y.middleRows(r, b));  // Y = A V: b by d_v
  else gemm::multiply(A, kv.V, Y.middleRows(r, b));  // not narrow (allocate())
  if (!rows) {
    transpose_tiled(S, out.scores.middleCols(r, b));
    transpose_tiled(A, out.weights.middleCols(r, b));
  }
}

}  // namespace

Matrix softmax_rows(const Matrix& logits) {
  Matrix out(logits.rows(), logits.cols());
  for (Eigen::Index i = 0; i < out.rows(); ++i) softmax_row(logits.row(i), out.row(i));
  return out;
}

namespace {

/// One head's stages a trace already holds for a new model: what it would compute again the same.
/// The *_rows flags: kept but for the blocks of rows that hold a changed row (Unchanged's lists).
struct HeadKept {
  bool Q = false, K = false, V = false, scores = false, weights = false, outputs = false;
  bool Q_rows = false, K_rows = false, V_rows = false;  ///< only X's (Z's) changed rows' blocks
  bool weight_rows = false;  ///< scores kept, weights only for the query rows whose mask changed
  bool output_rows = false;  ///< outputs only for those rows' blocks (weight_rows, V kept)
};

/// The stages a trace already holds, per head (an edit of one head's weights keeps the others').
struct Unchanged {
  std::vector<HeadKept> heads;  ///< empty: none
  bool output = false;
  bool output_rows = false;  ///< the output projection only for the blocks of `mask_rows`
  /// When few rows changed: 1 for each changed row of X, of the keys (Z, or X), of the mask.
  std::vector<char> x_rows, z_rows, mask_rows;
  HeadKept head(Eigen::Index h) const { return heads.empty() ? HeadKept{} : heads[std::size_t(h)]; }
  bool all(bool HeadKept::*stage) const {
    return !heads.empty() && std::all_of(heads.begin(), heads.end(), [stage](const HeadKept& k) { return k.*stage; });
  }
  bool any(bool HeadKept::*stage) const {
    return std::any_of(heads.begin(), heads.end(), [stage](const HeadKept& k) { return k.*stage; });
  }
};

/// Bit-for-bit equality, a contiguous run (a row of a row-major matrix) at a time: memcmp is several
/// times faster than comparing coefficients, and where it errs (0 against -0) it only costs a
/// recompute. Both must be stored alike with inner stride 1 (matrices, their blocks, vectors).
template <typename A, typename B>
bool equal(const A& a, const B& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  if (a.size() == 0) return true;
  const Eigen::Index runs = A::IsRowMajor ? a.rows() : a.cols(), run = A::IsRowMajor ? a.cols() : a.rows();
  for (Eigen::Index i = 0; i < runs; ++i)
    if (std::memcmp(a.data() + i * a.outerStride(), b.data() + i * b.outerStride(),
                    std::size_t(run) * sizeof(typename A::Scalar)) != 0)
      return false;
  return true;
}

bool equal(const SharedMatrix& a, const SharedMatrix& b) {
  return a == b || (a && b && equal(*a, *b));
}

/// 1 for each row in which `a` and `b` (same shapes) differ, when they differ in at most an eighth
/// of their rows (a cell of X edited, a row of the mask toggled); otherwise empty: recompute all.
template <typename A, typename B>
std::vector<char> few_changed_rows(const A& a, const B& b) {
  std::vector<char> changed;
  if (a.rows() != b.rows() || a.cols() != b.cols() || a.size() == 0) return changed;
  changed.assign(std::size_t(a.rows()), 0);
  Eigen::Index count = 0;
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    if (!equal(a.row(i), b.row(i))) changed[std::size_t(i)] = 1, ++count;
  if (count == 0 || count > a.rows() / 8) changed.clear();
  return changed;
}

std::vector<char> few_changed_rows(const SharedMatrix& a, const SharedMatrix& b) {
  return a && b ? few_changed_rows(*a, *b) : std::vector<char>{};
}

/// True when rows [r, r + len) hold a changed row.
bool touched(const std::vector<char>& changed, Eigen::Index r, Eigen::Index len) {
  return std::memchr(changed.data() + r, 1, std::size_t(len)) != nullptr;
}

/// What head h of a trace computed from `was` keeps for `m`, given what changed in the inputs.
HeadKept head_kept(const Unchanged& u, const Model& was, const Model& m, int h, bool X, bool keys, bool rope,
                   bool mask) {
  const HeadWeights a = was.head(std::size_t(h)), b = m.head(std::size_t(h));
  HeadKept k;
  const bool W_q = rope && equal(a.W_q, b.W_q) && equal(a.b_q, b.b_q);
  const bool W_k = rope && equal(a.W_k, b.W_k) && equal(a.b_k, b.b_k);
  const bool W_v = equal(a.W_v, b.W_v) && equal(a.b_v, b.b_v);
  k.Q = X && W_q;
  k.K = keys && W_k;
  k.V = keys && W_v;
  k.Q_rows = !k.Q && W_q && !u.x_rows.empty();
  k.K_rows = !k.K && W_k && !u.z_rows.empty();
  k.V_rows = !k.V && W_v && !u.z_rows.empty();
  k.scores = k.Q && k.K;
  k.weights = k.scores && mask;
  k.weight_rows = k.scores && !u.mask_rows.empty();
  const bool off = was.is_off(std::size_t(h)) == m.is_off(std::size_t(h));
  k.outputs = k.weights && k.V && off;
  k.output_rows = k.weight_rows && k.V && off;
  return k;
}

/// True when QK-norm turns the same projections into the same normalised ones: the same norm and,
/// over the whole width, the same W_q, b_q, W_k, b_k (every head's share each row's mean).
bool same_qk_norm(const Model& was, const Model& m) {
  if (was.qk_norm.has_value() != m.qk_norm.has_value()) return false;
  if (!m.qk_norm) return true;
  const QkNorm &a = *was.qk_norm, &b = *m.qk_norm;
  if (a.scope != b.scope || a.plus_one != b.plus_one || a.eps != b.eps || !equal(a.w_q, b.w_q) || !equal(a.w_k, b.w_k))
    return false;
  return b.scope == QkNorm::Scope::head ||
         (equal(was.W_q, m.W_q) && equal(was.b_q, m.b_q) && equal(was.W_k, m.W_k) && equal(was.b_k, m.b_k));
}

/// Compares the inputs of each stage with those `t` was computed from. Only the rows layout keeps
/// stages (the columns layout computes in scratch matrices and transposes).
Unchanged unchanged_stages(const Trace& t, const Model& m, Layout layout) {
  Unchanged u;
  const Model* was = t.computed_from.get();
  if (!was || layout != Layout::rows || t.layout != Layout::rows || was->num_heads != m.num_heads ||
      was->num_kv_heads != m.num_kv_heads || was->d_k != m.d_k || was->d_v != m.d_v)
    return u;
  const bool X = equal(was->X, m.X);
  const bool keys = (was->Z == nullptr) == (m.Z == nullptr) && equal(was->keys(), m.keys());
  // RoPE turns Q and K by the positions (computed in the same tasks); ALiBi's bias reads them too.
  const bool positions = was->query_positions == m.query_positions && was->key_positions == m.key_positions;
  const bool rope = was->rope.has_value() == m.rope.has_value() &&
                    (!m.rope || (positions && was->rope->style == m.rope->style && was->rope->base == m.rope->base &&
                                 was->rope->dims == m.rope->dims && was->rope->scaling == m.rope->scaling &&
                                 was->rope_frequencies == m.rope_frequencies)) &&
                    same_qk_norm(*was, m);
  const bool alibi = was->slopes == m.slopes && (m.slopes.empty() || positions);
  const bool allowed = equal(was->allowed, m.allowed);
  const bool mask = was->scale == m.scale && was->softcap == m.softcap && allowed && alibi;
  if (!X) u.x_rows = few_changed_rows(was->X, m.X);
  if (!keys && (was->Z == nullptr) == (m.Z == nullptr)) u.z_rows = m.Z ? few_changed_rows(was->Z, m.Z) : u.x_rows;
  if (was->scale == m.scale && was->softcap == m.softcap && !allowed && alibi) u.mask_rows = few_changed_rows(was->allowed, m.allowed);
  for (int h = 0; h < m.num_heads; ++h) u.heads.push_back(head_kept(u, *was, m, h, X, keys, rope, mask));
  const bool W_o = equal(was->W_o, m.W_o) && equal(was->b_o, m.b_o);
  u.output = u.all(&HeadKept::outputs) && W_o;
  u.output_rows = !u.output && W_o && std::all_of(u.heads.begin(), u.heads.end(), [](const HeadKept& k) {
                    return k.outputs || k.output_rows;
                  });
  return u;
}

/// The work of compute_into(), in the rows layout: who computes what, where it goes.
struct Plan {
  const Model& model;
  Trace& t;
  bool rows;  ///< the trace's layout is rows: its matrices are written in place
  Eigen::Index H, n_x, n_z, d_k, d_v;
  Eigen::Index proj_rows, proj_blocks;  ///< projection tasks: row blocks of X (or Z)
  Eigen::Index proj_heads, proj_groups;  ///< ... and groups of heads multiplied together
  Eigen::Index block, blocks;           ///< N x N tasks: blocks of query rows
  Eigen::Index out_rows, out_blocks;    ///< output projection tasks: row blocks of concat
  // Rows-layout matrices for the columns layout, transposed into the trace at the end.
  std::vector<Matrix> Q_rows, K_rows, V_rows, Qr_rows, Kr_rows, Qn_rows, Kn_rows;
  /// Each head's keys (rotated with RoPE) packed for gemm::scores(), as they are projected.
  std::vector<gemm::PackedKeys> K_packed;
  /// Each head's V packed for gemm::scores() as it is projected, where narrow (gemm::narrow());
  /// empty otherwise.
  std::vector<gemm::PackedKeys> V_packed;
  /// Each head's block of W_q, W_k and W_v ([which * H + h]) packed once where several blocks of
  /// rows multiply it (packs_head_weights(), pack_weights_task()); empty otherwise.
  std::vector<gemm::PackedKeys> W_panels;
  gemm::PackedKeys W_o_panels;  ///< W_o's columns packed, where narrow (pack_output_weights())
  Matrix concat_rows, output_rows;
  Unchanged kept;  ///< stages the trace already holds

  Matrix& Q(Eigen::Index h) { return rows ? t.heads[std::size_t(h)].Q : Q_rows[std::size_t(h)]; }
  Matrix& K(Eigen::Index h) { return rows ? t.heads[std::size_t(h)].K : K_rows[std::size_t(h)]; }
  Matrix& V(Eigen::Index h) { return rows ? t.heads[std::size_t(h)].V : V_rows[std::size_t(h)]; }
  Matrix& Q_rot(Eigen::Index h) { return rows ? t.heads[std::size_t(h)].Q_rot : Qr_rows[std::size_t(h)]; }
  Matrix& K_rot(Eigen::Index h) { return rows ? t.heads[std::size_t(h)].K_rot : Kr_rows[std::size_t(h)]; }
  Matrix& Q_norm(Eigen::Index h) { return rows ? t.heads[std::size_t(h)].Q_norm : Qn_rows[std::size_t(h)]; }
  Matrix& K_norm(Eigen::Index h) { return rows ? t.heads[std::size_t(h)].K_norm : Kn_rows[std::size_t(h)]; }
  /// What RoPE turns: the normalised queries and keys with QK-norm, else Q and K.
  Matrix& Q_turned(Eigen::Index h) { return model.qk_norm ? Q_norm(h) : Q(h); }
  Matrix& K_turned(Eigen::Index h) { return model.qk_norm ? K_norm(h) : K(h); }
  /// What the scores read: the rotated queries and keys with RoPE, else those RoPE would turn.
  Matrix& Q_scores(Eigen::Index h) { return model.rope ? Q_rot(h) : Q_turned(h); }
  Matrix& K_scores(Eigen::Index h) { return model.rope ? K_rot(h) : K_turned(h); }
  Matrix& concat() { return rows ? t.concat : concat_rows; }
  Matrix& output() { return rows ? t.output : output_rows; }
  /// Head h's outputs Y_h, n_x by d_v: a block of the concatenation.
  auto Y(Eigen::Index h) { return concat().middleCols(h * d_v, d_v); }
};

Plan make_plan(const Model& model, Layout layout, Trace& t, Unchanged kept) {
  const Eigen::Index H = model.num_heads, n_x = model.X->rows(), n_z = model.keys().rows();
  Plan p{model, t, layout == Layout::rows, H, n_x, n_z, model.d_k, model.d_v, 0, 0, 0, 0, 0, 0, 0, 0,
         {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, kept};
  const Eigen::Index d_in = std::max(model.X->cols(), model.keys().cols());
  p.proj_rows = projection_rows(std::max(n_x, n_z), d_in, std::max(p.d_k, p.d_v));
  p.proj_blocks = (std::max(n_x, n_z) + p.proj_rows - 1) / p.proj_rows;
  p.proj_heads = projection_heads(p.proj_rows, d_in, H);
  p.proj_groups = (H + p.proj_heads - 1) / p.proj_heads;
  p.block = row_block(n_z);
  p.blocks = (n_x + p.block - 1) / p.block;
  p.out_rows = output_rows(n_x);
  p.out_blocks = (n_x + p.out_rows - 1) / p.out_rows;
  if (!kept.any(&HeadKept::weights) && !kept.any(&HeadKept::weight_rows)) t.nonfinite.assign(std::size_t(H * n_x), 0);
  return p;
}

/// True where each head multiplies its own narrow block of W_q, W_k and W_v by several blocks of
/// rows: packing the block for each (as multiply_narrow() does) took a tenth of 256 x 256 x 8's time.
bool packs_head_weights(const Plan& p) {
  return !p.model.given && p.proj_heads == 1 && p.proj_blocks > 1 && gemm::narrow(std::max(p.d_k, p.d_v));
}

/// Sizes every matrix first (untouched memory is cheap), so the parallel tasks only fill.
void allocate(Plan& p) {
  p.t.heads.resize(std::size_t(p.H));
  p.K_packed.resize(std::size_t(p.H));
  if (!p.rows)
    for (auto* v : {&p.Q_rows, &p.K_rows, &p.V_rows, &p.Qr_rows, &p.Kr_rows, &p.Qn_rows, &p.Kn_rows})
      v->resize(std::size_t(p.H));
  const Eigen::Index rotated = p.model.rope ? 1 : 0;  // Q_rot and K_rot only with RoPE
  const Eigen::Index normed = p.model.qk_norm ? 1 : 0;  // Q_norm and K_norm only with QK-norm
  for (Eigen::Index h = 0; h < p.H; ++h) {
    HeadTrace& ht = p.t.heads[std::size_t(h)];
    ht.kv_head = p.model.kv_head(std::size_t(h));
    p.Q_rot(h).resize(p.n_x * rotated, p.d_k * rotated);
    p.K_rot(h).resize(p.n_z * rotated, p.d_k * rotated);
    p.Q_norm(h).resize(p.n_x * normed, p.d_k * normed);
    p.K_norm(h).resize(p.n_z * normed, p.d_k * normed);
    if (!p.rows) ht.Q_rot.resize(0, 0), ht.K_rot.resize(0, 0);  // transposed in at the end
    if (!p.rows) ht.Q_norm.resize(0, 0), ht.K_norm.resize(0, 0);
    for (Matrix* m : {&ht.scores, &ht.weights}) resize_stage(*m, p.rows ? p.n_x : p.n_z, p.rows ? p.n_z : p.n_x);
    p.Q(h).resize(p.n_x, p.d_k);
    p.K(h).resize(p.n_z, p.d_k);
    p.K_packed[std::size_t(h)].resize(p.n_z, p.d_k);
    p.V(h).resize(p.n_z, p.d_v);
  }
  if (packs_head_weights(p)) p.W_panels.resize(std::size_t(3 * p.H));
  if (gemm::narrow(p.d_v)) {  // A V through the own kernel
    p.V_packed.resize(std::size_t(p.H));
    for (gemm::PackedKeys& V : p.V_packed) V.resize(p.d_v, p.n_z);
  }
  p.concat().resize(p.n_x, p.d_v * p.H);  // [Y_1 ... Y_H]
  if (p.model.has_W_o()) p.output().resize(p.n_x, p.model.W_o->cols());
}

/// Which heads a loop of tasks computes: only one (the head shown first), or all but one.
struct HeadSet {
  Eigen::Index only = -1, skip = -1;
  bool has(Eigen::Index h) const { return only >= 0 ? h == only : h != skip; }
};

enum Projection : int { kQ, kK, kV };

Matrix& projected(Plan& p, Eigen::Index h, int which) {
  return which == kQ ? p.Q(h) : which == kK ? p.K(h) : p.V(h);
}

/// True when head h's projection `which` must be computed for rows [r, r + len): a block is kept
/// whole, or kept but for its rows' changes (then recomputed whole: the same products as a full
/// computation, so the same bits).
bool needs_projection(const Plan& p, Eigen::Index h, int which, Eigen::Index r, Eigen::Index len) {
  const HeadKept kept = p.kept.head(h);
  const auto keeps = [&](bool whole, bool but_rows, const std::vector<char>& changed) {
    return whole || (but_rows && !touched(changed, r, len));
  };
  if (which == kQ) return !keeps(kept.Q, kept.Q_rows, p.kept.x_rows);
  if (which == kK) return !keeps(kept.K, kept.K_rows, p.kept.z_rows);
  return !keeps(kept.V, kept.V_rows, p.kept.z_rows);
}

/// The first of the columns of W_q, W_k or W_v that head h reads (its key/value head's for K, V).
Eigen::Index first_column(const Plan& p, Eigen::Index h, int which) {
  const Eigen::Index g = p.model.kv_head(std::size_t(h));
  return which == kQ ? h * p.d_k : which == kK ? g * p.d_k : g * p.d_v;
}

/// A head's own product for one block of rows (no group of heads): the core's own kernel where its
/// block of W is narrow (gemm::narrow()), from the block packed once (pack_weights_task()) or packing
/// it now; OpenBLAS's otherwise. The choice depends on the width only, so rows recomputed after an
/// edit take the kernel, and the bits, of the whole.
void project_head(Plan& p, Eigen::Index h, int which, gemm::ConstRef in, gemm::ConstRef W, gemm::Ref out) {
  if (!p.W_panels.empty()) return gemm::scores(in, p.W_panels[std::size_t(which * p.H + h)], out);
  if (gemm::narrow(W.cols())) gemm::multiply_narrow(in, W, out);
  else gemm::multiply(in, W, out);
}

/// Packing task `which * H + h`: head h's block of W_q, W_k or W_v packed once, where it multiplies
/// several blocks of rows (packs_head_weights()), if any of them is computed.
void pack_weights_task(Plan& p, Eigen::Index task, HeadSet heads) {
  const int which = int(task / p.H);
  const Eigen::Index h = task % p.H, rows = which == kQ ? p.n_x : p.n_z, width = which == kV ? p.d_v : p.d_k;
  bool needed = false;
  for (Eigen::Index r = 0; r < rows && !needed; r += p.proj_rows)
    needed = needs_projection(p, h, which, r, std::min(p.proj_rows, rows - r));
  if (!heads.has(h) || !needed) return;
  const Matrix& W = which == kQ ? *p.model.W_q : which == kK ? *p.model.W_k : *p.model.W_v;
  gemm::pack_columns(W.middleCols(first_column(p, h, which), width), p.W_panels[std::size_t(task)]);
}

/// QK-norm of head h's rows [r, r + len) of Q or K: q / sqrt(mean(q^2) + eps) * w, the mean over
/// the head's d_k or, over the whole width, the one found before the heads (width_inverse_rms()).
void normalise_rows(Plan& p, Eigen::Index h, int which, Eigen::Index r, Eigen::Index len) {
  const QkNorm& norm = *p.model.qk_norm;
  const bool query = which == kQ;
  const Vector gain = qk_norm_gain(norm, query, query ? h : p.model.kv_head(std::size_t(h)), p.d_k);
  const std::vector<double>& width_rms = query ? p.t.q_inverse_rms : p.t.k_inverse_rms;
  const Matrix& in = projected(p, h, which);
  Matrix& out = query ? p.Q_norm(h) : p.K_norm(h);
  for (Eigen::Index t = r; t < r + len; ++t) {
    const double inverse = width_rms.empty() ? inverse_rms(in.row(t), norm.eps) : width_rms[std::size_t(t)];
    out.row(t) = (in.row(t) * inverse).cwiseProduct(gain.transpose());
  }
}

/// Head h's rows [r, r + len) after their product: the bias added, QK-norm, RoPE's turn; the keys packed.
void finish_projection(Plan& p, Eigen::Index h, int which, Eigen::Index r, Eigen::Index len, bool computed) {
  const std::optional<Rope>& rope = p.model.rope;
  if (computed) {
    const Vector& b = which == kQ ? p.model.b_q : which == kK ? p.model.b_k : p.model.b_v;
    if (!p.model.given)  // given projections hold their biases
      projected(p, h, which).middleRows(r, len).rowwise() += b.segment(first_column(p, h, which), which == kV ? p.d_v : p.d_k).transpose();
    if (p.model.qk_norm && which != kV) normalise_rows(p, h, which, r, len);
    const std::vector<double>& f = p.model.rope_frequencies;
    if (rope && which == kQ) positional::rotate_rows(*rope, f, p.Q_turned(h), p.model.query_positions, r, len, p.Q_rot(h));
    if (rope && which == kK) positional::rotate_rows(*rope, f, p.K_turned(h), p.model.key_positions, r, len, p.K_rot(h));
  }
  if (which == kK && !p.kept.head(h).scores) gemm::pack_keys(p.K_scores(h), r, len, p.K_packed[std::size_t(h)]);
  if (which == kV && !p.V_packed.empty() && !p.kept.head(h).outputs)
    gemm::pack_rows(p.V(h), r, len, p.V_packed[std::size_t(h)]);
}

/// project_task() with given projections: each head's columns of the block copied, then finished.
void given_task(Plan& p, Eigen::Index task, HeadSet heads) {
  const int which = int(task / (p.proj_blocks * p.proj_groups));
  const Eigen::Index r = task / p.proj_groups % p.proj_blocks * p.proj_rows;
  const Eigen::Index group = task % p.proj_groups * p.proj_heads, group_end = std::min(p.H, group + p.proj_heads);
  const Matrix& given = which == kQ ? p.model.given->Q : which == kK ? p.model.given->K : p.model.given->V;
  if (r >= given.rows()) return;
  const Eigen::Index len = std::min(p.proj_rows, given.rows() - r), width = which == kV ? p.d_v : p.d_k;
  for (Eigen::Index h = group; h < group_end; ++h) {
    if (!heads.has(h)) continue;
    projected(p, h, which).middleRows(r, len) = given.block(r, first_column(p, h, which), len, width);
    finish_projection(p, h, which, r, len, true);
  }
}

/// Projection task: one (Q|K|V, block of rows, group of heads), for those of `heads`:
/// Q = X W_q + 1 b_q^T, K = Z W_k + ..., V = Z W_v + ... Where several heads of the group need it,
/// one product over their columns of W into scratch: the block of X is packed once, not once per
/// head (projection_heads()); each entry is the same chain over d_x as in a head's own product,
/// so the same bits.
void project_task(Plan& p, Eigen::Index task, HeadSet heads) {
  if (p.model.given) return given_task(p, task, heads);
  thread_local Matrix scratch;
  thread_local std::vector<char> computes;  // by head: its product is made here
  const int which = int(task / (p.proj_blocks * p.proj_groups));
  const Eigen::Index r = task / p.proj_groups % p.proj_blocks * p.proj_rows;
  const Eigen::Index group = task % p.proj_groups * p.proj_heads, group_end = std::min(p.H, group + p.proj_heads);
  const Matrix& in = which == kQ ? *p.model.X : p.model.keys();
  if (r >= in.rows()) return;
  const Eigen::Index len = std::min(p.proj_rows, in.rows() - r), width = which == kV ? p.d_v : p.d_k;
  computes.assign(std::size_t(p.H), 0);
  Eigen::Index count = 0, lo = std::numeric_limits<Eigen::Index>::max(), hi = 0;  // W's columns [lo, hi)
  for (Eigen::Index h = group; h < group_end; ++h)
    if (heads.has(h) && needs_projection(p, h, which, r, len)) {
      computes[std::size_t(h)] = 1, ++count;
      lo = std::min(lo, first_column(p, h, which)), hi = std::max(hi, first_column(p, h, which) + width);
    }
  const Matrix& W = which == kQ ? *p.model.W_q : which == kK ? *p.model.W_k : *p.model.W_v;
  if (count == 1) {
    const Eigen::Index h = std::find(computes.begin(), computes.end(), 1) - computes.begin();
    const auto block = in.middleRows(r, len);
    auto out = projected(p, h, which).middleRows(r, len);
    // A head of a group alone (after an edit of its weights) keeps the bits of the group's product.
    if (p.proj_heads == 1) project_head(p, h, which, block, W.middleCols(lo, width), out);
    else gemm::multiply(block, W.middleCols(lo, width), out);
  } else if (count > 1) {
    scratch.resize(len, hi - lo);
    gemm::multiply(in.middleRows(r, len), W.middleCols(lo, hi - lo), scratch);
    for (Eigen::Index h = group; h < group_end; ++h)
      if (computes[std::size_t(h)])
        projected(p, h, which).middleRows(r, len) = scratch.middleCols(first_column(p, h, which) - lo, width);
  }
  for (Eigen::Index h = group; h < group_end; ++h)
    if (heads.has(h)) finish_projection(p, h, which, r, len, computes[std::size_t(h)]);
}

/// N x N task: one (head, block of query rows).
void attend_task(Plan& p, Eigen::Index task) {
  thread_local Scratch scratch;  // kept between computations: same shapes, no allocation
  const Eigen::Index h = task / p.blocks, r = task % p.blocks * p.block, b = std::min(p.block, p.n_x - r);
  const HeadKept kept = p.kept.head(h);
  if (kept.outputs || (kept.output_rows && !touched(p.kept.mask_rows, r, b))) return;
  const Layout layout = p.rows ? Layout::rows : Layout::columns;
  const bool weights_kept = kept.weights || (kept.weight_rows && !touched(p.kept.mask_rows, r, b));
  const RowStages stages{!kept.scores, !weights_kept};
  const KeysValues kv{p.K_packed[std::size_t(h)], p.V(h), p.V_packed.empty() ? nullptr : &p.V_packed[std::size_t(h)]};
  compute_rows(p.model, std::size_t(h), p.Q_scores(h), kv, r, b, layout, stages,
               p.t.heads[std::size_t(h)], p.Y(h), scratch, p.t.nonfinite.data() + h * p.n_x);
  if (p.model.is_off(std::size_t(h))) p.Y(h).middleRows(r, b).setZero();  // switched off: adds nothing
}

/// A small trace's whole head in one task (whole_heads()): its projections, then its N x N stages.
void head_task(Plan& p, Eigen::Index h) {
  for (int which : {kQ, kK, kV}) project_task(p, which * p.proj_groups + h, HeadSet{h, -1});
  attend_task(p, h);
}

/// True when each head's projections and N x N stages are one block each (small traces): one task a
/// head then does both, and one wait between loops goes (64 x 64 x 4 on two threads: 12 projection
/// tasks and 4 N x N tasks became 4 tasks).
bool whole_heads(const Plan& p) { return p.proj_blocks == 1 && p.proj_heads == 1 && p.blocks == 1; }

/// Output task: a head's Y_h copied out of the concatenation (tasks 0 to H - 1), or a block of
/// rows of the output projection, concat W_o + 1 b_o^T.
void output_task(Plan& p, Eigen::Index task) {
  if (task < p.H ? p.kept.head(task).outputs : p.kept.output) return;
  if (task < p.H) {
    HeadTrace& ht = p.t.heads[std::size_t(task)];
    if (p.rows) ht.output = p.Y(task);
    else ht.output = p.Y(task).transpose();
    return;
  }
  const Eigen::Index r = (task - p.H) * p.out_rows;
  if (p.kept.output_rows && !touched(p.kept.mask_rows, r, std::min(p.out_rows, p.n_x - r))) return;
  const Eigen::Index len = std::min(p.out_rows, p.n_x - r);
  auto out = p.output().middleRows(r, len);
  if (p.W_o_panels.keys > 0) gemm::scores(p.concat().middleRows(r, len), p.W_o_panels, out);
  else gemm::multiply(p.concat().middleRows(r, len), *p.model.W_o, out);
  out.rowwise() += p.model.b_o.transpose();
}

/// A narrow W_o (gemm::narrow()) packed once for the own kernel, where each block of rows would
/// pack it again (64 x 64 x 4: blocks of 16 rows, 4.2 -> 3.3 us each). Wider, OpenBLAS multiplies.
void pack_output_weights(Plan& p) {
  const Matrix* W_o = p.model.W_o.get();
  if (W_o && !p.kept.output && gemm::narrow(W_o->cols()))
    gemm::pack_columns(*W_o, p.W_o_panels);
}

void store_transposed(const Matrix& src, Matrix& dst) {
  dst.resize(src.cols(), src.rows());
  transpose_tiled(src, dst);
}

/// Columns layout: what was computed in the rows layout, stored transposed. Task h < H: head h's
/// Q, K and V; task H: the concatenation; task H + 1: the output.
void transpose_task(Plan& p, Eigen::Index task) {
  if (task < p.H) {
    HeadTrace& ht = p.t.heads[std::size_t(task)];
    store_transposed(p.Q_rows[std::size_t(task)], ht.Q);
    store_transposed(p.K_rows[std::size_t(task)], ht.K);
    store_transposed(p.V_rows[std::size_t(task)], ht.V);
    if (p.model.rope) {
      store_transposed(p.Qr_rows[std::size_t(task)], ht.Q_rot);
      store_transposed(p.Kr_rows[std::size_t(task)], ht.K_rot);
    }
    if (p.model.qk_norm) {
      store_transposed(p.Qn_rows[std::size_t(task)], ht.Q_norm);
      store_transposed(p.Kn_rows[std::size_t(task)], ht.K_norm);
    }
  } else {
    store_transposed(task == p.H ? p.concat_rows : p.output_rows, task == p.H ? p.t.concat : p.t.output);
  }
}

void warn_nonfinite(const Plan& p) {
  for (Eigen::Index h = 0; h < p.H; ++h)
    for (Eigen::Index i = 0; i < p.n_x; ++i)
      if (p.t.nonfinite[std::size_t(h * p.n_x + i)])
        p.t.warnings.push_back(
            head_label(int(h)) + ": query " + p.model.query_label(i) +
            " has scores that are not finite (overflow); its weights are set to zero");
  if (!all_finite(p.t.output)) p.t.warnings.push_back("output: some values are not finite (overflow)");
}

/// Multiply-adds of the whole trace.
double work(const Plan& p) {
  const double n_x = double(p.n_x), n_z = double(p.n_z), dkv = double(p.d_k + p.d_v);
  const double d_x = double(p.model.X->cols()), d_z = double(p.model.keys().cols());
  return double(p.H) * (n_x * n_z * dkv + (n_x * d_x + n_z * d_z) * dkv) +
         (p.model.has_W_o() ? n_x * double(p.model.W_o->rows() * p.model.W_o->cols()) : 0.0);
}

/// What the trace keeps of the positions: the embeddings with their encoding, ALiBi's inputs.
void record_positions(const Model& model, Layout layout, Trace& t) {
  const auto in_layout = [layout](const Matrix& m) { return layout == Layout::rows ? m : Matrix(m.transpose()); };
  t.X_pos = model.positional_encoding ? in_layout(*model.X) : Matrix();
  t.Z_pos = model.positional_encoding && model.Z ? in_layout(*model.Z) : Matrix();
  t.slopes = model.slopes;
  t.query_positions = model.query_positions;
  t.key_positions = model.key_positions;
  t.softcap = model.softcap;
}

/// 1 / sqrt(mean(x^2) + eps) of each row of `projected` (n by the whole width).
std::vector<double> rows_inverse_rms(const Matrix& projected, double eps) {
  std::vector<double> out(std::size_t(projected.rows()));
  for (Eigen::Index t = 0; t < projected.rows(); ++t) out[std::size_t(t)] = inverse_rms(projected.row(t), eps);
  return out;
}

/// rows_inverse_rms() of in W + b: QK-norm over the whole width (OLMo 2) needs every head's share of
/// a row before any head is normalised, so the rows are projected once more here, whole (only with
/// that norm: the cost of one more projection).
std::vector<double> width_inverse_rms(const Matrix& in, const Matrix& W, const Vector& b, double eps) {
  Matrix projected = in * W;
  projected.rowwise() += b.transpose();
  return rows_inverse_rms(projected, eps);
}

/// The per-token means of QK-norm over the whole width, before any head needs them; none otherwise.
void record_width_norms(const Model& model, Trace& t) {
  t.q_inverse_rms.clear();
  t.k_inverse_rms.clear();
  if (!model.qk_norm || model.qk_norm->scope != QkNorm::Scope::width) return;
  if (model.given) {  // projected already, whole
    t.q_inverse_rms = rows_inverse_rms(model.given->Q, model.qk_norm->eps);
    t.k_inverse_rms = rows_inverse_rms(model.given->K, model.qk_norm->eps);
    return;
  }
  t.q_inverse_rms = width_inverse_rms(*model.X, *model.W_q, model.b_q, model.qk_norm->eps);
  t.k_inverse_rms = width_inverse_rms(model.keys(), *model.W_k, model.b_k, model.qk_norm->eps);
}

}  // namespace

bool compute_into(const Model& model, Layout layout, Trace& t, const std::atomic<bool>* cancel, Recompute what,
                  const FirstHead* first) {
  const Unchanged kept = what == Recompute::changed ? unchanged_stages(t, model, layout) : Unchanged{};
  t.computed_from = nullptr;  // until this computation completes
  t.recomputed = {!(kept.all(&HeadKept::Q) && kept.all(&HeadKept::K) && kept.all(&HeadKept::V)),
                  !kept.all(&HeadKept::outputs), !kept.output};
  t.layout = layout;
  t.scale = model.scale;
  if (layout == Layout::rows)
    t.allowed = model.allowed;
  else
    t.allowed = model.allowed.transpose();
  t.warnings.clear();
  warn_unattending_queries(model, t.warnings);
  record_positions(model, layout, t);
  record_width_norms(model, t);
  Plan p = make_plan(model, layout, t, kept);
  allocate(p);
  const bool parallel = work(p) > kParallelWork;
  const Eigen::Index out_tasks = p.H + (model.has_W_o() ? p.out_blocks : 0);
  const auto cancelled = [cancel] { return cancel && cancel->load(std::memory_order_relaxed); };
  // Three loops, each finished before the next starts: projections, the N x N stages and head
  // outputs, then the output projection. Once cancelled, the remaining tasks return at once.
  const auto loop = [&](Eigen::Index count, auto&& task) {
    tasks::run(count, [&](Eigen::Index i) { if (!cancelled()) task(i); }, parallel);
  };
  // The first head's tasks, then everyone else's (f: that head, or -1).
  const Eigen::Index f = first && first->head >= 0 && first->head < p.H && p.H > 1 ? first->head : -1;
  const auto heads = [&](HeadSet set) {  // their projections, then their N x N stages
    if (whole_heads(p)) return loop(p.H, [&](Eigen::Index h) { if (set.has(h)) head_task(p, h); });
    if (!p.W_panels.empty()) loop(3 * p.H, [&](Eigen::Index task) { pack_weights_task(p, task, set); });
    loop(3 * p.proj_blocks * p.proj_groups, [&](Eigen::Index task) { project_task(p, task, set); });
    loop(p.H * p.blocks, [&](Eigen::Index task) { if (set.has(task / p.blocks)) attend_task(p, task); });
  };
  if (f >= 0) {
    heads(HeadSet{f, -1});
    loop(p.rows ? 1 : 2, [&](Eigen::Index task) { task == 0 ? output_task(p, f) : transpose_task(p, f); });
    if (!cancelled() && first->ready) first->ready(t);
  }
  heads(HeadSet{-1, f});
  pack_output_weights(p);
  loop(out_tasks, [&](Eigen::Index task) { if (task != f) output_task(p, task); });
  if (!model.has_W_o() && !kept.output) p.output() = p.concat();
  if (!p.rows) loop(p.H + 2, [&](Eigen::Index task) { if (task != f) transpose_task(p, task); });
  if (cancelled()) return false;
  warn_nonfinite(p);
  t.computed_from = std::make_shared<const Model>(model);
  return true;
}

ComputeBackend compute_backend() {
  return {gemm::backend(), tasks::threads(), cpu::use_avx2_fma() ? "AVX2+FMA" : "portable"};
}

Trace compute(const Model& model, Layout layout) {
  Trace t;
  compute_into(model, layout, t);
  return t;
}

Trace compute(const Scenario& scenario) { return compute(resolve(scenario), scenario.layout); }

}  // namespace attnlab
