#include "attnlab/models/head_finder.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "attnlab/models/hf_model.h"
#include "attnlab/scenario.h"

namespace attnlab::models {
namespace {

constexpr double kUndefined = std::numeric_limits<double>::quiet_NaN();

double mean_or_undefined(double total, Eigen::Index count) { return count > 0 ? total / double(count) : kUndefined; }

/// Scores every pattern the run passes, as it passes it.
class PatternScorer : public SiteHooks {
 public:
  PatternScorer(HeadScores& out, const std::optional<Repeat>& repeat) : out_(out), repeat_(repeat) {}
  bool wants(Site site, int) const override { return site == Site::pattern; }
  void at(const SitePoint& where, MatrixF& pattern) override {
    const std::array<double, kHeadScores> scores = score_head(pattern, out_.ids, repeat_);
    for (int s = 0; s < kHeadScores; ++s) out_.scores[std::size_t(s)](where.layer, where.head) = scores[std::size_t(s)];
  }

 private:
  HeadScores& out_;
  const std::optional<Repeat>& repeat_;
};

}  // namespace

const char* score_name(HeadScore score) {
  switch (score) {
    case HeadScore::previous_token: return "previous_token";
    case HeadScore::first_token: return "first_token";
    case HeadScore::duplicate_token: return "duplicate_token";
    case HeadScore::induction: return "induction";
    case HeadScore::local_span: return "local_span";
  }
  return "?";
}

std::vector<int> random_repeat(int length, std::uint64_t seed, int limit, std::optional<int> bos, int max_positions) {
  const long total = 2L * length + (bos ? 1 : 0);
  if (length < 1) refuse("--random-repeat", std::to_string(length) + ": give at least 1 token to repeat");
  if (total > max_positions)
    refuse("--random-repeat", std::to_string(length) + " tokens twice" + (bos ? " after the BOS" : "") + " make " +
                                  std::to_string(total) + ", more than the model's " + std::to_string(max_positions) +
                                  " positions");
  if (limit < 1 || (limit == 1 && bos && *bos == 0)) refuse("--random-repeat", "the vocabulary has no token to draw");
  std::mt19937_64 random(seed);
  std::vector<int> ids;
  if (bos) ids.push_back(*bos);
  while (int(ids.size()) < (bos ? 1 : 0) + length) {
    const int id = int(random() % std::uint64_t(limit));
    if (!bos || id != *bos) ids.push_back(id);
  }
  const std::vector<int> once(ids.end() - length, ids.end());
  ids.insert(ids.end(), once.begin(), once.end());
  return ids;
}

RepeatedIds random_repeat(const HfModel& model, int length, std::uint64_t seed) {
  const Tokenizer* tokenizer = model.tokenizer();
  const std::optional<int> bos = tokenizer ? tokenizer->bos() : std::nullopt;
  const int limit = tokenizer ? std::min(tokenizer->id_limit(), model.config().vocab) : model.config().vocab;
  return {random_repeat(length, seed, limit, bos, model.config().max_positions), Repeat{length, bos ? 1 : 0}};
}

std::array<double, kHeadScores> score_head(const MatrixF& w, const std::vector<int>& ids,
                                           const std::optional<Repeat>& repeat) {
  const Eigen::Index n = w.rows();
  double previous = 0, first = 0, duplicate = 0, span = 0;
  Eigen::Index duplicates = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (i >= 1) previous += w(i, i - 1);
    first += w(i, 0);
    bool seen = false;
    double on_earlier = 0;
    for (Eigen::Index j = 0; j < i; ++j) {
      span += double(w(i, j)) * double(i - j);
      if (ids[std::size_t(j)] == ids[std::size_t(i)]) seen = true, on_earlier += w(i, j);
    }
    if (seen) duplicate += on_earlier, ++duplicates;
  }
  double induction = kUndefined;
  if (repeat && repeat->length > 0 && repeat->first + 2 * repeat->length <= n) {
    const Eigen::Index R = repeat->length, second = repeat->first + R;
    double total = 0;
    for (Eigen::Index i = second; i < second + R; ++i) total += w(i, i - R + 1);
    induction = total / double(R);
  }
  return {mean_or_undefined(previous, n - 1), mean_or_undefined(first, n), mean_or_undefined(duplicate, duplicates),
          induction, mean_or_undefined(span, n)};
}

std::string head_finder_refusal(const ModelConfig& config) {
  if (config.causal) return "";
  return config.model_type +
         " is an encoder: the head finder's scores (previous token, induction) are defined for a "
         "model that reads left to right, and every token of an encoder sees the whole text";
}

HeadScores find_heads(const Transformer& model, const std::vector<int>& ids, const std::optional<Repeat>& repeat,
                      const std::atomic<bool>* cancelled) {
  const ModelConfig& c = model.config();
  if (!c.causal) refuse("model", head_finder_refusal(c));
  HeadScores out;
  out.ids = ids;
  for (Eigen::MatrixXd& score : out.scores) score = Eigen::MatrixXd::Constant(c.layers, c.heads, kUndefined);
  PatternScorer scorer(out, repeat);
  model.run(ids, 1, {}, Keep::none(), cancelled, &scorer);
  return out;
}

}  // namespace attnlab::models
