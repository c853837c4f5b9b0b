#pragma once
/// The resolved model: a Scenario checked for shapes and turned into per-head weights in the rows
/// convention (Q = X W_q + b_q), whatever the scenario's layout. Every shape check lives here.
#include <string>
#include <vector>

#include "attnlab/scenario.h"

namespace attnlab {

struct HeadWeights {
  Matrix W_q;  ///< d_x by d_k
  Matrix W_k;  ///< d_z by d_k
  Matrix W_v;  ///< d_z by d_v
  Vector b_q, b_k, b_v;  ///< d_k, d_k, d_v (zeros when absent)
};

struct Model {
  Matrix X;                  ///< n_x by d_x
  Matrix Z;                  ///< n_z by d_z (a copy of X for self-attention)
  std::vector<HeadWeights> heads;
  bool has_W_o = false;
  Matrix W_o;                ///< H d_v by d_out (when has_W_o)
  Vector b_o;                ///< d_out (zeros when absent)
  BoolArray allowed;         ///< n_x by n_z
  double scale = 1.0;        ///< multiplies the scores
  int d_k = 0, d_v = 0;
  std::vector<std::string> query_labels;  ///< n_x names for warnings ("#i" when unlabelled)
};

/// Checks every shape, count and value against the others; throws ScenarioError naming the field,
/// e.g. `heads[1].W_k: expected 8x4 (d_z x d_k), got 8x3`.
Model resolve(const Scenario& scenario);
/// resolve() and discard: throws ScenarioError when the scenario cannot be computed.
void validate(const Scenario& scenario);

/// Converts a scenario to the other layout (transposes every matrix); tokens, weights unchanged.
Scenario with_layout(const Scenario& scenario, Layout layout);

}  // namespace attnlab
