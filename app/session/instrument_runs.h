#pragma once
/// The head finder and the logit lens of the open model (models/head_finder.h, logit_lens.h) for the
/// window (issue 39): each is computed off the UI thread on the session's one TaskRunner for the
/// newest thing asked of it. Asking again for the same thing does nothing; asking for something else
/// (the text changed, another R, another token) stops the running computation at its next layer and
/// drops its result, and the last finished result stays to be drawn, stale, until the new one
/// arrives. GUI-free: the Head finder and Logit lens panels own one each, tests drive them without a
/// display.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/models/head_finder.h"
#include "attnlab/models/hf_model.h"
#include "attnlab/models/logit_lens.h"
#include "session/task_runner.h"

namespace attnlab::app {

/// The newest of one kind of computation: Ask() starts it off the UI thread unless the same ask is
/// standing, Get() is the last one finished.
template <typename Ask, typename Result>
class LatestRun {
 public:
  using Work = std::function<Result(const Ask&, const std::atomic<bool>& cancelled)>;
  LatestRun(std::string kind, Work work) : kind_(std::move(kind)), work_(std::move(work)) {}
  LatestRun(const LatestRun&) = delete;  // its tasks call back into it
  LatestRun& operator=(const LatestRun&) = delete;

  /// Computes `ask` on `tasks` unless it is what was asked last (finished or running).
  void Request(TaskRunner& tasks, const Ask& ask) {
    if (asked_ && *asked_ == ask) return;
    Stop(tasks);
    asked_ = ask;
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    running_ = tasks.Start<Result>(
        kind_, [work = work_, ask, cancel = cancel_] { return work(ask, *cancel); },
        [this](TaskResult<Result> result) { Finish(std::move(result)); });
  }
  /// Nothing to compute (no model, no text): the result goes, a running computation stops.
  void Clear(TaskRunner& tasks) {
    Stop(tasks);
    asked_.reset();
    result_.reset();
    error_.clear();
    ++serial_;
  }
  const Result* Get() const { return result_ ? &*result_ : nullptr; }
  /// A newer ask than Get()'s is being computed.
  bool Stale() const { return running_ != 0; }
  /// Why the last ask failed ("--random-repeat: 30 tokens twice ... 48 positions"), or "".
  const std::string& Error() const { return error_; }
  /// Changes whenever Get() or Error() does (panels key their caches on it).
  std::uint64_t Serial() const { return serial_; }

 private:
  void Stop(TaskRunner& tasks) {
    if (!running_) return;
    cancel_->store(true);  // stops at its next layer; TaskRunner drops its result
    tasks.Cancel(running_);
    running_ = 0;
  }
  void Finish(TaskResult<Result> result) {
    running_ = 0;
    try {
      result_ = result.Take();
      error_.clear();
    } catch (const std::exception& e) {
      result_.reset();
      error_ = e.what();
    }
    ++serial_;
  }

  std::string kind_;
  Work work_;
  std::optional<Ask> asked_;
  std::optional<Result> result_;
  std::string error_;
  TaskRunner::TaskId running_ = 0;
  std::shared_ptr<std::atomic<bool>> cancel_;
  std::uint64_t serial_ = 0;
};

/// What the head finder reads, as `attnlab-cli heads` does: with text ids, the previous-token,
/// first-token, duplicate-token and local-span scores on them and the induction score on R random
/// tokens repeated twice (`--text T --random-repeat R --seed S`); without, every score on the
/// repeat (`--random-repeat R --seed S`).
struct HeadFinderAsk {
  std::shared_ptr<const models::HfModel> model;
  std::vector<int> text_ids;
  int repeat = 10;  ///< R
  int seed = 0;
  bool operator==(const HeadFinderAsk& o) const {
    return model == o.model && text_ids == o.text_ids && repeat == o.repeat && seed == o.seed;
  }
};

struct HeadFinderResult {
  models::HeadScores scores;            ///< scores.ids: the tokens all but the induction score read
  std::vector<std::string> labels;      ///< of scores.ids
  std::vector<int> repeat_ids;          ///< the induction score's sequence
  std::vector<std::string> repeat_labels;
  int repeat = 0, seed = 0;
  bool on_text = false;  ///< scores.ids are the text's (else the repeat's)
};

/// The head finder's work, on the calling thread. Throws ScenarioError: R too large for the
/// model's positions, ids outside the vocabulary, `cancelled` set.
HeadFinderResult FindHeads(const HeadFinderAsk& ask, const std::atomic<bool>& cancelled);

struct LensAsk {
  std::shared_ptr<const models::HfModel> model;
  std::vector<int> ids;
  std::optional<int> chosen;  ///< a token whose probability is kept everywhere
  /// Switched off, as the document (a layer of the model) has them: `attnlab-cli lens --heads-off`.
  std::vector<models::HeadRef> heads_off;
  bool operator==(const LensAsk& o) const {
    return model == o.model && ids == o.ids && chosen == o.chosen && heads_off == o.heads_off;
  }
};

struct LensResult {
  models::LogitLens lens;
  std::optional<int> chosen;        ///< the token lens.chosen is the probability of
  std::vector<std::string> labels;  ///< of lens.ids
  std::vector<std::vector<std::string>> top_labels;  ///< [layer][position]: the top token's label
};

/// The logit lens's work, on the calling thread. Throws what models::logit_lens throws.
LensResult RunLens(const LensAsk& ask, const std::atomic<bool>& cancelled);

class HeadFinderRun : public LatestRun<HeadFinderAsk, HeadFinderResult> {
 public:
  HeadFinderRun() : LatestRun("head-finder", FindHeads) {}
};

class LensRun : public LatestRun<LensAsk, LensResult> {
 public:
  LensRun() : LatestRun("logit-lens", RunLens) {}
};

}  // namespace attnlab::app
