#include "instruments/model_script.h"

#include <algorithm>
#include <cstdlib>

#include "attnlab/edits.h"
#include "session/model_lab.h"

namespace attnlab::app {
namespace {

bool ParseIndex(const std::string& text, int* out) {
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < 0 || v > 4095) return false;
  *out = int(v);
  return true;
}

nlohmann::json Top(const std::vector<models::Prediction>& list) {
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = 0; i < list.size() && i < 5; ++i) out.push_back({list[i].id, list[i].p});
  return out;
}

const char* StateName(NextTokens::State s) {
  switch (s) {
    case NextTokens::State::NoModel: return "no_model";
    case NextTokens::State::NoText: return "no_text";
    case NextTokens::State::ModelOnly: return "model_only";
    case NextTokens::State::Edited: return "edited";
    case NextTokens::State::Failed: return "failed";
  }
  return "";
}

// The Patching panel's run: its fields as read, its progress, and whether a result is shown (the
// window tests read its grids from the pixels, not from here).
nlohmann::json PatchingJson(const PatchingRun& run) {
  const PatchingFields& f = run.Fields();
  nlohmann::json j = {{"fields", {{"clean", f.clean}, {"corrupt", f.corrupt}, {"answer", f.answer}, {"wrong", f.wrong}}},
                      {"input_stale", run.InputStale()}, {"running", run.Running()}, {"done", run.Done()},
                      {"total", run.Total()}, {"note", run.Note()}, {"result", nullptr}};
  if (const PatchingInput* in = run.Input())
    j["input"] = {{"error", in->error}, {"incomplete", in->incomplete}, {"clean_ids", in->request.clean},
                  {"corrupt_ids", in->request.corrupted}, {"answer", in->request.answer}, {"wrong", in->request.wrong},
                  {"no_suggestion", in->no_suggestion}};
  if (const PatchingResult* r = run.Result())
    j["result"] = {{"clean", r->patching.clean}, {"corrupted", r->patching.corrupted}, {"stale", run.ResultStale()}};
  return j;
}

}  // namespace

bool ModelScript::Parse(const std::string& text, const std::string& layer, const std::string& heads_off,
                        std::string* error) {
  active_ = !text.empty();
  text_ = text;
  if (!layer.empty()) {
    const std::size_t dot = layer.find('.');
    if (dot == std::string::npos || !ParseIndex(layer.substr(0, dot), &layer_) ||
        !ParseIndex(layer.substr(dot + 1), &head_)) {
      *error = "--model-layer: expected LAYER.HEAD (from 0), e.g. 1.0";
      return false;
    }
  }
  std::size_t start = 0;
  while (!heads_off.empty() && start <= heads_off.size()) {
    const std::size_t comma = std::min(heads_off.find(',', start), heads_off.size());
    int h = 0;
    if (!ParseIndex(heads_off.substr(start, comma - start), &h)) {
      *error = "--model-heads-off: expected heads (from 0) separated by commas, e.g. 0,2";
      return false;
    }
    heads_off_.push_back(h);
    start = comma + 1;
  }
  return true;
}

void ModelScript::BeforeFrame(AppState& state) {
  ModelLab* lab = state.models;
  if (!active_ || !lab || !lab->Model()) return;
  if (!text_set_) {
    lab->SetText(text_);
    if (!pair_.empty()) lab->SetPair(pair_);
    text_set_ = true;
  }
  if (layer_ < 0 || !lab->Run() || lab->RunStale()) return;
  if (!layer_asked_) {
    lab->OpenLayer(layer_, head_);
    layer_asked_ = true;
  }
  if (!heads_set_ && lab->DocumentLayer() == layer_) {
    for (int h : heads_off_)
      state.document.ApplyEdit("Heads", [h](attnlab::Scenario& s) { attnlab::set_head_off(s, h, true); });
    heads_set_ = true;
  }
}

bool ModelScript::Done(const AppState& state) const {
  if (!active_) return true;
  const ModelLab* lab = state.models;
  if (!lab || lab->Busy() || !text_set_) return false;
  if (!lab->Run()) return !lab->TextError().empty() && !lab->RunStale();  // refused: the line is the picture
  return layer_ < 0 || (heads_set_ && !lab->Next().stale && lab->Next().version == state.document.Version());
}

nlohmann::json ModelJson(const AppState& state) {
  const ModelLab* lab = state.models;
  if (!lab) return nullptr;
  nlohmann::json j = {{"loading", lab->Loading()}, {"run_stale", lab->RunStale()}, {"text_error", lab->TextError()},
                      {"text", lab->Text()}, {"pair", lab->Pair()}, {"hidden", lab->Hidden()}};
  if (const models::HfModel* model = lab->Model()) {
    j["name"] = model->name();
    j["folder"] = model->dir().string();
    j["layers"] = model->config().layers;
    j["heads"] = model->config().heads;
    std::vector<std::string> captions;  // what the grid writes under each layer's number
    for (int l = 0; l < model->config().layers; ++l) captions.push_back(model->config().layer_caption(l));
    j["layer_captions"] = captions;
  }
  j["ids"] = lab->Run() ? lab->Run()->run->ids : std::vector<int>{};
  j["document_layer"] = lab->DocumentLayer();
  j["patching"] = PatchingJson(lab->Patching());
  const NextTokens& next = lab->Next();
  j["next"] = {{"state", StateName(next.state)}, {"stale", next.stale}, {"version", next.version},
               {"document_version", state.document.Version()}, {"layer", next.layer},
               {"masked_word", next.masked_word}, {"position", next.position},
               {"model", Top(next.model)}, {"edited", Top(next.edited)},
               {"note", next.note}, {"offer_locate", next.offer_locate}};
  j["document_folder"] = lab->DocumentFolder();
  j["status"] = state.document.status;  // the status bar's message
  return j;
}

}  // namespace attnlab::app
