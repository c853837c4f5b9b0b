#pragma once
/// The head finder: five scores of every layer x query head, each a mean of attention weights over
/// a set of queries (docs/MODELS.md has the formulas). w is one head's weights (rows = queries
/// i, columns = keys j), n the tokens, t their ids:
///   previous-token   mean over i >= 1 of w[i, i-1]
///   first-token      mean over i of w[i, 0] (the attention sink)
///   duplicate-token  mean over the i whose token appeared before of sum_{j < i, t_j = t_i} w[i, j]
///   induction        on [BOS] r_1..r_R r_1..r_R: mean over the second repeat's i of w[i, i-R+1]
///   local span       mean over i of sum_j w[i, j] (i - j), the expected distance looked back
/// A score whose set of queries is empty (one token; no repeated token; no repeat) is NaN.
#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "attnlab/models/transformer.h"

namespace attnlab::models {

class HfModel;

enum class HeadScore { previous_token, first_token, duplicate_token, induction, local_span };
constexpr int kHeadScores = 5;
/// "previous_token", "first_token", "duplicate_token", "induction", "local_span" (the JSON keys).
const char* score_name(HeadScore score);

/// Where a sequence repeats: R tokens from position `first`, then the same R tokens again.
struct Repeat {
  int length = 0;  ///< R
  int first = 0;   ///< the position of r_1: 1 after a BOS, else 0
};

/// [bos] r_1..r_R r_1..r_R with r drawn uniformly from [0, limit) except `bos`, by a 64-bit Mersenne
/// Twister seeded with `seed` (the same ids on every machine). Throws ScenarioError when R < 1, or
/// when the 2R (+1) tokens do not fit `max_positions` ("--random-repeat: 600 ...").
std::vector<int> random_repeat(int length, std::uint64_t seed, int limit, std::optional<int> bos, int max_positions);

/// The induction score's sequence for a model folder, drawn once for the CLI and the window alike: its
/// tokenizer's BOS first when it puts one first, ids among those its tokenizer has (the whole
/// vocabulary without one). Throws what random_repeat throws.
struct RepeatedIds {
  std::vector<int> ids;
  Repeat repeat;
};
RepeatedIds random_repeat(const HfModel& model, int length, std::uint64_t seed);

/// The five scores of one head's weights `w` (n by n, rows = queries) on tokens `ids`; the induction
/// score only with `repeat` (NaN otherwise).
std::array<double, kHeadScores> score_head(const MatrixF& w, const std::vector<int>& ids,
                                           const std::optional<Repeat>& repeat);

struct HeadScores {
  std::vector<int> ids;
  /// One layers by heads matrix per HeadScore, in the enum's order.
  std::array<Eigen::MatrixXd, kHeadScores> scores;
  const Eigen::MatrixXd& operator[](HeadScore s) const { return scores[std::size_t(s)]; }
};

/// Why the head finder does not apply to `config` ("bert is an encoder: ..."), or "" for a decoder.
std::string head_finder_refusal(const ModelConfig& config);

/// Every head's scores on one forward pass of `ids` (the patterns are scored as the pass produces
/// them, nothing else recorded). Throws what Transformer::run throws, and "model: " and
/// head_finder_refusal() for an encoder.
HeadScores find_heads(const Transformer& model, const std::vector<int>& ids, const std::optional<Repeat>& repeat = {},
                      const std::atomic<bool>* cancelled = nullptr);

}  // namespace attnlab::models
