#include "session/instrument_runs.h"

#include "attnlab/message_text.h"
#include "attnlab/scenario.h"

namespace attnlab::app {

HeadFinderResult FindHeads(const HeadFinderAsk& ask, const std::atomic<bool>& cancelled) {
  const models::HfModel& model = *ask.model;
  const models::RepeatedIds repeated = models::random_repeat(model, ask.repeat, std::uint64_t(ask.seed));
  HeadFinderResult out;
  out.repeat = ask.repeat;
  out.seed = ask.seed;
  out.repeat_ids = repeated.ids;
  out.repeat_labels = model.labels(repeated.ids);
  out.scores = models::find_heads(model.transformer(), repeated.ids, repeated.repeat, &cancelled);
  if (ask.text_ids.empty()) {
    out.labels = out.repeat_labels;
    return out;
  }
  // The other four scores on the text; the induction score stays the repeat's (a text has no repeat).
  const std::size_t induction = std::size_t(models::HeadScore::induction);
  models::HeadScores on_text = models::find_heads(model.transformer(), ask.text_ids, {}, &cancelled);
  on_text.scores[induction] = out.scores.scores[induction];
  out.scores = std::move(on_text);
  out.labels = model.labels(ask.text_ids);
  out.on_text = true;
  return out;
}

LensResult RunLens(const LensAsk& ask, const std::atomic<bool>& cancelled) {
  LensResult out;
  out.lens = models::logit_lens(ask.model->transformer(), ask.ids, ask.chosen, &cancelled, ask.heads_off);
  out.chosen = ask.chosen;
  out.labels = ask.model->labels(ask.ids);
  for (const std::vector<models::Prediction>& layer : out.lens.top) {
    std::vector<std::string>& labels = out.top_labels.emplace_back();
    for (const models::Prediction& p : layer) labels.push_back(ask.model->label(p.id));
  }
  return out;
}

}  // namespace attnlab::app
