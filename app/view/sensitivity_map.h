#pragma once
/// Which input moves this output? The gradient of one target number (attnlab/sensitivity.h) with
/// respect to every input and weight matrix, each shaped exactly as the Inputs panel shows that
/// matrix, so that the Sensitivity panel's heatmaps and the Inputs editors' colours are the same
/// numbers. One cache per window: both read it, the gradient is computed once per version and
/// target. GUI-free.
#include <cstdint>
#include <string>
#include <vector>

#include "attnlab/matrix.h"
#include "attnlab/scenario.h"

namespace attnlab::app {

/// d target / d every cell of one matrix.
struct SensitivityGradient {
  std::string source;      ///< as the Inputs and cell edits name it: "W_q", "heads[1].b_k"
  attnlab::Matrix values;  ///< as the Inputs show it: as stored, a bias as a row (rows layout) or a column
};

/// A cell and its gradient, for the list of those that move the target most.
struct SensitiveCell {
  std::string cell;  ///< in the one cell syntax: "W_q[0][1]"
  double grad = 0;
};

struct SensitivityMap {
  std::string target;  ///< as typed: "output[0][0]"
  double value = 0;    ///< the target's value
  std::vector<SensitivityGradient> gradients;  ///< X (Z), the projections, W_o, b_o: the Inputs' order
  std::string error;   ///< the refusal when the target names no cell of this scenario
  std::uint64_t generation = 0;  ///< changes with every recomputation (heatmap caches key on it)
};

/// The gradients of `target` (the one cell syntax: "output[i][j]", "heads[h].weights[i][j]") over
/// every matrix and vector the scenario has (a gradient a million-millionth of the largest or less
/// is rounding and reads 0); a target that names no cell gives its refusal in
/// `error` and no gradients.
SensitivityMap ComputeSensitivityMap(const attnlab::Scenario& s, const std::string& target);

/// The gradient shaped like the editor of `source`, or null when the map has none for it.
const attnlab::Matrix* GradientOf(const SensitivityMap& map, const std::string& source);

/// The `count` cells with the largest |gradient|, largest first; cells with a zero gradient never.
std::vector<SensitiveCell> LargestGradients(const SensitivityMap& map, std::size_t count);

/// What a listed cell is, in the words of the heatmaps' labels (cells are written 0-based, in the
/// file's layout): "token x_5, coordinate 3" for an embedding's, "head 2" for a head's own matrix
/// ("K/V head 1" for a shared one); "" when there is nothing more to say.
std::string CellMeaning(const attnlab::Scenario& s, const std::string& cell);

/// Recomputes only for a new document version or target.
class SensitivityCache {
 public:
  const SensitivityMap& Get(const attnlab::Scenario& s, std::uint64_t version, const std::string& target);

 private:
  SensitivityMap map_;
  std::uint64_t version_ = 0, generation_ = 0;
  bool filled_ = false;
};

}  // namespace attnlab::app
