#include "attnlab/attention.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#if defined(__linux__)
#include <sys/mman.h>
#endif

// OpenMP is optional: without it every loop below runs on one thread, with the same results.
#if defined(_OPENMP)
#define ATTNLAB_OMP(directive) _Pragma(directive)
#else
#define ATTNLAB_OMP(directive)
#endif

namespace attnlab {

namespace {

constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();
constexpr double kExpUnderflow = -745.2;  // exp(x) rounds to 0 below this

/// Rows of one head's N x N stages handled together: about 1 MB per stage (128 rows of 1024 keys),
/// few enough blocks that packing K and V for each block's products stays cheap (measured: 32 rows
/// spent ~1/8 of the time packing), small enough that a block's stages are still in cache.
Eigen::Index row_block(Eigen::Index n_z) {
  return std::clamp<Eigen::Index>(131072 / std::max<Eigen::Index>(n_z, 1), 32, 256);
}
/// Rows of X projected by one task.
constexpr Eigen::Index kProjectionRows = 256;
/// Below this many multiply-adds (~0.1 ms) a trace is computed on one thread: starting threads
/// costs microseconds on an idle machine and can cost a scheduler time slice on a busy one.
constexpr double kParallelWork = 4e6;

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
  // exp(in - max), vectorised. Eigen's vectorised exp clamps very negative inputs to ~1e-308
  // rather than 0, so masked keys and keys e^-745 below the maximum are then set to exactly 0.
  const Eigen::Index n = in.size();
  bool underflow = false;
  for (Eigen::Index j = 0; j < n; ++j) underflow |= in(j) - max < kExpUnderflow;
  out = (in.array() - max).exp();
  if (underflow)
    for (Eigen::Index j = 0; j < n; ++j)
      if (in(j) - max < kExpUnderflow) out(j) = 0.0;
  out /= out.sum();
  return true;
}

/// Rows [r, r + kProjectionRows) of out = X W + 1 b^T (out already sized; rows past the end skipped).
void project_rows(const Matrix& X, const Matrix& W, const Vector& b, Eigen::Index r, Matrix& out) {
  const Eigen::Index len = std::min(kProjectionRows, X.rows() - r);
  if (len <= 0) return;
  out.middleRows(r, len).noalias() = X.middleRows(r, len) * W;
  out.middleRows(r, len).rowwise() += b.transpose();
}

/// Q = X W_q + 1 b_q^T: n by d
Matrix project(const Matrix& X, const Matrix& W, const Vector& b) {
  Matrix out(X.rows(), W.cols());
  out.noalias() = X * W;
  out.rowwise() += b.transpose();
  return out;
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

std::string head_name(std::size_t h) { return "head " + std::to_string(h + 1); }

void warn_unattending_queries(const Model& model, std::vector<std::string>& warnings) {
  for (Eigen::Index i = 0; i < model.allowed.rows(); ++i)
    if (!model.allowed.row(i).any())
      warnings.push_back("query " + model.query_labels[i] + " (#" + std::to_string(i) +
                         ") may attend no key: its weights and head outputs are all zero");
}

/// One thread's scratch rows for the columns layout, where stages are computed as rows and stored
/// transposed.
struct Scratch {
  Matrix scores, scaled, masked, weights;
};

/// Rows [r, r + b) of one head's N x N stages, computed while they are in cache:
///   S = Q K^T,  S' = scale S,  S'' = S' or -inf where masked,  A = softmax_rows(S''),  Y = A V.
/// Q, K, V, Y are in the rows layout. Stages are written to `out` (rows layout) or to `scratch`
/// and then transposed into `out` (columns). Marks `nonfinite[i]` for a query whose scores overflowed.
void compute_rows(const Model& model, const Matrix& Q, const Matrix& K, const Matrix& V, Eigen::Index r,
                  Eigen::Index b, Layout layout, HeadTrace& out, Matrix& Y, Scratch& scratch, char* nonfinite) {
  const bool rows = layout == Layout::rows;
  const Eigen::Index n_z = K.rows();
  if (!rows)
    for (Matrix* m : {&scratch.scores, &scratch.scaled, &scratch.masked, &scratch.weights})
      if (m->rows() < b || m->cols() != n_z) m->resize(b, n_z);
  auto S = rows ? out.scores.middleRows(r, b) : scratch.scores.topRows(b);
  auto scaled = rows ? out.scaled.middleRows(r, b) : scratch.scaled.topRows(b);
  auto masked = rows ? out.masked.middleRows(r, b) : scratch.masked.topRows(b);
  auto A = rows ? out.weights.middleRows(r, b) : scratch.weights.topRows(b);
  S.noalias() = Q.middleRows(r, b) * K.transpose();  // S = Q K^T: b by n_z
  scaled = S * model.scale;
  for (Eigen::Index i = 0; i < b; ++i) {
    // A plain loop, as Eigen's select() is not vectorised.
    const bool* allowed = &model.allowed(r + i, 0);
    const double* in = &scaled(i, 0);
    double* m = &masked(i, 0);
    for (Eigen::Index j = 0; j < n_z; ++j) m[j] = allowed[j] ? in[j] : kMinusInfinity;
    nonfinite[r + i] = !softmax_row(masked.row(i), A.row(i));
  }
  Y.middleRows(r, b).noalias() = A * V;  // Y = A V: b by d_v
  if (!rows) {
    out.scores.middleCols(r, b) = S.transpose();
    out.scaled.middleCols(r, b) = scaled.transpose();
    out.masked.middleCols(r, b) = masked.transpose();
    out.weights.middleCols(r, b) = A.transpose();
  }
}

}  // namespace

Matrix softmax_rows(const Matrix& logits) {
  Matrix out(logits.rows(), logits.cols());
  for (Eigen::Index i = 0; i < out.rows(); ++i) softmax_row(logits.row(i), out.row(i));
  return out;
}

void compute_into(const Model& model, Layout layout, Trace& t) {
  t.layout = layout;
  t.warnings.clear();
  warn_unattending_queries(model, t.warnings);
  const Eigen::Index H = static_cast<Eigen::Index>(model.heads.size());
  const Eigen::Index n_x = model.X.rows(), n_z = model.Z.rows(), d_k = model.d_k, d_v = model.d_v;
  const bool rows = layout == Layout::rows;
  const double work =
      double(H) * (double(n_x) * n_z * (d_k + d_v) + (double(n_x) * model.X.cols() + double(n_z) * model.Z.cols()) * (d_k + d_v));
  [[maybe_unused]] const bool parallel = work > kParallelWork;  // read by the OpenMP pragmas only
  const auto head = [](Eigen::Index h) { return static_cast<std::size_t>(h); };

  // Q, K, V and Y in the rows layout: the trace's own matrices, or for the columns layout
  // temporaries transposed at the end.
  t.heads.resize(head(H));
  std::vector<Matrix> Q_rows, K_rows, V_rows, Y_rows;
  if (!rows)
    for (auto* v : {&Q_rows, &K_rows, &V_rows, &Y_rows}) v->resize(head(H));
  const auto Q = [&](Eigen::Index h) -> Matrix& { return rows ? t.heads[head(h)].Q : Q_rows[head(h)]; };
  const auto K = [&](Eigen::Index h) -> Matrix& { return rows ? t.heads[head(h)].K : K_rows[head(h)]; };
  const auto V = [&](Eigen::Index h) -> Matrix& { return rows ? t.heads[head(h)].V : V_rows[head(h)]; };
  const auto Y = [&](Eigen::Index h) -> Matrix& { return rows ? t.heads[head(h)].output : Y_rows[head(h)]; };

  // Allocate first (untouched memory is cheap), so the parallel loops below only fill.
  for (Eigen::Index h = 0; h < H; ++h) {
    HeadTrace& ht = t.heads[head(h)];
    Y(h).resize(n_x, d_v);
    for (Matrix* m : {&ht.scores, &ht.scaled, &ht.masked, &ht.weights})
      resize_stage(*m, rows ? n_x : n_z, rows ? n_z : n_x);
  }

  // Projections, one task per (head, Q|K|V, block of rows): Q = X W_q + 1 b_q^T, K = Z W_k + ...
  for (Eigen::Index h = 0; h < H; ++h) {
    Q(h).resize(n_x, d_k);
    K(h).resize(n_z, d_k);
    V(h).resize(n_z, d_v);
  }
  const Eigen::Index row_blocks = (std::max(n_x, n_z) + kProjectionRows - 1) / kProjectionRows;
  ATTNLAB_OMP("omp parallel for schedule(dynamic) if (parallel)")
  for (Eigen::Index task = 0; task < 3 * H * row_blocks; ++task) {
    const Eigen::Index h = task / (3 * row_blocks), which = task / row_blocks % 3;
    const Eigen::Index r = task % row_blocks * kProjectionRows;
    const HeadWeights& w = model.heads[head(h)];
    if (which == 0)
      project_rows(model.X, w.W_q, w.b_q, r, Q(h));
    else
      project_rows(model.Z, which == 1 ? w.W_k : w.W_v, which == 1 ? w.b_k : w.b_v, r, which == 1 ? K(h) : V(h));
  }

  // The N x N stages, one task per (head, block of query rows).
  std::vector<char> nonfinite(head(H * n_x), 0);
  const Eigen::Index block = row_block(n_z), blocks = (n_x + block - 1) / block;
  ATTNLAB_OMP("omp parallel if (parallel)") {
    Scratch scratch;
    ATTNLAB_OMP("omp for schedule(dynamic)")
    for (Eigen::Index task = 0; task < H * blocks; ++task) {
      const Eigen::Index h = task / blocks, r = (task % blocks) * block, b = std::min(block, n_x - r);
      compute_rows(model, Q(h), K(h), V(h), r, b, layout, t.heads[head(h)], Y(h), scratch,
                   nonfinite.data() + h * n_x);
    }
  }
  for (Eigen::Index h = 0; h < H; ++h)
    for (Eigen::Index i = 0; i < n_x; ++i)
      if (nonfinite[head(h * n_x + i)])
        t.warnings.push_back(head_name(head(h)) + ": query " + model.query_labels[head(i)] +
                             " has scores that are not finite (overflow); its weights are set to zero");

  Matrix concat_temp, output_temp;
  Matrix& concat = rows ? t.concat : concat_temp;
  Matrix& output = rows ? t.output : output_temp;
  concat.resize(n_x, d_v * H);  // [Y_1 ... Y_H]
  for (Eigen::Index h = 0; h < H; ++h) concat.middleCols(h * d_v, d_v) = Y(h);
  if (model.has_W_o) {
    output.resize(n_x, model.W_o.cols());
    ATTNLAB_OMP("omp parallel for schedule(dynamic) if (parallel)")
    for (Eigen::Index r = 0; r < n_x; r += kProjectionRows)
      project_rows(concat, model.W_o, model.b_o, r, output);  // concat W_o + 1 b_o^T
  } else
    output = concat;
  if (!output.allFinite()) t.warnings.push_back("output: some values are not finite (overflow)");

  if (!rows) {
    for (Eigen::Index h = 0; h < H; ++h) {
      HeadTrace& ht = t.heads[head(h)];
      ht.Q = Q(h).transpose();
      ht.K = K(h).transpose();
      ht.V = V(h).transpose();
      ht.output = Y(h).transpose();
    }
    t.concat = concat.transpose();
    t.output = output.transpose();
  }
}

Trace compute(const Model& model, Layout layout) {
  Trace t;
  compute_into(model, layout, t);
  return t;
}

Trace compute(const Scenario& scenario) { return compute(resolve(scenario), scenario.layout); }

SingleQuery single_query(const Model& model, int head, int query) {
  const HeadWeights& w = model.heads.at(static_cast<std::size_t>(head));
  if (query < 0 || query >= model.X.rows()) throw std::out_of_range("single_query: query index");
  SingleQuery r;
  r.q = w.W_q.transpose() * model.X.row(query).transpose() + w.b_q;  // q = W_q^T x_i + b_q
  r.K = project(model.Z, w.W_k, w.b_k);
  r.V = project(model.Z, w.W_v, w.b_v);
  r.scores = r.K * r.q;  // s_j = q . k_j
  Eigen::RowVectorXd logits = r.scores.transpose() * model.scale;
  for (Eigen::Index j = 0; j < logits.size(); ++j)
    if (!model.allowed(query, j)) logits(j) = kMinusInfinity;
  Eigen::RowVectorXd weights(logits.size());
  softmax_row(logits, weights);
  r.weights = weights.transpose();
  r.output = r.V.transpose() * r.weights;  // sum_j a_j v_j
  return r;
}

}  // namespace attnlab
