#pragma once
/// The equation of each pipeline stage in the scenario's layout's notation (GUI-free).
#include <string>

#include "view/stage.h"
#include "attnlab/scenario.h"

namespace attnlab::app {

/// e.g. rows: "Q = X W_q + b_q", columns: "Q = W_q X + b_q 1^T". `head` is 0-based.
std::string StageFormula(Stage stage, const attnlab::Scenario& s, int head, int d_k);
/// The scale in words, e.g. "1/\u221Ad_k = 1/\u221A2 = 0.707".
std::string ScaleDescription(const attnlab::Scenario& s, int d_k);
/// The whole of one head in one line, e.g. rows: "A = softmax_row(Q Kᵀ / √d_k + M),  Y = A V";
/// columns: "A = softmax_col(Kᵀ Q / √d_k + M),  Y = V A" (M: 0 or −∞ per the mask).
std::string AttentionSummary(const attnlab::Scenario& s);

}  // namespace attnlab::app
