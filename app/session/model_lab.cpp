#include "session/model_lab.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <mutex>
#include <utility>

#include "attnlab/attention.h"
#include "attnlab/message_text.h"
#include "attnlab/model.h"
#include "attnlab/numbering.h"
#include "attnlab/text_fit.h"

namespace attnlab::app {

/// The next tokens after one version of an edited layer, and the model's own beside them.
struct ModelLab::Prediction {
  std::uint64_t version = 0, model_serial = 0;
  int layer = -1;
  int position = -1;  ///< an encoder's masked word (-1: a decoder's next token, or no word chosen)
  std::vector<models::Prediction> model, edited;
  std::string error;  ///< the edited layer could not be run through the model
};

/// The newest input typed, shared by the UI thread and the run in flight. A newer one stops the run
/// (`superseded`, checked at each regex match and layer) and the run's task goes on with it: a
/// round trip through the UI thread cost a frame or two (16 to 50 ms) on every keystroke.
struct ModelLab::NewestText {
  std::atomic<bool> superseded{false};
  std::atomic<bool> abandoned{false};  ///< another model was opened: nothing more to run
  /// Typed on the UI thread.
  void Type(const ModelInput& input) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      input_ = input;
    }
    superseded.store(true);
  }
  /// On the run's thread: the input to run now, the flag cleared first so that one typed
  /// meanwhile stops the run again.
  ModelInput Take() {
    superseded.store(false);
    const std::lock_guard<std::mutex> lock(mutex_);
    attempted_ = input_;
    return input_;
  }
  /// The input the task ran last (read once the task has ended).
  ModelInput Attempted() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return attempted_;
  }

 private:
  mutable std::mutex mutex_;
  ModelInput input_, attempted_;
};

namespace {

namespace fs = std::filesystem;

/// "second text: gpt2 is a decoder ...": the window's pair field on a decoder, as the CLI's --pair.
void RefusePairOnDecoder(const models::HfModel& model) {
  refuse("second text", model.config().model_type +
                            " is a decoder and reads one text; a pair is for the encoders (bert, distilbert, roberta)");
}

// The tokens of `input` and the model's forward pass on them, every layer's weights kept; an
// encoder's masked word predicted at the hidden token or the first mask token.
ModelRun RunText(const models::HfModel& model, const ModelInput& input, const std::atomic<bool>* stop) {
  ModelRun r;
  r.text = input.text;
  r.pair = input.pair;
  r.asked_hidden = input.hidden;
  models::Tokenizer::Encoding encoding;
  if (!input.pair.empty()) {
    if (model.config().causal) RefusePairOnDecoder(model);
    encoding = model.encode_pair(input.text, input.pair, stop);
  } else if (model.tokenizer()) {
    encoding = model.encode_single(input.text, stop, true);
  } else {  // a folder without a tokenizer takes token ids, as the CLI's --ids does
    encoding.ids = model.ids_from_text(input.text);
  }
  std::vector<int>& ids = encoding.ids;
  // Beyond the model's positions the grid shows the first ones, and says so, rather than nothing.
  const std::size_t positions = std::size_t(model.config().usable_positions());
  if (ids.size() > positions) {
    r.cut_note = "The text has " + std::to_string(ids.size()) + " tokens, more than the model's " +
                 std::to_string(positions) + " positions: the grid shows the first " + std::to_string(positions) + ".";
    ids.resize(positions);
    if (encoding.sequence_ids.size() > positions) encoding.sequence_ids.resize(positions);
    if (encoding.type_ids.size() > positions) encoding.type_ids.resize(positions);
  }
  r.sequence = encoding.sequence_ids;
  const std::optional<int> mask = model.mask_id();
  const std::size_t hidden = std::size_t(input.hidden);
  if (!model.config().causal && mask && input.hidden >= 0 && hidden < ids.size() && hidden < r.sequence.size() &&
      r.sequence[hidden] >= 0) {
    r.hidden = input.hidden;
    r.hidden_label = model.label(ids[hidden]);
    ids[hidden] = *mask;
  }
  r.labels = model.labels(ids);
  // DistilBERT has no token types: its pair is the ids alone.
  const std::vector<int> types = model.config().type_vocab > 0 ? encoding.type_ids : std::vector<int>{};
  auto run = std::make_shared<models::ForwardRun>(
      model.transformer().run(ids, model.config().vocab, {}, models::Keep::all(), stop, nullptr, types));
  if (!model.config().causal) {
    r.position = r.hidden;
    for (std::size_t i = 0; mask && r.position < 0 && i < ids.size(); ++i)
      if (ids[i] == *mask) r.position = int(i);
    if (r.position >= 0) r.at_position = model.transformer().predict_at(run->output, r.position, model.config().vocab);
  }
  r.run = std::move(run);
  return r;
}

/// The token types of a layer's recorded pair (`texts`), for a run of its ids: BERT's segments are
/// in X already, but the layers after it are run again from the embeddings. Empty for one text, a
/// model without token types, or a pair whose tokens are not the ids' count.
std::vector<int> PairTypes(const models::HfModel& model, const ModelInput& texts, const std::vector<int>& ids) {
  if (texts.pair.empty() || texts.text.empty() || model.config().type_vocab == 0 || !model.tokenizer()) return {};
  try {
    std::vector<int> types = model.encode_pair(texts.text, texts.pair).type_ids;
    return types.size() == ids.size() ? types : std::vector<int>{};
  } catch (const std::exception&) {
    return {};
  }
}

/// The folder's name for titles, escaped: a name holding a newline still gives one line.
std::string FolderName(const std::string& folder) {
  const fs::path p(folder);
  const std::string name = (p.filename().empty() ? p.parent_path().filename() : p.filename()).string();
  return printable_text(name.empty() ? folder : name);
}

bool SameFolder(const std::string& a, const fs::path& b) {
  std::error_code ec;
  return a == b.string() || fs::equivalent(a, b, ec);
}

// view.model.ids, or empty when absent or not whole numbers the model has.
std::vector<int> IdsOf(const nlohmann::json& m, const models::HfModel& model) {
  std::vector<int> ids;
  const auto it = m.find("ids");
  if (it == m.end() || !it->is_array()) return {};
  for (const nlohmann::json& id : *it) {
    if (!id.is_number_integer() || id.get<long long>() < 0 || id.get<long long>() >= model.config().vocab) return {};
    ids.push_back(id.get<int>());
  }
  return ids;
}

// view.model.weights names other weights than `model` holds (a layer saved before the fingerprint
// was recorded has none: its folder alone identifies it).
bool OtherWeights(const nlohmann::json& m, const models::HfModel& model) {
  const auto it = m.find("weights");
  return it != m.end() && (!it->is_string() || it->get<std::string>() != model.weights_id());
}

const nlohmann::json* ModelView(const attnlab::Scenario& s) {
  const auto it = s.view.find("model");
  return it != s.view.end() && it->is_object() ? &*it : nullptr;
}

// view.model's `key` ("text", "pair") when it is a string, else "".
std::string TextOf(const nlohmann::json& m, const char* key) {
  const auto it = m.find(key);
  return it != m.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Why view.model's text or pair cannot be typed again, in one line naming the field, or "".
std::string TextsError(const nlohmann::json& m) {
  for (const char* key : {"text", "pair"}) {
    const auto it = m.find(key);
    if (it != m.end() && !it->is_string())
      return std::string("view.model.") + key + ": expected a string (" +
             (std::string(key) == "pair" ? "an encoder's second text" : "the text the layer was made from") + "), got " +
             it->type_name();
  }
  return "";
}

// The first position of the mask token in `ids`, or -1.
int FirstMask(const models::HfModel& model, const std::vector<int>& ids) {
  const std::optional<int> mask = model.mask_id();
  for (std::size_t i = 0; mask && i < ids.size(); ++i)
    if (ids[i] == *mask) return int(i);
  return -1;
}

std::string AbsoluteFolder(const std::string& folder) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(folder, ec).lexically_normal();
  return ec ? folder : absolute.string();
}

std::string OtherWeightsNote(const models::HfModel& model) {
  return "The weights in " + quoted_excerpt(model.dir().string()) +
         " are not the ones this layer was made from (another checkpoint, or changed since): Next token "
         "would be wrong. Locate" + kEllipsis + " opens the folder it was made from.";
}

}  // namespace

int LayerOf(const attnlab::Scenario& scenario, const models::HfModel& model) {
  const nlohmann::json* m = ModelView(scenario);
  if (!m) return -1;
  const auto folder = m->find("folder"), layer = m->find("layer");
  if (folder == m->end() || !folder->is_string() || layer == m->end() || !layer->is_number_integer()) return -1;
  const long long l = layer->get<long long>();
  if (l < 0 || l >= model.config().layers || IdsOf(*m, model).empty() || OtherWeights(*m, model) ||
      !TextsError(*m).empty())
    return -1;
  return SameFolder(folder->get<std::string>(), model.dir()) ? int(l) : -1;
}

attnlab::Matrix LayerOutput(const attnlab::Scenario& scenario) {
  const attnlab::Trace trace = attnlab::compute(scenario);
  // S = rows: n_x by d_model already; columns: d_model by n_x.
  if (scenario.layout == attnlab::Layout::columns) return trace.output.transpose();
  return trace.output;
}

void ModelLab::Init(Session& session, Document& document) {
  session_ = &session;
  doc_ = &document;
  patching_.Init(session.Tasks());
  UpdateNext();
}

void ModelLab::RequestOpen(const std::string& folder) {
  const std::string path = AbsoluteFolder(folder);
  loading_name_ = FolderName(path);
  open_task_ = session_->Tasks().Start<std::shared_ptr<const models::HfModel>>(
      "model-open", [path] { return models::HfModel::open(path); },
      [this, path](TaskResult<std::shared_ptr<const models::HfModel>> result) {
        open_task_ = 0;
        try {
          model_ = result.Take();
        } catch (const std::exception& e) {
          if (path == locating_) locating_.clear();
          session_->ShowError("Cannot open model " + FolderName(path), e.what());
          UpdateNext();
          return;
        }
        ++model_serial_;
        if (running_) {  // a run of the model open before: dropped, its tokenizing stopped
          session_->Tasks().Cancel(running_);
          running_ = 0;
          newest_->abandoned.store(true);
          newest_->superseded.store(true);
          newest_.reset();
        }
        doc_->status = "opened model " + model_->name() + ": " + model_->config().describe();
        run_ = {};
        ++run_serial_;
        text_error_.clear();
        if (!input_.text.empty()) StartRun();
        if (path == locating_) AdoptLocated();
        UpdateNext();
      });
  UpdateNext();
}

void ModelLab::Locate(const std::string& folder) {
  locating_ = AbsoluteFolder(folder);
  if (!model_ || !SameFolder(locating_, model_->dir())) return RequestOpen(locating_);
  AdoptLocated();  // the open model's own folder: nothing to open
  UpdateNext();
}

std::string ModelLab::DocumentFolder() const {
  const nlohmann::json* m = ModelView(doc_->GetScenario());
  const auto folder = m ? m->find("folder") : nlohmann::json::const_iterator();
  return m && folder != m->end() && folder->is_string() ? folder->get<std::string>() : std::string();
}

// The folder Locate() chose is open: the document becomes a layer of it when its weights are the
// ones the layer was made from (a layer saved before fingerprints were recorded: the folder the
// teacher chose is taken at its word).
void ModelLab::AdoptLocated() {
  locating_.clear();
  if (!ModelView(doc_->GetScenario())) return;
  if (OtherWeights(*ModelView(doc_->GetScenario()), *model_)) {
    reconnect_note_ = OtherWeightsNote(*model_);
    return;
  }
  const std::string folder = model_->dir().string();
  reconnect_note_.clear();
  doc_->ApplyEdit("view.model", [&folder](attnlab::Scenario& s) { s.view["model"]["folder"] = folder; });
  doc_->status = "this layer's model folder is now " + folder;
}

void ModelLab::SetText(const std::string& text) {
  ModelInput input = input_;
  input.text = text;
  SetInput(input);
}

void ModelLab::SetPair(const std::string& pair) {
  ModelInput input = input_;
  input.pair = pair;
  SetInput(input);
}

void ModelLab::ToggleHidden(int position) {
  ModelInput input = input_;
  input.hidden = input.hidden == position ? -1 : position;
  SetInput(input);
}

void ModelLab::SetInput(const ModelInput& input) {
  if (input == input_) return;
  input_ = input;
  if (running_ == 0) return StartRun();
  // The run in flight is stale: its tokenizing or forward pass stops at once (at the next layer),
  // and its task runs the newest input: never more than one run behind.
  newest_->Type(input);
}

void ModelLab::StartRun() {
  if (!model_) return;
  if (input_.text.empty()) {  // nothing to run: no grid, no error either
    run_ = {};
    text_error_.clear();
    ++run_serial_;
    UpdateNext();
    return;
  }
  const std::uint64_t serial = model_serial_;
  newest_ = std::make_shared<NewestText>();
  newest_->Type(input_);
  running_ = session_->Tasks().Start<ModelRun>(
      "model-run",
      [model = model_, newest = newest_] {
        for (;;) {
          const ModelInput input = newest->Take();
          try {
            return RunText(*model, input, &newest->superseded);
          } catch (const std::exception&) {
            // Stopped by a newer text (or refused while one was typed): run that one now.
            if (!newest->superseded.load() || newest->abandoned.load()) throw;
          }
        }
      },
      [this, serial, newest = newest_](TaskResult<ModelRun> result) { FinishRun(serial, *newest, std::move(result)); });
}

void ModelLab::FinishRun(std::uint64_t serial, const NewestText& newest, TaskResult<ModelRun> result) {
  running_ = 0;
  newest_.reset();
  if (serial != model_serial_) return;  // a run of the model open before
  try {
    run_ = result.Take();
    text_error_.clear();
  } catch (const std::exception& e) {
    const ModelInput input = newest.Attempted();
    if (input != input_) return StartRun();  // refused, but typed over: the last run stays
    run_ = {};
    run_.text = input.text;
    run_.pair = input.pair;
    run_.asked_hidden = input.hidden;
    text_error_ = e.what();
  }
  ++run_serial_;
  if (run_.Input() != input_) StartRun();  // typed meanwhile: the newest input now
  UpdateNext();
}

void ModelLab::OpenLayer(int layer, int head) {
  if (!model_ || !run_.run) return;
  layer_task_ = session_->Tasks().Start<std::shared_ptr<LoadedScenario>>(
      "model-layer",
      [model = model_, run = run_.run, layer, head, text = run_.text, pair = run_.pair] {
        auto loaded = std::make_shared<LoadedScenario>();
        loaded->scenario = models::layer_scenario(*model, *run, layer, text, pair);
        loaded->scenario.view["model"]["head"] = head;  // selected again when saved and reopened
        attnlab::validate(loaded->scenario);
        loaded->name = model->name() + "-layer-" + attnlab::index_text(layer);
        return loaded;
      },
      [this, layer](TaskResult<std::shared_ptr<LoadedScenario>> result) {
        layer_task_ = 0;
        std::shared_ptr<LoadedScenario> loaded;
        try {
          loaded = result.Take();
        } catch (const std::exception& e) {
          session_->ShowError("Cannot open " + attnlab::layer_label(layer), e.what());
          return;
        }
        session_->RequestOpenNew(std::move(*loaded));
      });
}

void ModelLab::Tick() {
  if (followed_version_ != doc_->Version() || followed_model_ != model_serial_ || followed_run_ != run_serial_)
    FollowDocument();
}

// A newly opened document that is a layer of a model folder (a saved layer reopened): that folder
// is opened unless it is the open one, and the text the layer was made from is typed again; a
// folder no longer there is said in one line. Once per document: closing the model stays closed.
void ModelLab::Reconnect(const attnlab::Scenario& scenario) {
  if (doc_->OpenCount() == reconnected_document_) return;
  reconnected_document_ = doc_->OpenCount();
  reconnect_note_.clear();
  link_error_.clear();
  const nlohmann::json* m = ModelView(scenario);
  const auto folder = m ? m->find("folder") : nlohmann::json::const_iterator();
  if (!m || folder == m->end() || !folder->is_string()) return;
  link_error_ = TextsError(*m);
  if (!link_error_.empty()) return;
  if (m->contains("text")) SetInput({TextOf(*m, "text"), TextOf(*m, "pair"), -1});
  const std::string path = folder->get<std::string>();
  if ((model_ && SameFolder(path, model_->dir())) || Loading()) return;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    reconnect_note_ = "This layer's model folder " + quoted_excerpt(path) + " is not there (moved or deleted): Locate" +
                      kEllipsis + " opens it where it is now.";
    doc_->status += ": its model folder " + quoted_excerpt(path) + " is not there (Locate" + kEllipsis + " in Model)";
    return;
  }
  RequestOpen(path);
}

// The document changed (or the model, or the run it may reuse): is it a layer of the model, and
// what does the model predict after it?
void ModelLab::FollowDocument() {
  followed_version_ = doc_->Version();
  followed_model_ = model_serial_;
  followed_run_ = run_serial_;
  const std::shared_ptr<const attnlab::Scenario> snapshot = doc_->Snapshot();
  Reconnect(*snapshot);
  doc_layer_ = model_ ? LayerOf(*snapshot, *model_) : -1;
  const nlohmann::json* m = ModelView(*snapshot);
  const auto folder = m ? m->find("folder") : nlohmann::json::const_iterator();
  if (model_ && m && folder != m->end() && folder->is_string() && SameFolder(folder->get<std::string>(), model_->dir()) &&
      OtherWeights(*m, *model_))
    reconnect_note_ = OtherWeightsNote(*model_);
  if (doc_layer_ < 0) {
    if (predict_task_) session_->Tasks().Cancel(predict_task_);
    predict_task_ = 0;
    UpdateNext();
    return;
  }
  const std::vector<int> ids = IdsOf(*ModelView(*snapshot), *model_);
  // The run of the typed text serves when the document is a layer of it; else the task runs its own.
  std::shared_ptr<const models::ForwardRun> base = run_.run && run_.run->ids == ids ? run_.run : nullptr;
  // An encoder's word: where the typed text's run predicts it, else at the layer's first mask token.
  const int position = model_->config().causal ? -1 : base ? run_.position : FirstMask(*model_, ids);
  const ModelInput texts{TextOf(*ModelView(*snapshot), "text"), TextOf(*ModelView(*snapshot), "pair"), -1};
  const int layer = doc_layer_;
  const std::uint64_t version = doc_->Version(), serial = model_serial_;
  predict_task_ = session_->Tasks().Start<std::shared_ptr<const Prediction>>(
      "model-next",
      [model = model_, snapshot, base, ids, texts, position, layer, version, serial] {
        auto p = std::make_shared<Prediction>();
        p->version = version;
        p->model_serial = serial;
        p->layer = layer;
        p->position = position;
        const int vocab = model->config().vocab;
        const std::shared_ptr<const models::ForwardRun> run =
            base ? base  // else a run of its own, which needs only the document's layer kept
                 : std::make_shared<const models::ForwardRun>(model->transformer().run(
                       ids, vocab, {}, models::Keep::only(layer), nullptr, nullptr, PairTypes(*model, texts, ids)));
        const bool encoder = !model->config().causal;
        if (encoder && position < 0) return std::shared_ptr<const Prediction>(std::move(p));  // no word to predict
        p->model = encoder ? model->transformer().predict_at(run->output, position, vocab) : run->next;
        try {
          if (encoder)
            p->edited = model->transformer().predict_at(
                model->transformer().output_after_layer(*run, layer, LayerOutput(*snapshot)), position, vocab);
          else
            p->edited = model->transformer().next_after_layer(*run, layer, LayerOutput(*snapshot), vocab);
        } catch (const std::exception& e) {
          p->error = e.what();
        }
        return std::shared_ptr<const Prediction>(std::move(p));
      },
      [this](TaskResult<std::shared_ptr<const Prediction>> result) { FinishPrediction(std::move(result)); });
  UpdateNext();
}

void ModelLab::FinishPrediction(TaskResult<std::shared_ptr<const Prediction>> result) {
  predict_task_ = 0;
  try {
    prediction_ = result.Take();
  } catch (const std::exception& e) {  // the document's ids could not be run at all
    auto failed = std::make_shared<Prediction>();
    failed->version = doc_->Version();
    failed->model_serial = model_serial_;
    failed->layer = doc_layer_;
    failed->error = e.what();
    prediction_ = std::move(failed);
  }
  UpdateNext();
}

// The one line of the Masked word view when no word is chosen: how to choose one.
std::string ChooseWordNote(const models::HfModel& model) {
  const std::optional<int> mask = model.mask_id();
  if (!mask)
    return model.name() + " predicts the word at a mask token, and its tokenizer has no [MASK] or <mask>.";
  const std::string token = model.tokenizer()->token(*mask);
  return "No word to predict: click a word of the text in the Model panel to hide it behind " + token +
         ", or type " + token + " in the text.";
}

void ModelLab::UpdateNext() {
  NextTokens n;
  const std::string name = model_ ? model_->name() : std::string();
  n.masked_word = model_ && !model_->config().causal;
  // An encoder's word: "the word hidden at token 6 (␣mat)", or "the [MASK] at token 6" (typed).
  const auto word_at = [this](int position) {
    const std::string at = " at token " + attnlab::index_text(position);
    if (run_.hidden == position && position >= 0) return " the word hidden" + at + " (" + run_.hidden_label + ")";
    const std::optional<int> mask = model_->mask_id();
    return " the " + (mask ? model_->tokenizer()->token(*mask) : std::string("mask token")) + at;
  };
  if (!model_) {
    n.offer_locate = !Loading() && !reconnect_note_.empty() && link_error_.empty();
    n.note = Loading()               ? "Loading " + loading_name_ + kEllipsis
             : !link_error_.empty()  ? link_error_
             : n.offer_locate        ? reconnect_note_
                                     : "No model open: File > Open model" + std::string(kEllipsis) +
                                    " (GPT-2, Llama, Qwen2, BERT).";
  } else if (doc_layer_ >= 0) {
    n.state = NextTokens::State::Edited;
    n.layer = doc_layer_;
    n.stale = predict_task_ != 0;
    const Prediction* p = prediction_.get();
    if (p && p->model_serial == model_serial_ && p->layer == doc_layer_) {
      n.model = p->model;
      n.edited = p->edited;
      n.version = p->version;
      n.position = p->position;
      n.stale = n.stale || p->version != doc_->Version();
      if (!p->error.empty()) n.state = NextTokens::State::Failed;
      const std::string what = n.masked_word ? "'s own guess for" + word_at(p->position) + "." : "'s own prediction.";
      n.note = !p->error.empty() ? "Layer " + attnlab::index_text(doc_layer_) + " no longer fits " + name + ": " + p->error
               : n.masked_word && p->position < 0
                   ? ChooseWordNote(*model_)
                   : "After the edits of " + attnlab::layer_label(doc_layer_) + (n.masked_word ? "" : " (the document)") +
                         ", beside " + name + what;
    } else {
      n.note = "Running the rest of " + name + kEllipsis;
    }
  } else if (run_.run) {
    n.state = NextTokens::State::ModelOnly;
    n.model = n.masked_word ? run_.at_position : run_.run->next;
    n.position = run_.position;
    n.stale = RunStale();
    n.offer_locate = !reconnect_note_.empty();
    n.note = n.offer_locate                       ? reconnect_note_
             : n.masked_word && run_.position < 0 ? ChooseWordNote(*model_)
             : n.masked_word ? name + "'s guess for" + word_at(run_.position) +
                                   ". Click a map in the Model panel to edit a layer."
                             : "The document is not a layer of " + name + ": click a map in the Model panel to edit one.";
  } else {
    n.state = NextTokens::State::NoText;
    n.offer_locate = text_error_.empty() && !reconnect_note_.empty();
    n.note = !text_error_.empty()  ? text_error_
             : n.offer_locate      ? reconnect_note_
             : model_->tokenizer() ? "Type a text in the Model panel."
                                   : "Type token ids in the Model panel (the folder has no tokenizer).";
  }
  n.serial = ++next_serial_;
  next_ = std::move(n);
}

std::vector<NextRow> CompareNext(const NextTokens& next, int k) {
  const bool compare = next.state == NextTokens::State::Edited && !next.edited.empty();
  const std::vector<models::Prediction>& first = compare ? next.edited : next.model;
  std::vector<NextRow> rows;
  auto p_of = [](const std::vector<models::Prediction>& list, int id) {
    for (const models::Prediction& p : list)
      if (p.id == id) return p.p;
    return 0.0;  // below every listed one (the lists hold the whole vocabulary)
  };
  auto add = [&](int id) {
    for (const NextRow& r : rows)
      if (r.id == id) return;
    rows.push_back({id, p_of(next.model, id), compare ? p_of(next.edited, id) : p_of(next.model, id)});
  };
  for (std::size_t i = 0; i < first.size() && int(i) < k; ++i) add(first[i].id);
  if (compare)
    for (std::size_t i = 0; i < next.model.size() && int(i) < k; ++i) add(next.model[i].id);
  std::stable_sort(rows.begin(), rows.end(), [](const NextRow& a, const NextRow& b) { return a.edited > b.edited; });
  return rows;
}

}  // namespace attnlab::app
