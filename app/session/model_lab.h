#pragma once
/// ModelLab: a Hugging Face model folder opened beside the document (issue 24). It keeps the open
/// model, the text typed for it, the tokens and the forward run of that text (every layer's and
/// head's weights), turns one layer into the document (through the session's unsaved-changes
/// guard), and predicts the next token after the edits made to that layer. Every slow step
/// (opening the folder, tokenizing and running the model, the rest of the model after an edited
/// layer) runs on the session's one TaskRunner; results arrive in Session::Poll(). GUI-free: the
/// Model and Next token panels draw it, tests drive it without a display.
///
/// The window's part, once per frame: Tick() after Session::Poll().
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "attnlab/models/hf_model.h"
#include "session/document.h"
#include "session/patching_run.h"
#include "session/session.h"
#include "session/task_runner.h"

namespace attnlab::app {

/// What the model reads: a text, an encoder's second text (a pair), and the token hidden behind the
/// mask token (an encoder's word the user clicked), as the Model view sets them.
struct ModelInput {
  std::string text, pair;  ///< pair: "" for one text
  int hidden = -1;         ///< the position hidden behind the mask token, or -1
  bool operator==(const ModelInput& o) const { return text == o.text && pair == o.pair && hidden == o.hidden; }
  bool operator!=(const ModelInput& o) const { return !(*this == o); }
};

/// The tokens of one input and the model's forward pass on them.
struct ModelRun {
  std::string text, pair;
  /// The position the mask token replaced (ModelInput::hidden when it names a word of the run, else
  /// -1) and the label of the word it hides ("␣cat").
  int hidden = -1;
  std::string hidden_label;
  std::vector<std::string> labels;  ///< HfModel::label of each id ("␣cat"; [MASK] where hidden)
  /// Per token, the text it came from: 0 the first, 1 the pair's second, -1 a special token the
  /// tokenizer added ([CLS], [SEP]). Empty for one text without a tokenizer.
  std::vector<int> sequence;
  /// An encoder's masked word: the position it predicts (the hidden one, else the first mask token
  /// typed, else -1) and the model's prediction there (whole vocabulary, most likely first).
  int position = -1;
  std::vector<models::Prediction> at_position;
  std::shared_ptr<const models::ForwardRun> run;  ///< ids, types, every layer's weights, next (whole vocabulary)
  int asked_hidden = -1;  ///< ModelInput::hidden as asked (`hidden` is -1 when it named no word)
  /// The input it ran, as asked.
  ModelInput Input() const { return {text, pair, asked_hidden}; }
  /// The text has more tokens than the model's positions: how many, and that the run is of the
  /// first ones ("" when the whole text ran).
  std::string cut_note;
};

/// What the Next token panel shows.
struct NextTokens {
  enum class State {
    NoModel,    ///< no model open (or loading)
    NoText,     ///< a model, but no run yet (type a text)
    ModelOnly,  ///< the model's prediction; the document is not one of its layers
    Edited,     ///< the document is layer `layer`: `edited` after its edits beside `model`
    Failed,     ///< the edited layer cannot be run through the model (`note` says why)
  };
  State state = State::NoModel;
  /// An encoder's masked word in place of the next token: the position predicted (-1: none chosen
  /// yet, and `note` says how to choose one).
  bool masked_word = false;
  int position = -1;
  std::string note;   ///< one line for the panel
  /// The note says the document's model folder is not there or holds other weights: the panel
  /// offers Locate… (ModelLab::Locate).
  bool offer_locate = false;
  int layer = -1;     ///< 0-based, when State::Edited (or Failed)
  std::vector<models::Prediction> model;   ///< unedited, most likely first (whole vocabulary)
  std::vector<models::Prediction> edited;  ///< after the document's edits (State::Edited)
  bool stale = false;  ///< a newer document version is being run through the model
  std::uint64_t version = 0;  ///< the document version `edited` belongs to
  std::uint64_t serial = 0;   ///< a new number whenever any of the above changes
};

/// One token of the Next token panel: its probability as the model predicts it and after the edits.
struct NextRow {
  int id = 0;
  double model = 0, edited = 0;  ///< edited: the model's when there are no edits to compare
};
/// The `k` most likely tokens after the edits and the `k` most likely of the model, once each,
/// most likely after the edits first (State::ModelOnly: the model's `k`).
std::vector<NextRow> CompareNext(const NextTokens& next, int k);

class ModelLab {
 public:
  /// `session` and `document` must outlive the lab; its work runs on session.Tasks().
  void Init(Session& session, Document& document);

  // ---- the model ---------------------------------------------------------------------------
  /// Opens `folder` off the UI thread. A failure is one line in the session's error place
  /// ("Cannot open model x"), the model open before (and the document) stay.
  void RequestOpen(const std::string& folder);
  bool Loading() const { return open_task_ != 0; }
  /// The folder's name being opened ("gpt2"), for "Loading gpt2…".
  const std::string& LoadingName() const { return loading_name_; }
  const models::HfModel* Model() const { return model_.get(); }
  /// The open model, shared with the work that runs on it off the UI thread and may outlive it being
  /// open (the head finder, the lens, patching).
  std::shared_ptr<const models::HfModel> SharedModel() const { return model_; }

  // ---- the text and its run ----------------------------------------------------------------
  /// Tokenizes `text` (token ids typed as text for a folder without a tokenizer) and runs the model
  /// on it off the UI thread: one run at a time. Typing supersedes the running one: it stops at its
  /// next regex match or layer and the same task runs the newest text at once (nothing queues up,
  /// and no frame is waited for in between).
  void SetText(const std::string& text);
  const std::string& Text() const { return input_.text; }
  /// An encoder's second text ([CLS] text [SEP] pair [SEP]), run as SetText does; "" for one text.
  /// A decoder's run refuses a pair in one line (TextError()).
  void SetPair(const std::string& pair);
  const std::string& Pair() const { return input_.pair; }
  /// Hides the token at `position` of Run() behind the model's mask token (an encoder's Masked
  /// word: what does it predict there?) and runs again; the hidden token again shows it. A special
  /// token, or a model without a mask token, is not hidden.
  void ToggleHidden(int position);
  int Hidden() const { return input_.hidden; }
  /// The last finished run, or null (no model, no text, or the text was refused).
  const ModelRun* Run() const { return run_.run ? &run_ : nullptr; }
  /// Run() is older than Text() (a newer one is computing).
  bool RunStale() const { return running_ != 0 || run_.Input() != input_; }
  /// Changes whenever Run() does (panels key their caches on it).
  std::uint64_t RunSerial() const { return run_serial_; }
  /// Why the text was refused ("text: 2000 tokens, more than the model's 1024 positions"), or "".
  const std::string& TextError() const { return text_error_; }

  // ---- the document ------------------------------------------------------------------------
  /// Opens layer `layer` (0-based) of Run() as a new, unsaved document through the session (asks
  /// "Save changes?" first when the document has some), recording `head` (view.model.head), the
  /// head the window selects on opening it, then and whenever the file is reopened or restored.
  void OpenLayer(int layer, int head);
  /// The document's layer when it is a layer of the open model (view.model names its folder and
  /// a layer), else -1. Follows the document as of the last Tick(). A newly opened document that
  /// is a layer of another folder (a saved layer file) reopens that folder with its recorded text.
  int DocumentLayer() const { return doc_layer_; }
  /// The document's model folder is `folder` now (Next token's Locate…, when the recorded one has
  /// moved or holds other weights): opens it off the UI thread, the recorded text typed again.
  /// When its weights are the ones the layer was made from, view.model.folder becomes it (an
  /// edit: Save remembers it) and the document is a layer of it again; else one line says so.
  void Locate(const std::string& folder);
  /// Where the document says its model folder is ("" when it names none): Locate… starts there.
  std::string DocumentFolder() const;
  /// Once per frame, after Session::Poll(): follows the document's version and runs an edited
  /// layer through the rest of the model off the UI thread.
  void Tick();
  const NextTokens& Next() const { return next_; }

  /// Activation patching between two prompts of the open model (the Patching panel).
  PatchingRun& Patching() { return patching_; }
  const PatchingRun& Patching() const { return patching_; }

  /// Something is being opened or computed: the window keeps drawing frames.
  bool Busy() const {
    return Loading() || running_ != 0 || layer_task_ != 0 || predict_task_ != 0 || patching_.Busy();
  }

 private:
  struct Prediction;
  struct NewestText;
  void SetInput(const ModelInput& input);
  void StartRun();
  void FinishRun(std::uint64_t serial, const NewestText& newest, TaskResult<ModelRun> result);
  void FinishPrediction(TaskResult<std::shared_ptr<const Prediction>> result);
  void FollowDocument();
  void Reconnect(const attnlab::Scenario& scenario);
  void AdoptLocated();
  void UpdateNext();

  Session* session_ = nullptr;
  Document* doc_ = nullptr;
  std::shared_ptr<const models::HfModel> model_;
  TaskRunner::TaskId open_task_ = 0, running_ = 0, layer_task_ = 0, predict_task_ = 0;
  std::shared_ptr<NewestText> newest_;  ///< shared with the run in flight
  std::string loading_name_;
  ModelInput input_;
  std::string text_error_;
  ModelRun run_;
  std::uint64_t run_serial_ = 0;
  std::uint64_t model_serial_ = 0;    ///< a new number for every model opened
  std::uint64_t followed_version_ = 0, followed_model_ = 0, followed_run_ = 0;
  int doc_layer_ = -1;
  int reconnected_document_ = 0;  ///< Document::OpenCount() of the last document Reconnect() saw
  std::string reconnect_note_;    ///< why the document's model folder could not be reopened
  std::string link_error_;        ///< view.model's text or pair is not a string (one line naming it)
  std::string locating_;          ///< the folder Locate() is opening, until it is open (or not)
  std::shared_ptr<const Prediction> prediction_;  ///< the last finished one
  NextTokens next_;
  std::uint64_t next_serial_ = 0;
  PatchingRun patching_;
};

/// The layer a scenario's view.model names when it is a layer of `model` (same folder, a layer
/// and ids it has), else -1.
int LayerOf(const attnlab::Scenario& scenario, const models::HfModel& model);

/// Layer `layer`'s attention output of a computed scenario, as the model's residual stream holds
/// it: n by d_model (the columns layout's output transposed). Throws ScenarioError when invalid.
attnlab::Matrix LayerOutput(const attnlab::Scenario& scenario);

}  // namespace attnlab::app
