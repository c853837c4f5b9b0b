#pragma once
/// Activation patching between two prompts of the same token count: a clean one (the model gives
/// the answer) and a corrupted one (e.g. the names swapped). The logit difference
///   LD = logit(answer) - logit(wrong) at the last position
/// of the clean run, of the corrupted run, and of the corrupted run with one activation taken from
/// the clean run: one query head's output z (every position), or the residual stream entering a
/// layer at one position. Each patched value is normalised as
///   (LD_patched - LD_corrupted) / (LD_clean - LD_corrupted):
/// 1 when the patch alone restores the clean answer, 0 when it changes nothing. Every patched run
/// restarts at the patched layer from the corrupted run's residual stream entering it (a head's patch
/// after that layer's attention, from the corrupted run's z), and computes the last layer on the
/// last position only.
#include <atomic>
#include <functional>
#include <vector>

#include <Eigen/Core>

#include "attnlab/models/transformer.h"

namespace attnlab::models {

struct PatchRequest {
  std::vector<int> clean, corrupted;  ///< the same number of ids
  int answer = 0, wrong = 0;          ///< token ids
  bool positions = true;              ///< also patch the residual stream per layer x position
};

struct Patching {
  double clean = 0, corrupted = 0;  ///< LD of the two runs
  Eigen::MatrixXd heads;            ///< layers by heads: normalised LD with that head's z patched
  Eigen::MatrixXd positions;        ///< layers by n: normalised LD with resid_pre[layer][position] patched
};

/// Called after each patched run: (runs done, runs in all).
using Progress = std::function<void(int done, int total)>;

/// What patch() refuses before any run, in the same line (the window checks its fields with them):
/// an empty prompt, prompts of different token counts; then an id outside the vocabulary, the same
/// answer and wrong token.
void check_patch_prompts(const std::vector<int>& clean, const std::vector<int>& corrupted);
void check_patch_request(const ModelConfig& config, const PatchRequest& request);

/// Throws ScenarioError in one line: prompts of different token counts ("corrupted: 12 tokens, the
/// clean prompt has 11"), an empty one, an answer or wrong id outside the vocabulary, the two runs
/// giving the same logit difference (nothing to normalise), more memory than this machine allows
/// (checked before the runs), "run: cancelled".
Patching patch(const Transformer& model, const PatchRequest& request, const Progress& progress = {},
               const std::atomic<bool>* cancelled = nullptr);

}  // namespace attnlab::models
