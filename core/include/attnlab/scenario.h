#pragma once
/// The Scenario: everything the user edits. Matrices are stored exactly as in the file, i.e. in the
/// scenario's own layout (columns layout = transpose of the rows-layout matrix).
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/matrix.h"

namespace attnlab {

/// Invalid input. `what()` is one line: `field.path: expected ..., got ...`.
class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Projection weights of one head, or the full matrices that are split into heads.
/// An absent W means identity; an absent b means zero.
struct Projections {
  std::optional<Matrix> W_q, W_k, W_v;
  std::optional<Vector> b_q, b_k, b_v;
};

struct Scale {
  enum class Kind { inv_sqrt_dk, none, value };
  Kind kind = Kind::inv_sqrt_dk;
  double value = 1.0;  ///< only for Kind::value: multiplies the scores
};

/// All parts hold at once: a key is allowed iff every given part allows it.
struct MaskSpec {
  bool causal = false;          ///< query i may attend key j iff j <= i
  std::vector<int> padding;     ///< context tokens no query may attend (0-based)
  std::optional<Matrix> cells;  ///< 0/1, 1 = may attend; n_x by n_z (rows) or n_z by n_x (columns)
  bool empty() const { return !causal && padding.empty() && !cells; }
};

struct Scenario {
  std::string title;
  std::string notes;
  Layout layout = Layout::rows;
  std::vector<std::string> tokens;          ///< labels of X's tokens; empty = none given
  std::vector<std::string> context_tokens;  ///< labels of Z's tokens; empty = none given
  Matrix X;                                 ///< n_x by d_x (rows) or d_x by n_x (columns)
  std::optional<Matrix> Z;                  ///< context; absent = self-attention (Z = X)
  int num_heads = 1;
  Projections full;                ///< full matrices split into num_heads heads (when heads empty)
  std::vector<Projections> heads;  ///< per-head weights; non-empty = per-head mode
  std::optional<Matrix> W_o;       ///< H d_v by d_out (rows) or d_out by H d_v (columns)
  std::optional<Vector> b_o;
  Scale scale;
  MaskSpec mask;
  nlohmann::json view = nlohmann::json::object();  ///< GUI state, ignored by the core

  bool per_head() const { return !heads.empty(); }
  bool cross_attention() const { return Z.has_value(); }
  int head_count() const { return per_head() ? static_cast<int>(heads.size()) : num_heads; }
  /// Token counts and embedding widths, read in the scenario's layout.
  int n_x() const;
  int d_x() const;
  int n_z() const;
  int d_z() const;
  /// The numbers the scenario holds: its matrices, biases and mask cells (what its memory and its
  /// file size grow with).
  std::size_t number_count() const;
};

}  // namespace attnlab
