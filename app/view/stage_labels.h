#pragma once
/// Axis labels of every pipeline matrix in the scenario's layout (GUI-free): token names where an
/// axis runs over tokens, indices where it runs over a width (d_k, d_v, H d_v, d_out).
#include <string>
#include <vector>

#include "attnlab/scenario.h"
#include "attnlab/stage.h"

namespace attnlab::app {

struct AxisLabels {
  std::vector<std::string> rows, cols;
  const char* row_axis = nullptr;  ///< e.g. "queries", "d_k"
  const char* col_axis = nullptr;
};

/// Labels of X's tokens (the scenario's or x0, x1, ...) and of Z's (z0, ... or X's for self).
std::vector<std::string> QueryTokenLabels(const attnlab::Scenario& s);
std::vector<std::string> KeyTokenLabels(const attnlab::Scenario& s);
std::vector<std::string> IndexLabels(int n);

/// Labels for `stage` (rows x cols as displayed). `rows`/`cols` are the displayed shape, used for
/// the width axes.
AxisLabels StageLabels(StageId stage, const attnlab::Scenario& s, int rows, int cols);

}  // namespace attnlab::app
