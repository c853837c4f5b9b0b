#pragma once
/// Scaled dot-product multi-head attention, every intermediate kept.
#include <atomic>
#include <functional>

#include "attnlab/model.h"
#include "attnlab/trace.h"

namespace attnlab {

/// Numerically stable softmax along each row: subtracts the row maximum before exp.
/// A row that is all -infinity becomes all zeros (a query that may attend nothing).
/// @param logits  any shape; -infinity marks forbidden entries
Matrix softmax_rows(const Matrix& logits);

/// Computes the whole trace of a resolved model in the rows convention, then lays it out as `layout`.
/// Uses every core once the model is large enough (ATTNLAB_THREADS=1 in the environment: one);
/// results do not depend on the threads.
Trace compute(const Model& model, Layout layout);
/// What compute_into() computes: only the stages whose inputs differ from those `trace` was
/// computed from (after an edit of the scale or the mask, the projections and scores are kept;
/// after one of W_o, everything but the output), or every stage (benchmarks).
enum class Recompute { changed, all };
/// compute() into an existing trace, reusing its matrices' memory when the shapes are unchanged:
/// a recompute after an edit then skips allocating (and the kernel zeroing) hundreds of MB.
/// Stages are kept (Recompute::changed) only in the rows layout, when the heads' shapes match.
/// `cancel`, when given, is polled before each task (a block of rows of one head, a few ms at
/// 2048 tokens): once it reads true the computation stops and returns false, leaving `trace`
/// partly computed (to be recomputed or discarded). Returns true when the trace is complete.
/// `first`, when given, names a head computed whole (projections, N x N stages, its output) before
/// the others; `first->ready` is then called with the trace, whose other heads and outputs are not
/// ready yet (the window shows the selected head while the rest computes). The values are the
/// same bits in any order: every task writes its own cells.
struct FirstHead {
  int head = -1;
  std::function<void(const Trace&)> ready;
};
bool compute_into(const Model& model, Layout layout, Trace& trace, const std::atomic<bool>* cancel = nullptr,
                  Recompute what = Recompute::changed, const FirstHead* first = nullptr);
/// resolve() then compute(); throws ScenarioError for an invalid scenario.
Trace compute(const Scenario& scenario);

/// What compute() runs on, as benchmarks report it.
struct ComputeBackend {
  const char* products;  ///< "OpenBLAS" or "Eigen"
  int threads;           ///< threads a large trace uses (the cores, or ATTNLAB_THREADS)
  const char* kernels;   ///< the scores' and exponentials' own kernels: "AVX2+FMA" or "portable"
};
ComputeBackend compute_backend();

/// Algorithm 3 (Phuong & Hutter): one query token against every key, for one head. Computed
/// without forming K and V (the keys' and values' projections are folded into two products with
/// Z), so it costs O(n_z d_z), not O(n_z d_z d_k): cheap enough for the window at 2048 tokens.
struct SingleQuery {
  Vector q;        ///< d_k
  Vector q_norm;   ///< with QK-norm: q after its RMSNorm (before RoPE); empty without
  Vector q_rot;    ///< with RoPE: q (q_norm) turned by its position (the scores use it); empty without
  Vector scores;   ///< q . k_j (with RoPE, rotated q and k_j), n_z
  Vector weights;  ///< softmax(scale x scores, capped with a softcap, + ALiBi's bias) over allowed keys, n_z
  Vector output;   ///< sum_j weights_j v_j, d_v
};
SingleQuery single_query(const Model& model, int head, int query);

}  // namespace attnlab
