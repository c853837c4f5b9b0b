#pragma once
/// The Trace: every intermediate of multi-head attention, in the scenario's layout
/// (columns layout: each matrix is the transpose of its rows-layout counterpart).
#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "attnlab/matrix.h"
#include "attnlab/model.h"

namespace attnlab {

struct HeadTrace {
  Matrix Q, K, V;   ///< rows: n_x by d_k, n_z by d_k, n_z by d_v (K and V: those of its key/value head)
  Matrix Q_norm, K_norm;  ///< with QK-norm: Q and K after their RMSNorm (before RoPE); empty without
  Matrix Q_rot, K_rot;  ///< with RoPE: Q and K (Q_norm and K_norm) rotated by their tokens' positions; empty without
  Matrix scores;    ///< rows: S = Q K^T (with RoPE, Q_rot K_rot^T), n_x by n_z;  columns: S = K^T Q, n_z by n_x
  Matrix weights;   ///< softmax over the keys of the masked stage (rows: along rows; columns: down columns)
  Matrix output;    ///< rows: weights V, n_x by d_v
  int kv_head = 0;  ///< the key/value head it reads (its own index without grouping)
};

struct Trace {
  Layout layout = Layout::rows;
  std::vector<HeadTrace> heads;
  Matrix concat;  ///< rows: [Y_1 ... Y_H], n_x by H d_v
  Matrix output;  ///< rows: concat W_o + b_o (or concat without W_o), n_x by d_out
  std::vector<std::string> warnings;
  double scale = 1.0;  ///< what the scores are multiplied by
  BoolArray allowed;   ///< the scores' shape: false where the mask forbids the (query, key) pair
  /// With a positional encoding: the embeddings the projections read, X + PE (and Z + PE for
  /// cross-attention), in the layout; empty without one.
  Matrix X_pos, Z_pos;
  /// ALiBi's slope per head (empty: no ALiBi) and the tokens' positions it reads.
  std::vector<double> slopes, query_positions, key_positions;
  double softcap = 0;  ///< > 0: the scaled scores are capped, softcap tanh(S' / softcap) (Gemma 2)
  /// QK-norm over the whole width (OLMo 2): each query's and key's 1 / sqrt(mean(q^2) + eps) over
  /// its whole row of every head (n_x and n_z); empty otherwise (over a head, the head's Q row gives it).
  std::vector<double> q_inverse_rms, k_inverse_rms;

  /// The model the stages were computed from, once a computation has completed (null before, and
  /// while one runs): compute_into() keeps the stages an edit leaves unchanged.
  std::shared_ptr<const Model> computed_from;
  std::vector<char> nonfinite;  ///< per (head, query), head-major: scores not finite, weights zeroed
  /// What the last compute_into() computed; the other parts it kept from the computation before.
  struct Recomputed {
    bool projections = true;  ///< Q, K and V of every head (some of them, at least)
    bool attention = true;    ///< scores, weights and head outputs (some of them, at least)
    bool output = true;       ///< the output projection
  } recomputed;

  // The two stages between scores and weights are derived, not stored: each is one multiply (and
  // one test) per cell, and storing them would double the memory of the N x N stages (at
  // 2048 x 512 x 8, 512 MB). Both are lazy Eigen expressions: index them, or assign them to a Matrix.

  /// S' = scale x S of head h.
  auto scaled(std::size_t h) const { return heads[h].scores * scale; }
  bool has_bias() const { return !slopes.empty(); }
  bool has_rope() const { return !heads.empty() && heads.front().Q_rot.size() > 0; }
  bool has_qk_norm() const { return !heads.empty() && heads.front().Q_norm.size() > 0; }
  bool has_softcap() const { return softcap > 0; }
  /// The capped scaled score of head h at a cell: softcap tanh(S' / softcap); S' without a softcap.
  double capped_at(std::size_t h, Eigen::Index r, Eigen::Index c) const {
    return softcap > 0 ? capped_logit(heads[h].scores(r, c), scale, softcap) : heads[h].scores(r, c) * scale;
  }
  /// The capped scores of head h, the scores' shape.
  Matrix capped(std::size_t h) const {
    const Matrix& S = heads[h].scores;
    return Matrix::NullaryExpr(S.rows(), S.cols(), [this, h](Eigen::Index r, Eigen::Index c) { return capped_at(h, r, c); });
  }
  /// ALiBi's bias B of head h at cell (r, c) of the scores-shaped stages: -m_h |p_i - c_j|
  /// (rows: r is the query; columns: c is). 0 without ALiBi.
  double bias_at(std::size_t h, Eigen::Index r, Eigen::Index c) const {
    if (slopes.empty()) return 0.0;
    const Eigen::Index i = layout == Layout::rows ? r : c, j = layout == Layout::rows ? c : r;
    return -slopes[h] * std::abs(query_positions[std::size_t(i)] - key_positions[std::size_t(j)]);
  }
  /// B of head h, the scores' shape (zeros without ALiBi).
  Matrix bias(std::size_t h) const {
    const Matrix& S = heads[h].scores;
    return Matrix::NullaryExpr(S.rows(), S.cols(), [this, h](Eigen::Index r, Eigen::Index c) { return bias_at(h, r, c); });
  }
  /// S'' = S' + B, or -infinity where the mask forbids: a lazy expression, to index.
  auto masked(std::size_t h) const {
    const Matrix& S = heads[h].scores;
    return Matrix::NullaryExpr(S.rows(), S.cols(), [this, h](Eigen::Index r, Eigen::Index c) {
      return allowed(r, c) ? logit_at(h, r, c) : -std::numeric_limits<double>::infinity();
    });
  }
  /// S'' of head h at a cell the mask allows: as the softmax read it (the core's same functions).
  double logit_at(std::size_t h, Eigen::Index r, Eigen::Index c) const {
    if (softcap > 0) return softcapped_logit(heads[h].scores(r, c), scale, softcap, bias_at(h, r, c));
    return biased_logit(heads[h].scores(r, c), scale, bias_at(h, r, c));
  }
  /// `out` = S'' of head h, evaluated (vectorised without ALiBi and a softcap).
  void masked_into(std::size_t h, Matrix& out) const {
    if (slopes.empty() && softcap <= 0) out = allowed.select(scaled(h).array(), -std::numeric_limits<double>::infinity()).matrix();
    else out = masked(h);
  }
  /// True when cell (r, c) of the scores-shaped stages is masked (-infinity in `masked`).
  bool is_masked(Eigen::Index r, Eigen::Index c) const { return !allowed(r, c); }
};

}  // namespace attnlab
