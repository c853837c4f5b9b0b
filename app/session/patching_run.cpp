#include "session/patching_run.h"

#include <chrono>
#include <cstring>
#include <exception>
#include <set>
#include <thread>
#include <utility>

#include "attnlab/message_text.h"
#include "attnlab/models/token_text.h"
#include "attnlab/scenario.h"
#include "attnlab/text_fit.h"

namespace attnlab::app {
namespace {

using models::HfModel;

// The tokenizer and the id reader name what they refuse "text" or "ids": the field's name instead.
[[noreturn]] void RefuseAs(const std::string& field, const std::string& message) {
  for (const char* prefix : {"text: ", "ids: ", "answer: ", "wrong: "})
    if (message.rfind(prefix, 0) == 0) throw ScenarioError(field + ": " + message.substr(std::strlen(prefix)));
  throw ScenarioError(field + ": " + message);
}

// A prompt's ids: the tokenizer's, or token ids typed as text for a folder without one.
std::vector<int> ReadPrompt(const HfModel& model, const std::string& field, const std::string& text) {
  std::vector<int> ids;
  try {
    ids = model.tokenizer() ? model.encode(text) : model.ids_from_text(text);
  } catch (const ScenarioError& e) {
    RefuseAs(field, e.what());
  }
  const models::ModelConfig& c = model.config();
  for (int id : ids)
    if (id < 0 || id >= c.vocab)
      refuse(field, std::to_string(id) + " is outside the vocabulary (0 to " + std::to_string(c.vocab - 1) + ")");
  if (int(ids.size()) > c.max_positions)
    refuse(field, std::to_string(ids.size()) + " tokens, more than the model's " + std::to_string(c.max_positions) +
                      " positions");
  return ids;
}

// The id of a text that must be one token (one id typed, without a tokenizer).
int ReadOneToken(const HfModel& model, const std::string& field, const std::string& text) {
  if (model.tokenizer()) {
    try {
      return models::one_token(model, field, text);
    } catch (const ScenarioError& e) {
      RefuseAs(field, e.what());
    }
  }
  const std::vector<int> ids = ReadPrompt(model, field, text);
  if (ids.size() != 1)
    refuse(field, quoted_excerpt(text) + " is " + std::to_string(ids.size()) + " token ids: give one");
  return ids.front();
}

}  // namespace

PatchingInput ReadPatchingFields(std::shared_ptr<const models::HfModel> model, const PatchingFields& fields) {
  PatchingInput in;
  in.fields = fields;
  in.model = model;
  in.request.answer = in.request.wrong = -1;
  if (!model) {
    in.error = "No model open: File > Open model" + std::string(kEllipsis);
    in.incomplete = true;
    return in;
  }
  if (!model->config().causal) {  // as attnlab-cli patch refuses it
    in.error = "model: " + model->config().model_type +
               " is an encoder: patching compares next-token logits, which it does not predict";
    return in;
  }
  std::string hint;  // the first empty field, said only when nothing is refused
  const auto empty = [&hint](const char* field, const char* what) {
    if (hint.empty()) hint = std::string(field) + ": empty: type " + what;
  };
  const auto attempt = [&in](auto&& read) {
    try {
      read();
    } catch (const std::exception& e) {
      if (in.error.empty()) in.error = e.what();
    }
  };
  const HfModel& m = *model;
  if (fields.clean.empty()) empty("clean", "a prompt");
  else attempt([&] { in.request.clean = ReadPrompt(m, "clean", fields.clean); });
  const std::string as_many = in.request.clean.empty()
                                  ? std::string("a prompt of as many tokens as the clean one")
                                  : "a prompt of " + std::to_string(in.request.clean.size()) + " tokens, as the clean one";
  if (fields.corrupt.empty()) empty("corrupt", as_many.c_str());
  else attempt([&] { in.request.corrupted = ReadPrompt(m, "corrupt", fields.corrupt); });
  in.clean_labels = m.labels(in.request.clean);
  in.corrupt_labels = m.labels(in.request.corrupted);
  if (!in.request.clean.empty() && !in.request.corrupted.empty())
    attempt([&] { models::check_patch_prompts(in.request.clean, in.request.corrupted); });
  if (fields.answer.empty()) empty("answer", "the clean prompt's next token");
  else attempt([&] { in.request.answer = ReadOneToken(m, "answer", fields.answer); });
  if (fields.wrong.empty()) empty("wrong", "the corrupt prompt's next token");
  else attempt([&] { in.request.wrong = ReadOneToken(m, "wrong", fields.wrong); });
  if (in.request.answer >= 0) in.answer_label = m.label(in.request.answer);
  if (in.request.wrong >= 0) in.wrong_label = m.label(in.request.wrong);
  if (in.error.empty() && hint.empty()) attempt([&] { models::check_patch_request(m.config(), in.request); });
  if (in.error.empty() && !hint.empty()) {
    in.error = hint;
    in.incomplete = true;
  }
  if (fields.clean.empty()) in.no_suggestion = "Type a clean prompt first: the suggestion is made from it.";
  else in.suggestion = SuggestInductionPair(m, fields.clean, &in.no_suggestion);
  return in;
}

std::optional<PatchingFields> SuggestInductionPair(const models::HfModel& model, const std::string& clean,
                                                   std::string* why) {
  const auto none = [why](const std::string& reason) {
    if (why) *why = reason;
    return std::nullopt;
  };
  const models::Tokenizer* tokenizer = model.tokenizer();
  if (!tokenizer) return none("No suggestion without a tokenizer: the folder has none.");
  std::vector<int> ids;
  try {
    ids = model.encode(clean);
  } catch (const std::exception& e) {
    return none(std::string("No suggestion: the clean prompt is refused (") + e.what() + ").");
  }
  const int n = int(ids.size());
  int earlier = n - 2;  // the last token's latest earlier copy
  while (earlier >= 0 && ids[std::size_t(earlier)] != ids.back()) --earlier;
  if (earlier < 0)
    return none("No suggestion: the clean prompt's last token (" + model.label(ids.back()) +
                ") does not come earlier in it. An induction test repeats it: \"... A B ... A\", the answer B.");
  const std::set<int> used(ids.begin(), ids.end());
  const int limit = std::min(tokenizer->id_limit(), model.config().vocab);
  // The first id after `from` (wrapping) that is a token, not in the prompt, not `avoid`, and whose
  // text reads back as that one token.
  const auto next_unused = [&](int from, int avoid) -> std::optional<int> {
    for (int k = 1, tried = 0; k < limit && tried < 64; ++k) {
      const int id = (from + k) % limit;
      if (used.count(id) || id == avoid || !tokenizer->contains(id) || (tokenizer->bos() && id == *tokenizer->bos()))
        continue;
      ++tried;
      try {
        if (models::one_token(model, "token", models::decoded(model, id)) == id) return id;
      } catch (const std::exception&) {
      }
    }
    return std::nullopt;
  };
  const std::optional<int> replacement = next_unused(ids[std::size_t(earlier)], -1);
  const int answer = ids[std::size_t(earlier) + 1];
  const std::optional<int> wrong = next_unused(answer, replacement.value_or(-1));
  if (!replacement || !wrong) return none("No suggestion: no unused token of the vocabulary reads back as one token.");
  std::vector<int> corrupted = ids;
  corrupted[std::size_t(earlier)] = *replacement;
  std::string text;
  const bool bos_first = tokenizer->bos() && corrupted.front() == *tokenizer->bos();
  for (std::size_t i = bos_first ? 1 : 0; i < corrupted.size(); ++i) text += models::decoded(model, corrupted[i]);
  // A tokenizer that puts a space before the first word decodes it with one: typed without it, as
  // the clean prompt was, when that reads back the same.
  std::vector<std::string> texts = {text};
  if (!text.empty() && text.front() == ' ' && !clean.empty() && clean.front() != ' ') texts.insert(texts.begin(), text.substr(1));
  for (const std::string& candidate : texts) {
    try {
      if (model.encode(candidate) == corrupted)
        return PatchingFields{clean, candidate, models::decoded(model, answer), models::decoded(model, *wrong)};
    } catch (const std::exception&) {
    }
  }
  return none("No suggestion: the corrupt prompt made from it does not read back as the same tokens.");
}

PatchingRun::~PatchingRun() {
  if (progress_) progress_->cancelled = true;  // the runner waits for the task: let it end soon
  if (tasks_ && running_) tasks_->Cancel(running_);
  if (tasks_ && reading_) tasks_->Cancel(reading_);
}

void PatchingRun::SetFields(std::shared_ptr<const models::HfModel> model, const PatchingFields& fields) {
  if (model != model_) {  // another model: nothing of the one before applies
    Cancel();
    note_.clear();
    result_.reset();
    ++result_serial_;
    input_.reset();
    model_ = std::move(model);
    fields_ = fields;
    return StartReading();
  }
  if (fields == fields_) return;
  fields_ = fields;
  StartReading();
}

void PatchingRun::StartReading() {
  if (!model_) return;
  // Superseding: a reading of older fields still going is dropped.
  reading_ = tasks_->Start<std::shared_ptr<const PatchingInput>>(
      kind_ + "-read",
      [model = model_, fields = fields_] { return std::make_shared<const PatchingInput>(ReadPatchingFields(model, fields)); },
      [this](TaskResult<std::shared_ptr<const PatchingInput>> result) {
        reading_ = 0;
        input_ = result.Take();  // ReadPatchingFields never throws
      });
}

void PatchingRun::Run() {
  if (!CanRun()) return;
  note_.clear();
  progress_ = std::make_shared<Progress>();
  const models::ModelConfig& c = model_->config();
  progress_->total = c.layers * c.heads + (input_->request.positions ? c.layers * int(input_->request.clean.size()) : 0);
  const bool hold = std::exchange(hold_next_, false);
  running_ = tasks_->Start<std::shared_ptr<const PatchingResult>>(
      kind_ + "-run",
      [input = input_, progress = progress_, hold] {
        auto result = std::make_shared<PatchingResult>();
        result->input = *input;
        const auto report = [&progress, hold](int done, int total) {
          progress->done = done;
          progress->total = total;
          while (hold && !progress->cancelled) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        };
        result->patching = models::patch(input->model->transformer(), input->request, report, &progress->cancelled);
        return std::shared_ptr<const PatchingResult>(std::move(result));
      },
      [this](TaskResult<std::shared_ptr<const PatchingResult>> result) {
        running_ = 0;
        try {
          result_ = result.Take();
          ++result_serial_;
        } catch (const std::exception& e) {  // refused by patch() (the same logit difference twice, memory)
          note_ = e.what();
        }
      });
}

void PatchingRun::Cancel() {
  if (!running_) return;
  progress_->cancelled = true;  // patch() stops at its next patched run
  tasks_->Cancel(running_);     // and whatever it gives is dropped, however far it got
  running_ = 0;
  note_ = "run: cancelled after " + std::to_string(Done()) + " of " + std::to_string(Total()) + " patched runs";
}

}  // namespace attnlab::app
