#pragma once
/// The logit lens: the residual stream after each layer put through the final norm and the
/// unembedding (and the final softcap) as if it were the last layer's, softmax over the vocabulary
/// at every position: what the model "would predict" if it stopped there. After the last layer it is
/// the model's own prediction.
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "attnlab/models/transformer.h"

namespace attnlab::models {

struct LogitLens {
  std::vector<int> ids;
  /// top[layer][position]: the most likely token there and its probability (ties: the smaller id).
  std::vector<std::vector<Prediction>> top;
  /// layers by n: the probability of the chosen token at each layer and position (empty without one).
  Eigen::MatrixXd chosen;
};

/// Why the logit lens does not apply to `config` ("bert is an encoder: ..."), or "" for a decoder.
std::string logit_lens_refusal(const ModelConfig& config);

/// The lens on one forward pass of `ids` with the heads in `heads_off` switched off (as
/// Transformer::run); `chosen` is a token id whose probability is kept everywhere. Throws
/// ScenarioError: what Transformer::run throws, a chosen id outside the vocabulary, "model: " and
/// logit_lens_refusal() for an encoder.
LogitLens logit_lens(const Transformer& model, const std::vector<int>& ids, std::optional<int> chosen = {},
                     const std::atomic<bool>* cancelled = nullptr, const std::vector<HeadRef>& heads_off = {});

}  // namespace attnlab::models
