#include "panels/presenter_instruments.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "attnlab/attention.h"
#include "attnlab/models/hf_model.h"
#include "attnlab/number_format.h"
#include "attnlab/numbering.h"
#include "attnlab/text_fit.h"
#include "session/model_lab.h"
#include "widgets/heatmap.h"
#include "widgets/theme.h"

namespace attnlab::app {
namespace {

namespace lesson = attnlab::lesson;

// The finder's induction score reads R random tokens repeated twice, as the Head finder panel's
// default and `attnlab-cli heads --text T --random-repeat 10 --seed 0`.
constexpr int kRepeat = 10, kSeed = 0;

// A finder score's name in words and its definition (docs/MODELS.md).
struct ScoreWords {
  const char* name;
  const char* title;
  const char* formula;
};
const ScoreWords kScoreWords[] = {
    {"previous_token", "Previous-token score", "mean over queries i \xE2\x89\xA5 1 of w[i, i \xE2\x88\x92 1]"},
    {"first_token", "First-token (sink) score", "mean over queries i of w[i, 0]"},
    {"duplicate_token", "Duplicate-token score", "mean over repeated tokens i of \xCE\xA3 w[i, j], j < i the same token"},
    {"induction", "Induction score",
     "on R random tokens twice: mean over the second copy's queries i of w[i, i \xE2\x88\x92 R + 1]"},
    {"local_span", "Local span", "mean over queries i of \xCE\xA3_j w[i, j] (i \xE2\x88\x92 j)"},
};

const ScoreWords& WordsOf(const std::string& score) {
  for (const ScoreWords& w : kScoreWords)
    if (score == w.name) return w;
  return kScoreWords[0];  // parse_lesson admits only these names
}

models::HeadScore ScoreOf(const std::string& score) {
  for (int s = 0; s < models::kHeadScores; ++s)
    if (score == models::score_name(models::HeadScore(s))) return models::HeadScore(s);
  return models::HeadScore::previous_token;
}

// The ids view.model records for the document's layer, or none.
std::vector<int> DocumentIds(const attnlab::Scenario& s) {
  std::vector<int> ids;
  const auto m = s.view.find("model");
  if (m == s.view.end() || !m->is_object() || !m->contains("ids") || !(*m)["ids"].is_array()) return ids;
  for (const nlohmann::json& id : (*m)["ids"])
    if (id.is_number_integer()) ids.push_back(id.get<int>());
  return ids;
}

std::string DocumentText(const attnlab::Scenario& s) {
  const auto m = s.view.find("model");
  if (m == s.view.end() || !m->is_object() || !m->contains("text") || !(*m)["text"].is_string()) return "";
  return (*m)["text"].get<std::string>();
}

LessonLayers RunLayers(const LessonLayersAsk& ask, const std::atomic<bool>& cancelled) {
  const int vocab = ask.model->config().vocab;
  const models::ForwardRun run = ask.model->transformer().run(ask.ids, vocab, {}, models::Keep::all(), &cancelled);
  LessonLayers out;
  for (int layer : ask.layers) {
    if (layer >= int(run.layers.size()))
      throw attnlab::ScenarioError("view.lesson: layer " + std::to_string(layer) + " is not in the model (layers 0 to " +
                                   std::to_string(int(run.layers.size()) - 1) + ")");
    auto s = std::make_shared<attnlab::Scenario>(models::layer_scenario(*ask.model, run, layer, ask.text));
    out[layer] = {s, std::make_shared<const attnlab::Trace>(attnlab::compute(*s))};
  }
  return out;
}

// "head 0.0 1.00 and head 1.1 0.77; every other head at most 0.02": the heads at `at_least` or
// above (the highest when none is), highest first, then the largest of the others.
std::string StandOut(const Eigen::MatrixXd& m, double at_least, int decimals) {
  std::vector<std::pair<double, std::pair<int, int>>> heads;
  for (int l = 0; l < m.rows(); ++l)
    for (int h = 0; h < m.cols(); ++h)
      if (std::isfinite(m(l, h))) heads.push_back({m(l, h), {l, h}});
  if (heads.empty()) return "no head has a score here";
  std::sort(heads.begin(), heads.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::size_t shown = 1;
  while (shown < heads.size() && heads[shown].first >= at_least) ++shown;
  std::string out;
  for (std::size_t i = 0; i < shown; ++i)
    out += std::string(i == 0 ? "" : i + 1 == shown ? " and " : ", ") +
           attnlab::model_head_label(heads[i].second.first, heads[i].second.second) + " " +
           attnlab::format_number(heads[i].first, decimals);
  if (shown < heads.size()) out += "; every other head at most " + attnlab::format_number(heads[shown].first, decimals);
  return out + ".";
}

}  // namespace

PresenterInstruments::PresenterInstruments() : layers_("lesson-layers", RunLayers), finder_("lesson-head-finder", FindHeads) {}

void PresenterInstruments::Update(AppState& state, const lesson::Lesson& lesson) {
  missing_.clear();
  std::vector<int> layers;
  bool finder = false;
  const lesson::Step* patch = nullptr;
  for (const lesson::Step& step : lesson.steps) {
    if (step.layer >= 0 && std::find(layers.begin(), layers.end(), step.layer) == layers.end())
      layers.push_back(step.layer);
    finder = finder || step.instrument == lesson::Instrument::finder;
    if (step.instrument == lesson::Instrument::patching && !patch) patch = &step;
  }
  if (layers.empty() && !finder && !patch) return;
  ModelLab* lab = state.models;
  if (!lab || !state.session) return;
  const attnlab::Scenario& s = state.document.GetScenario();
  if (!lab->Model() || lab->DocumentLayer() < 0) {
    missing_ = lab->Loading() ? "Opening the lesson's model" + std::string(kEllipsis)
                              : "This step shows the model this document is a layer of: open its folder (Model panel).";
    return;
  }
  std::sort(layers.begin(), layers.end());
  TaskRunner& tasks = state.session->Tasks();
  const std::vector<int> ids = DocumentIds(s);
  if (!layers.empty()) layers_.Request(tasks, {lab->SharedModel(), ids, DocumentText(s), layers});
  if (finder) finder_.Request(tasks, {lab->SharedModel(), ids, kRepeat, kSeed});
  if (!patch) return;
  if (!patching_init_) patching_.Init(tasks), patching_init_ = true;
  // One patching step's prompts a lesson (the first's): the run is seconds on a large model.
  const PatchingFields fields{patch->patch.clean, patch->patch.corrupt, patch->patch.answer, patch->patch.wrong};
  patching_.SetFields(lab->SharedModel(), fields);
  const bool have = patching_.Result() && !patching_.ResultStale() && patching_.Result()->input.model == lab->SharedModel();
  if (!have && patching_.CanRun() && !(asked_patch_ == fields && !patching_.Note().empty())) {
    asked_patch_ = fields;
    patching_.Run();
  }
}

const LessonLayer* PresenterInstruments::Layer(int layer) const {
  const LessonLayers* got = layers_.Get();
  if (!got || layers_.Stale()) return nullptr;
  const auto it = got->find(layer);
  return it == got->end() ? nullptr : &it->second;
}

std::uint64_t PresenterInstruments::Serial() const {
  return layers_.Serial() * 1000003u + finder_.Serial() * 1009u + patching_.ResultSerial();
}

const Eigen::MatrixXd* PresenterInstruments::Values(const lesson::Step& step) const {
  if (step.instrument == lesson::Instrument::finder) {
    const HeadFinderResult* r = finder_.Get();
    return r && !finder_.Stale() ? &r->scores[ScoreOf(step.score)] : nullptr;
  }
  const PatchingResult* r = patching_.Result();
  return r && !patching_.ResultStale() ? &r->patching.heads : nullptr;
}

InstrumentWords PresenterInstruments::Words(AppState& state, const lesson::Step& step) const {
  const int decimals = state.ui.decimals;
  const auto number = [decimals](double v) { return attnlab::format_number(v, decimals); };
  InstrumentWords w;
  const Eigen::MatrixXd* values = Values(step);
  if (step.instrument == lesson::Instrument::finder) {
    const ScoreWords& sw = WordsOf(step.score);
    w.title = std::string("Head finder: ") + sw.title + ", every layer \xC3\x97 head";
    w.formula = sw.formula;
    w.prompt = "Predict first: which head scores highest, and about how high?";
    if (!values) {
      w.explanation = finder_.Error().empty() ? "Scoring the heads" + std::string(kEllipsis) : finder_.Error();
      return w;
    }
    w.explanation = "Highest: " + StandOut(*values, 0.5, decimals);
    return w;
  }
  w.title = "Patching: each head's output from the clean run into the corrupted one";
  w.formula = "(LD_patched \xE2\x88\x92 LD_corrupted) / (LD_clean \xE2\x88\x92 LD_corrupted),  LD = logit(\"" +
              step.patch.answer + "\") \xE2\x88\x92 logit(\"" + step.patch.wrong + "\")";
  w.prompt = "Predict first: \"" + step.patch.corrupt + "\" loses the answer \"" + step.patch.answer +
             "\". Which heads, copied from \"" + step.patch.clean + "\", bring it back?";
  const PatchingResult* r = patching_.Result();
  if (!values || !r) {
    w.explanation = !patching_.Note().empty()       ? patching_.Note()
                    : patching_.Input() && !patching_.Input()->error.empty() ? patching_.Input()->error
                                                      : "Patching every head" + std::string(kEllipsis);
    return w;
  }
  w.formula = "(LD_patched \xE2\x88\x92 LD_corrupted) / (LD_clean \xE2\x88\x92 LD_corrupted),  LD = logit(" +
              r->input.answer_label + ") \xE2\x88\x92 logit(" + r->input.wrong_label + ")";
  w.explanation = "Logit difference clean " + number(r->patching.clean) + ", corrupted " + number(r->patching.corrupted) +
                  ". Patched, each restores: " + StandOut(*values, 0.5, decimals);
  return w;
}

void PresenterInstruments::Draw(AppState& state, const lesson::Step& step, bool hidden) {
  const Eigen::MatrixXd* values = Values(step);
  if (!values) return;  // the explanation says why
  shown_ = *values;
  layer_labels_.clear();
  head_labels_.clear();
  for (int l = 0; l < shown_.rows(); ++l) layer_labels_.push_back(std::to_string(l));
  for (int h = 0; h < shown_.cols(); ++h) head_labels_.push_back(std::to_string(h));
  const bool finder = step.instrument == lesson::Instrument::finder;
  HeatmapSpec spec;
  spec.id = finder ? "presenter_finder" : "presenter_patching";
  spec.title = finder ? WordsOf(step.score).title : "Normalised logit difference, each head patched";
  spec.values = &shown_;
  spec.row_labels = &layer_labels_;
  spec.col_labels = &head_labels_;
  spec.row_axis = "layer";
  spec.col_axis = "head";
  spec.scale = WeightsScale(state.ui.colormap);
  if (!finder) {  // the Patching panel's range: the largest |effect| of heads and positions, 1 at least
    const models::Patching& p = patching_.Result()->patching;
    double range = 1.0;
    if (p.heads.size()) range = std::max(range, p.heads.cwiseAbs().maxCoeff());
    if (p.positions.size()) range = std::max(range, p.positions.cwiseAbs().maxCoeff());
    spec.scale = ColorScale{DivergingFor(state.ui.colormap), -range, range};
  }
  spec.decimals = state.ui.decimals;
  spec.shape_in_title = false;
  spec.hidden = hidden;
  spec.data_version = Serial() * 4 + (finder ? 1 : 2);
  const ImVec2 room = ImGui::GetContentRegionAvail();
  // Cells as large as fit, up to seven digits' worth: a grid of a few heads is read from the back.
  float cell = std::floor(std::min(room.x / float(shown_.cols() + 3), room.y / float(shown_.rows() + 3)));
  cell = std::min(cell, std::round(GetFonts().mono->FontSize * 7.0f));
  for (int tries = 0; tries < 30 && cell > 2.0f; ++tries, cell = std::max(2.0f, std::floor(cell * 0.9f))) {
    spec.cell = cell;
    const ImVec2 size = HeatmapSize(*state.heatmaps, spec);
    if (size.x <= room.x && size.y <= room.y) break;
  }
  spec.cell = cell;
  // Centred under the words, as the stage's maps are.
  const float width = HeatmapSize(*state.heatmaps, spec).x;
  ImGui::SetCursorPosX(ImGui::GetCursorPosX() + std::max(0.0f, std::floor((room.x - width) * 0.5f)));
  Heatmap(*state.heatmaps, spec);
}

}  // namespace attnlab::app
