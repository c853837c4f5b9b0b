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
  out.lens = models::logit_lens(ask.model->transformer(), ask.ids, ask.chosen, &cancelled);
  out.chosen = ask.chosen;
  out.labels = ask.model->labels(ask.ids);
  for (const std::vector<models::Prediction>& layer : out.lens.top) {
    std::vector<std::string>& labels = out.top_labels.emplace_back();
    for (const models::Prediction& p : layer) labels.push_back(ask.model->label(p.id));
  }
  return out;
}

int OneToken(const models::HfModel& model, const std::string& text) {
  if (text.empty()) refuse("token", "empty: give the text of one token");
  const models::Tokenizer* tokenizer = model.tokenizer();
  std::vector<int> ids = tokenizer ? model.encode(text) : model.ids_from_text(text);
  if (tokenizer && tokenizer->bos() && !ids.empty() && ids.front() == *tokenizer->bos()) ids.erase(ids.begin());
  if (ids.size() != 1) {
    std::string parts;
    for (int id : ids)  // each as its text, as `attnlab-cli lens --token` writes them
      parts += (parts.empty() ? "" : ", ") +
               quoted_excerpt(tokenizer && tokenizer->contains(id) ? tokenizer->decode(id) : model.label(id));
    refuse("token", quoted_excerpt(text) + " is " + std::to_string(ids.size()) + " tokens (" + parts +
                        "): give the text of one token");
  }
  if (ids.front() < 0 || ids.front() >= model.config().vocab)
    refuse("token", std::to_string(ids.front()) + " is outside the vocabulary (0 to " +
                        std::to_string(model.config().vocab - 1) + ")");
  return ids.front();
}

}  // namespace attnlab::app
