#pragma once
/// Sensitivity: the exact gradient of one number of the trace (an output cell, a concatenation
/// cell, a head's attention weight, score or output) with respect to every input and weight of the
/// scenario, by hand-written backpropagation through the computation the core runs (attention.h).
/// The scale, the mask, ALiBi's bias and the positions are constants: not differentiated.
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/cell_ref.h"
#include "attnlab/model.h"
#include "attnlab/stage.h"

namespace attnlab {

/// A trace cell a sensitivity starts from, resolved in the rows convention.
struct TraceCell {
  StageId stage = StageId::output;  ///< a row of stage.h that is a sensitivity target
  int head = -1;         ///< 0-based query head for weights, scores, head_output; -1 otherwise
  Eigen::Index row = 0;  ///< rows convention: the query (token i)
  Eigen::Index col = 0;  ///< rows convention: the key (weights, scores) or the feature
};

/// Reads a trace-side reference in `layout` (the scenario's own): `output[i][j]`, `concat[i][j]`,
/// `heads[h].weights[i][j]`, `heads[h].scores[i][j]`, `heads[h].output[i][j]` (h 0-based). In the
/// columns layout the stored matrices are transposed, so `output[j][i]` there is the rows-layout
/// output[i][j]. Throws ScenarioError naming the reference for another name, a head out of range
/// or a cell outside the matrix (`output[9][0]: no such cell in a 3x4 matrix`).
TraceCell trace_cell(const Model& m, Layout layout, const CellRef& ref);

/// Gradients of one set of projections, shaped as the scenario stores them (its layout);
/// present exactly where the scenario has the matrix or the vector.
struct ProjectionGradients {
  std::optional<Matrix> W_q, W_k, W_v;
  std::optional<Vector> b_q, b_k, b_v;
};

/// d(target)/d(every input and weight), each shaped exactly like the scenario's own.
struct Sensitivity {
  CellRef of;                ///< the target, as given
  double value = 0;          ///< the target's value in the trace
  Matrix X;                  ///< as s.X (with a positional encoding: also d/d(X + PE))
  std::optional<Matrix> Z;   ///< as s.Z, cross-attention only
  ProjectionGradients full;  ///< full matrices (empty in per-head mode)
  std::vector<ProjectionGradients> heads;     ///< per-head mode: one per heads[h]
  std::vector<ProjectionGradients> kv_heads;  ///< per-head grouped mode: one per kv_heads[g]
  std::optional<Matrix> W_o;
  std::optional<Vector> b_o;
};

/// Computes the trace, then backpropagates from the cell `of` names (trace_cell()): one forward
/// and one backward pass. Throws ScenarioError for an invalid scenario or reference.
Sensitivity sensitivity(const Scenario& s, const CellRef& of);

/// {"of": "output[0][0]", "value": v, "grad": {"X", "Z", "W_q", "W_k", "W_v", "b_q", "b_k", "b_v",
/// "heads": [{...}], "kv_heads": [{...}], "W_o", "b_o"}}: each key present where the scenario has
/// the matrix, every matrix an array of rows in the scenario's layout, every bias a plain array.
nlohmann::json sensitivity_to_json(const Sensitivity& g);

}  // namespace attnlab
