#pragma once
/// A scenario as a short, runnable NumPy script that computes the same trace step by step, in the
/// scenario's own layout and notation (columns layout: Q = W_q X, S = K^T Q, softmax down columns),
/// and prints it as JSON in the shape of `attnlab-cli compute`.
#include <string>

#include "attnlab/scenario.h"

namespace attnlab::exporter {

/// `source` names the scenario file in the script's docstring. The scenario must be valid
/// (resolve() succeeds); the script repeats its numbers literally.
std::string numpy_script(const Scenario& scenario, const std::string& source);

}  // namespace attnlab::exporter
