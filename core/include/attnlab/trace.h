#pragma once
/// The Trace: every intermediate of multi-head attention, in the scenario's layout
/// (columns layout: each matrix is the transpose of its rows-layout counterpart).
#include <string>
#include <vector>

#include "attnlab/matrix.h"

namespace attnlab {

struct HeadTrace {
  Matrix Q, K, V;   ///< rows: n_x by d_k, n_z by d_k, n_z by d_v
  Matrix scores;    ///< rows: S = Q K^T, n_x by n_z;  columns: S = K^T Q, n_z by n_x
  Matrix scaled;    ///< scores x scale
  Matrix masked;    ///< scaled, -infinity where the mask forbids
  Matrix weights;   ///< softmax over the keys (rows: along rows; columns: down columns)
  Matrix output;    ///< rows: weights V, n_x by d_v
};

struct Trace {
  Layout layout = Layout::rows;
  std::vector<HeadTrace> heads;
  Matrix concat;  ///< rows: [Y_1 ... Y_H], n_x by H d_v
  Matrix output;  ///< rows: concat W_o + b_o (or concat without W_o), n_x by d_out
  std::vector<std::string> warnings;
};

}  // namespace attnlab
