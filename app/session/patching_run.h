#pragma once
/// PatchingRun: activation patching between two prompts (models/patching.h) for the window's
/// Patching panel. Its four fields (the clean and the corrupt prompt, the answer and the wrong
/// token) are read by the model's tokenizer off the UI thread as they are typed: the token counts,
/// or the one line that refuses them, naming the field as `attnlab-cli patch` does. Run() patches
/// every head and every layer x position on the session's one TaskRunner, with its progress;
/// Cancel() stops it at its next patched run and drops what it would have given. GUI-free: the
/// panel draws it, tests drive it without a display.
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/models/hf_model.h"
#include "attnlab/models/patching.h"
#include "session/task_runner.h"

namespace attnlab::app {

/// What the Patching panel's four fields hold, as typed.
struct PatchingFields {
  std::string clean, corrupt, answer, wrong;
  bool operator==(const PatchingFields& o) const {
    return clean == o.clean && corrupt == o.corrupt && answer == o.answer && wrong == o.wrong;
  }
  bool operator!=(const PatchingFields& o) const { return !(*this == o); }
};

/// The fields as one model reads them.
struct PatchingInput {
  PatchingFields fields;
  std::shared_ptr<const models::HfModel> model;
  models::PatchRequest request;  ///< the ids; answer and wrong -1 until read
  std::vector<std::string> clean_labels, corrupt_labels;  ///< HfModel::label of each id ("␣cat")
  std::string answer_label, wrong_label;
  /// One line naming the first field refused ("corrupt: 9 tokens, the clean prompt has 10: ..."),
  /// "" when the run can start.
  std::string error;
  bool incomplete = false;  ///< `error` only says a field is empty: a hint, not a refusal
  /// An induction pair for the clean prompt (SuggestInductionPair), when it has one; else why not.
  std::optional<PatchingFields> suggestion;
  std::string no_suggestion;
  bool Ready() const { return error.empty(); }
};

/// Reads `fields` with `model`'s tokenizer (token ids typed as text for a folder without one).
/// Never throws: what is refused is PatchingInput::error.
PatchingInput ReadPatchingFields(std::shared_ptr<const models::HfModel> model, const PatchingFields& fields);

/// Fields that make `clean` a test of induction, when its last token appeared before: the corrupt
/// prompt has that earlier copy replaced by the next token id that is not in the prompt, the answer
/// is the token that followed the earlier copy, the wrong token the next id after the answer that is
/// not in the prompt. The circuit's vocabulary is grouped by kind, so "the cat sat on a mat . the cat"
/// gives "the dog sat on a mat . the cat", " sat" against " ran": patching heads 0.0 and 1.1 restores
/// it. None without a tokenizer, when the last token is new, or when a text does not read back as
/// those tokens: `why` (if given) then says which, in one line.
std::optional<PatchingFields> SuggestInductionPair(const models::HfModel& model, const std::string& clean,
                                                   std::string* why = nullptr);

/// What a finished run gives.
struct PatchingResult {
  PatchingInput input;
  models::Patching patching;  ///< logit differences, heads (layers x heads), positions (layers x n)
  /// The logit difference (answer - wrong) of the patched run whose normalised effect is `effect`.
  double Raw(double effect) const { return patching.corrupted + effect * (patching.clean - patching.corrupted); }
};

class PatchingRun {
 public:
  /// `kind` names its tasks on the runner (TaskRunner supersedes by kind): the Patching panel's and
  /// a lesson's patching step each their own.
  explicit PatchingRun(std::string kind = "patching") : kind_(std::move(kind)) {}
  /// Runs its work on `tasks`, which must outlive it.
  void Init(TaskRunner& tasks) { tasks_ = &tasks; }
  ~PatchingRun();  ///< a run still going stops at its next patched run

  /// The fields as the panel holds them this frame, with the open model (null: none): read again,
  /// off the UI thread, when either changed. Another model drops the run and its result.
  void SetFields(std::shared_ptr<const models::HfModel> model, const PatchingFields& fields);
  const PatchingFields& Fields() const { return fields_; }
  /// The last reading of the fields (null before the first); InputStale(): of older fields.
  const PatchingInput* Input() const { return input_.get(); }
  bool InputStale() const { return reading_ != 0 || !input_ || input_->fields != fields_ || input_->model != model_; }
  /// The current fields are read, accepted, and no run is going.
  bool CanRun() const { return !InputStale() && input_->Ready() && !Running(); }

  /// Patches the current fields (when CanRun()).
  void Run();
  /// Stops the run: its result is dropped, the last result stays; Note() says where it stopped.
  void Cancel();
  bool Running() const { return running_ != 0; }
  /// Patched runs done and in all, while Running().
  int Done() const { return progress_ ? progress_->done.load() : 0; }
  int Total() const { return progress_ ? progress_->total.load() : 0; }

  /// The last finished run, or null.
  const PatchingResult* Result() const { return result_.get(); }
  /// A new number whenever Result() changes (views key their caches on it); 0 before the first.
  std::uint64_t ResultSerial() const { return result_serial_; }
  /// Result() is of other fields than the current ones.
  bool ResultStale() const { return result_ && result_->input.fields != fields_; }
  /// Why the last run gave nothing ("cancelled after 1 of 24 patched runs", or patch()'s refusal), or "".
  const std::string& Note() const { return note_; }

  bool Busy() const { return reading_ != 0 || running_ != 0; }

  /// For window tests of Cancel that must not depend on timing: the next run waits after its first
  /// patched run until it is cancelled (as TraceWorker::HoldRestAfterHead holds a trace).
  void HoldNextRun() { hold_next_ = true; }

 private:
  struct Progress {
    std::atomic<int> done{0}, total{0};
    std::atomic<bool> cancelled{false};
  };
  void StartReading();

  TaskRunner* tasks_ = nullptr;
  std::string kind_;
  std::shared_ptr<const models::HfModel> model_;
  PatchingFields fields_;
  std::shared_ptr<const PatchingInput> input_;
  std::shared_ptr<const PatchingResult> result_;
  std::shared_ptr<Progress> progress_;  ///< of the run going (or the last one)
  TaskRunner::TaskId reading_ = 0, running_ = 0;
  std::uint64_t result_serial_ = 0;
  std::string note_;
  bool hold_next_ = false;
};

}  // namespace attnlab::app
