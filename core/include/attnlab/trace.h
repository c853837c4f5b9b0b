#pragma once
/// The Trace: every intermediate of multi-head attention, in the scenario's layout
/// (columns layout: each matrix is the transpose of its rows-layout counterpart).
#include <cstddef>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "attnlab/matrix.h"
#include "attnlab/model.h"

namespace attnlab {

struct HeadTrace {
  Matrix Q, K, V;   ///< rows: n_x by d_k, n_z by d_k, n_z by d_v
  Matrix scores;    ///< rows: S = Q K^T, n_x by n_z;  columns: S = K^T Q, n_z by n_x
  Matrix weights;   ///< softmax over the keys of the masked stage (rows: along rows; columns: down columns)
  Matrix output;    ///< rows: weights V, n_x by d_v
};

struct Trace {
  Layout layout = Layout::rows;
  std::vector<HeadTrace> heads;
  Matrix concat;  ///< rows: [Y_1 ... Y_H], n_x by H d_v
  Matrix output;  ///< rows: concat W_o + b_o (or concat without W_o), n_x by d_out
  std::vector<std::string> warnings;
  double scale = 1.0;  ///< what the scores are multiplied by
  BoolArray allowed;   ///< the scores' shape: false where the mask forbids the (query, key) pair

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
  /// S'' = S', or -infinity where the mask forbids.
  auto masked(std::size_t h) const {
    return allowed.select(scaled(h).array(), -std::numeric_limits<double>::infinity()).matrix();
  }
  /// True when cell (r, c) of the scores-shaped stages is masked (-infinity in `masked`).
  bool is_masked(Eigen::Index r, Eigen::Index c) const { return !allowed(r, c); }
};

}  // namespace attnlab
