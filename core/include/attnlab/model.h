#pragma once
/// The resolved model: a Scenario checked for shapes and values and turned into the rows convention
/// (Q = X W_q + b_q, every head's projections side by side), whatever the scenario's layout. Every
/// shape check lives here.
#include <string>
#include <vector>

#include "attnlab/scenario.h"

namespace attnlab {

/// One head's weights: views into its Model's side-by-side matrices, valid while that Model lives.
struct HeadWeights {
  Eigen::Block<const Matrix> W_q;  ///< d_x by d_k
  Eigen::Block<const Matrix> W_k;  ///< d_z by d_k
  Eigen::Block<const Matrix> W_v;  ///< d_z by d_v
  Eigen::VectorBlock<const Vector> b_q, b_k, b_v;  ///< d_k, d_k, d_v (zeros when absent)
};

struct Model {
  Matrix X;                  ///< n_x by d_x
  Matrix Z;                  ///< n_z by d_z for cross-attention; empty for self-attention: use keys()
  /// Every head's projections side by side, rows convention: head h's W_q is columns
  /// [h d_k, (h + 1) d_k) of W_q (d_x by H d_k); W_k is d_z by H d_k, W_v d_z by H d_v.
  Matrix W_q, W_k, W_v;
  Vector b_q, b_k, b_v;      ///< H d_k, H d_k, H d_v (zeros when absent)
  bool has_W_o = false;
  Matrix W_o;                ///< H d_v by d_out (when has_W_o)
  Vector b_o;                ///< d_out (zeros when absent)
  BoolArray allowed;         ///< n_x by n_z
  double scale = 1.0;        ///< multiplies the scores
  int num_heads = 0;         ///< H
  int d_k = 0, d_v = 0;
  std::vector<std::string> tokens;  ///< the queries' names (the scenario's tokens; may be empty)

  /// Query i's name in warnings: its token, or "#i" when the scenario names none.
  std::string query_label(Eigen::Index i) const {
    return tokens.empty() ? "#" + std::to_string(i) : tokens[std::size_t(i)];
  }

  /// The tokens attended to: Z, or X itself for self-attention.
  const Matrix& keys() const { return Z.size() ? Z : X; }

  /// Head h's weights (0 <= h < num_heads).
  HeadWeights head(std::size_t h) const {
    const Eigen::Index k = Eigen::Index(h) * d_k, v = Eigen::Index(h) * d_v;
    return {W_q.middleCols(k, d_k), W_k.middleCols(k, d_k), W_v.middleCols(v, d_v),
            b_q.segment(k, d_k),    b_k.segment(k, d_k),    b_v.segment(v, d_v)};
  }
};

/// Checks every shape, count and value against the others; throws ScenarioError naming the field,
/// e.g. `heads[1].W_k: expected 8x4 (d_z x d_k), got 8x3`.
Model resolve(const Scenario& scenario);
/// resolve() and discard: throws ScenarioError when the scenario cannot be computed.
void validate(const Scenario& scenario);

/// Converts a scenario to the other layout (transposes every matrix); tokens, weights unchanged.
Scenario with_layout(const Scenario& scenario, Layout layout);

}  // namespace attnlab
