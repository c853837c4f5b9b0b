#include "panels/panel_presenter.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/lesson.h"
#include "attnlab/number_format.h"
#include "attnlab/numbering.h"
#include "attnlab/text_fit.h"
#include "panels/lesson_author.h"
#include "panels/presenter_fit.h"
#include "panels/presenter_engines.h"
#include "panels/presenter_instruments.h"
#include "panels/stage_heatmap.h"
#include "view/derived_stages.h"
#include "view/text_wrap.h"
#include "widgets/attention_lines.h"
#include "widgets/computing_badge.h"
#include "widgets/control_marks.h"
#include "widgets/heatmap_legend.h"
#include "widgets/theme.h"

namespace attnlab::app::panel_presenter {
namespace {

namespace lesson = attnlab::lesson;

// The lesson of the document's current version. The loader refuses a malformed view.lesson, but
// the view is not part of an edit's validation: one that reaches the presenter shows the default
// lesson, with the error above it.
struct CachedLesson {
  lesson::Lesson lesson;
  std::string error;
  std::uint64_t version = ~std::uint64_t{0};
};

// What a step is computed from: the document, or (a step with a layer) that layer of the
// document's model; versions that key the caches and the heatmaps' textures.
struct Source {
  const attnlab::Scenario* scenario = nullptr;
  const attnlab::Trace* trace = nullptr;
  std::uint64_t version = 0, trace_version = 0;
};

// The grid of the step drawn last, kept while what it was fitted to stays: a fit measures dozens of
// maps (every column count, a tenth smaller at a time), too many to build every frame. Not keyed
// on the reveal: R must not move the maps.
struct CachedGrid {
  MapGrid grid;
  std::uint64_t trace_version = ~std::uint64_t{0}, document_version = ~std::uint64_t{0};  // the lesson is the document's
  std::uint64_t instruments = ~std::uint64_t{0};  // another layer's steps: PresenterInstruments::Serial()
  int step = -1, head = -1, decimals = -1;
  float width = -1, height = -1, font = 0, lesson_cell = -1;
};

// The lesson's stage (issue 26): one cell size for every step, that of the step that needs the
// smallest, so that a matrix keeps its size as the teacher steps; each step's text above its maps
// or in a column beside them, whichever gives the larger cells (as the slides choose). Kept while
// what it was fitted to stays (every step's maps are measured).
struct StageLayout {
  std::vector<bool> beside;  // by step
  float cell = 0;            // 0: no step sets it
  float column = 0;          // the text column's width beside the maps
  std::uint64_t trace_version = ~std::uint64_t{0}, document_version = ~std::uint64_t{0};
  std::uint64_t instruments = ~std::uint64_t{0};
  int head = -1, decimals = -1;
  float width = -1, height = -1, font = 0;
};

// `text` in lines no wider than `width` in the current font, broken at spaces only: ImGui's own
// wrap breaks after a point, "(0.4)" as "(0." and "4)". Its paragraphs ('\n') are kept.
std::string StageLines(const std::string& text, float width) {
  const auto measure = [](const std::string& s) { return ImGui::CalcTextSize(s.c_str()).x; };
  std::string out;
  bool first = true;
  for (std::size_t start = 0;;) {
    const std::size_t end = text.find('\n', start);
    for (const std::string& line : WrapAtSpaces(text.substr(start, end - start), width, measure)) {
      out += (first ? "" : "\n") + line;
      first = false;
    }
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

// What a step says: the step's title, the author's caption, its formula, and the explanation or,
// before the reveal, the prediction prompt.
struct StepWords {
  std::string title, caption, formula, explanation, prompt;
  bool predict = false;
};

// One paragraph of `words` in `font` and `color` in lines of `width`: drawn when `draw`, else only
// measured. Returns its height, item spacing included.
float StageParagraph(const std::string& words, ImFont* font, const ImVec4& color, float width, bool draw) {
  ImGui::PushFont(font);
  const std::string lines = StageLines(words, width);
  const float h = ImGui::CalcTextSize(lines.c_str()).y;
  if (draw) {
    ImGui::PushStyleColor(ImGuiCol_Text, color);
    ImGui::TextUnformatted(lines.c_str());
    ImGui::PopStyleColor();
  }
  ImGui::PopFont();
  return h + ImGui::GetStyle().ItemSpacing.y;
}

// The step's words in lines of `width` (the prompt when `hidden`), drawn when `draw`, else only
// measured; the room the taller of prompt and explanation takes, so that R shows the numbers
// without moving the matrices. Returns the height, the spacing before the maps included.
float StepText(const StepWords& w, bool hidden, float width, bool draw) {
  const Fonts& fonts = GetFonts();
  const ImVec4 ink = ImGui::GetStyleColorVec4(ImGuiCol_Text), accent = ImGui::ColorConvertU32ToFloat4(AccentColor());
  float h = StageParagraph(w.title, fonts.bold, ink, width, draw);
  if (!w.caption.empty()) h += StageParagraph(w.caption, fonts.ui, ink, width, draw);
  h += StageParagraph(w.formula, fonts.mono, accent, width, draw);
  const float explanation_h = StageParagraph(w.explanation, fonts.ui, ink, width, false);
  const float prompt_h = w.predict ? StageParagraph(w.prompt, fonts.ui, ink, width, false) : 0.0f;
  if (draw) StageParagraph(hidden ? w.prompt : w.explanation, fonts.ui, hidden ? WarningTextColor() : ink, width, true);
  const float shown_h = hidden ? prompt_h : explanation_h, tallest = std::max(prompt_h, explanation_h);
  if (draw && tallest > shown_h) ImGui::Dummy(ImVec2(0.0f, tallest - shown_h - ImGui::GetStyle().ItemSpacing.y));
  if (draw) ImGui::Spacing();
  return h + tallest + ImGui::GetStyle().ItemSpacing.y;
}

class PresenterPanel final : public PanelContents {
 public:
  void Draw(AppState& state) override;

 private:
  const lesson::Lesson& LessonOf(AppState& state);
  std::optional<Source> SourceOf(AppState& state, const lesson::Step& step) const;
  int StepHead(AppState& state, const lesson::Step& step) const;
  std::vector<StageMatrix> Matrices(AppState& state, const lesson::Step& step, int head);
  void DrawStepLine(AppState& state, const lesson::Step& step, int index, int count);
  void DrawMatrices(AppState& state, const lesson::Step& step, int head, bool hidden, ImVec2 room);
  void DrawStage(AppState& state, const lesson::Step& step, int head, bool hidden);

  StepWords Words(AppState& state, const lesson::Step& step, int head);
  const StepWords& CurrentWords(AppState& state, const lesson::Step& step, int index, int head);
  const StageLayout& Stage(AppState& state, const lesson::Lesson& lesson, ImVec2 avail);
  float StepCell(AppState& state, const lesson::Step& step, int head, const StepWords& words, bool beside,
                 float text_width, ImVec2 avail);
  void Configure(StageHeatmap& map, const lesson::Step& step, const std::vector<StageMatrix>& matrices, std::size_t i,
                 bool hidden);
  MapSize SizeOf(AppState& state, const lesson::Step& step, const std::vector<StageMatrix>& matrices, std::size_t i,
                 bool hidden);
  const MapGrid& Grid(AppState& state, const std::vector<StageMatrix>& matrices,
                      const std::function<MapSize(std::size_t)>& size_of, int head, ImVec2 avail, float gap, float cap);

  CachedLesson cached_;
  AttentionLinesState lines_;  ///< a lines step's hidden heads
  StepWords words_;  // the current step's: its explanation scans the step's matrices
  std::uint64_t words_trace_ = ~std::uint64_t{0}, words_document_ = ~std::uint64_t{0};
  std::uint64_t words_instruments_ = ~std::uint64_t{0};
  int words_step_ = -1, words_head_ = -1, words_decimals_ = -1;
  StageLayout stage_;
  CachedGrid grid_;
  DerivedStages derived_;
  LessonAuthor author_;
  PresenterEngines engines_;
  PresenterInstruments instruments_;
  std::vector<std::pair<int, int>> outlined_;
  int stage_head_ = 0;  // the head the step shows (a heads step frames it)
  char heads_title_[32] = "";  // a heads step's map title, alive while its map is
};

const lesson::Lesson& PresenterPanel::LessonOf(AppState& state) {
  if (cached_.version == state.document.Version()) return cached_.lesson;
  cached_.version = state.document.Version();
  cached_.error.clear();
  const attnlab::Scenario& s = state.document.GetScenario();
  try {
    cached_.lesson = lesson::lesson_of(s);
  } catch (const attnlab::ScenarioError& e) {  // what parse_lesson throws
    cached_.error = e.what();
    cached_.lesson = lesson::default_lesson(s);
  }
  return cached_.lesson;
}

std::optional<Source> PresenterPanel::SourceOf(AppState& state, const lesson::Step& step) const {
  if (step.layer < 0)
    return Source{&state.document.GetScenario(), &state.document.GetTrace(), state.document.Version(),
                  state.document.TraceVersion()};
  const LessonLayer* layer = instruments_.Layer(step.layer);
  if (!layer) return std::nullopt;
  // Apart from the document's versions, and each layer's from the others' (the maps' textures).
  const std::uint64_t version = (std::uint64_t{1} << 63) | (instruments_.Serial() << 12) | std::uint64_t(step.layer);
  return Source{layer->scenario.get(), layer->trace.get(), version, version};
}

// The step's head (0-based): its own, else the selected one, within the heads its source has.
int PresenterPanel::StepHead(AppState& state, const lesson::Step& step) const {
  const std::optional<Source> src = SourceOf(state, step);
  const int heads = src ? int(src->trace->heads.size()) : 1;
  return std::clamp(step.head >= 0 ? step.head : state.ui.selected_head, 0, std::max(0, heads - 1));
}

StepWords PresenterPanel::Words(AppState& state, const lesson::Step& step, int head) {
  StepWords w;
  w.caption = step.caption;
  w.predict = step.predict;
  const std::string reveal = " Press R to reveal.";
  if (step.instrument != lesson::Instrument::none || (lesson::needs_model(step) && !instruments_.Missing().empty())) {
    const InstrumentWords iw = instruments_.Words(state, step);
    w.title = step.instrument != lesson::Instrument::none ? iw.title : "Layer " + std::to_string(step.layer);
    w.formula = iw.formula;
    w.explanation = instruments_.Missing().empty() ? iw.explanation : instruments_.Missing();
    if (step.predict) w.prompt = (instruments_.Missing().empty() ? iw.prompt : w.explanation) + reveal;
    return w;
  }
  const std::optional<Source> src = SourceOf(state, step);
  if (!src) {
    w.title = "Layer " + std::to_string(step.layer);
    w.explanation = "Computing layer " + std::to_string(step.layer) + " of the model" + std::string(kEllipsis);
    if (step.predict) w.prompt = w.explanation;
    return w;
  }
  const attnlab::Scenario& s = *src->scenario;
  const attnlab::Trace& t = *src->trace;
  w.title = (step.layer >= 0 ? "Layer " + attnlab::index_text(step.layer) + ", " : std::string()) + lesson::step_title(step, s, head);
  w.formula = lesson::step_formula(step, s, head);
  w.explanation = lesson::step_explanation(step, s, t, head, state.ui.decimals);
  if (step.predict) w.prompt = lesson::predict_prompt(step, s, t, head, state.ui.decimals) + reveal;
  return w;
}

const StepWords& PresenterPanel::CurrentWords(AppState& state, const lesson::Step& step, int index, int head) {
  const std::uint64_t trace = state.document.TraceVersion(), document = state.document.Version();
  const std::uint64_t instruments = instruments_.Serial();
  if (words_trace_ == trace && words_document_ == document && words_instruments_ == instruments &&
      words_step_ == index && words_head_ == head && words_decimals_ == state.ui.decimals)
    return words_;
  words_ = Words(state, step, head);
  words_trace_ = trace, words_document_ = document, words_instruments_ = instruments, words_step_ = index;
  words_head_ = head;
  words_decimals_ = state.ui.decimals;
  return words_;
}

// The matrices a step shows: one, or each input, or every head's weights.
std::vector<StageMatrix> PresenterPanel::Matrices(AppState& state, const lesson::Step& step, int head) {
  const std::optional<Source> src = SourceOf(state, step);
  if (!src || step.instrument != lesson::Instrument::none) return {};
  const attnlab::Scenario& s = *src->scenario;
  const attnlab::Trace& t = *src->trace;
  const std::uint64_t tv = src->trace_version;
  const attnlab::HeadTrace& h = t.heads[std::size_t(head)];
  const bool rows = s.layout == attnlab::Layout::rows;
  const int d_v = int(rows ? h.output.cols() : h.output.rows());
  const StageId stage = step.kind == StageId::heads ? StageId::weights : step.kind;  // every head's weights
  const char* label = attnlab::stage_row(stage).label;  // the Pipeline's titles
  switch (step.kind) {
    case StageId::inputs: {
      std::vector<StageMatrix> out = {{StageId::none, "X", &s.X, src->version}};
      if (s.Z) out.push_back({StageId::none, "Z", &*s.Z, src->version});
      return out;
    }
    case StageId::X_pos:
    case StageId::Q_norm:
    case StageId::K_norm:
    case StageId::Q_rot:
    case StageId::K_rot:
    case StageId::capped:
    case StageId::bias: {
      if (!attnlab::has_stage(t, step.kind)) return {};  // the explanation says what turns it on
      if (step.kind == StageId::X_pos) return {{stage, label, &t.X_pos, tv, false}};
      if (step.kind == StageId::Q_norm) return {{stage, label, &h.Q_norm, tv, false, nullptr, 0, 0, false, head}};
      if (step.kind == StageId::K_norm) return {{stage, label, &h.K_norm, tv, false, nullptr, 0, 0, false, head}};
      if (step.kind == StageId::capped) {
        derived_.Update(t, tv, head, state.heatmaps->work);
        return {{stage, label, &derived_.Capped(), derived_.CappedVersion(), false, nullptr, 0, 0,
                 !derived_.CappedCurrent(), head}};
      }
      if (step.kind == StageId::Q_rot) return {{stage, label, &h.Q_rot, tv, false, nullptr, 0, 0, false, head}};
      if (step.kind == StageId::K_rot) return {{stage, label, &h.K_rot, tv, false, nullptr, 0, 0, false, head}};
      derived_.Update(t, tv, head, state.heatmaps->work);
      return {{stage, label, &derived_.Bias(), derived_.BiasVersion(), false, nullptr, 0, 0, !derived_.BiasCurrent(), head}};
    }
    case StageId::Q: return {{stage, label, &h.Q, tv, false, nullptr, 0, 0, false, head}};
    case StageId::K: return {{stage, label, &h.K, tv, false, nullptr, 0, 0, false, head}};
    case StageId::V: return {{stage, label, &h.V, tv, false, nullptr, 0, 0, false, head}};
    case StageId::scores: return {{stage, label, &h.scores, tv, false, nullptr, 0, 0, false, head}};
    case StageId::scaled:
    case StageId::masked: {
      derived_.Update(t, tv, head, state.heatmaps->work);
      const bool scaled = step.kind == StageId::scaled;
      return {{stage, label, scaled ? &derived_.Scaled() : &derived_.Masked(),
               scaled ? derived_.ScaledVersion() : derived_.MaskedVersion(), false, nullptr, 0, 0,
               !(scaled ? derived_.ScaledCurrent() : derived_.MaskedCurrent()), head}};
    }
    case StageId::weights: return {{stage, label, &h.weights, tv, true, &t.allowed, 0, 0, false, head}};
    case StageId::head_output:
      return {{stage, label, &h.output, tv, false, nullptr, 0, 0, false, head}};
    case StageId::heads: {
      std::vector<StageMatrix> out;
      for (std::size_t k = 0; k < t.heads.size(); ++k)
        out.push_back({stage, "", &t.heads[k].weights, tv, true, &t.allowed, 0, 0, false, int(k)});
      return out;
    }
    case StageId::concat:
      return {{stage, label, &t.concat, tv, false, nullptr, rows ? d_v : 0, rows ? 0 : d_v}};
    case StageId::W_o:
      if (!s.W_o) return {};
      return {{stage, label, &*s.W_o, src->version, false, nullptr, 0, rows ? d_v : 0}};
    case StageId::output: return {{stage, label, &t.output, tv}};
    case StageId::tiles:  // drawn by PresenterEngines
    case StageId::decode:
    case StageId::lines:  // drawn by DrawAttentionLines
    case StageId::none: break;  // not a lesson step
  }
  return {};
}

void PresenterPanel::DrawStepLine(AppState& state, const lesson::Step& step, int index, int count) {
  ImGui::TextColored(DimTextColor(), "Step %d of %d", index + 1, count);
  ImGui::SameLine();
  // One dot per step: where the lesson is and how much is left.
  const float r = ImGui::GetFontSize() * 0.22f;
  ImVec2 p = ImGui::GetCursorScreenPos();
  p.y += ImGui::GetTextLineHeight() * 0.5f;
  for (int i = 0; i < count; ++i)
    ImGui::GetWindowDrawList()->AddCircleFilled(ImVec2(p.x + r + i * r * 3.0f, p.y), r,
                                                i == index ? AccentColor() : ImGui::GetColorU32(ImGuiCol_TextDisabled));
  // The keys at the right of the same line, where they take no room from the matrices; on a line
  // of their own when the panel is too narrow.
  // "R: reveal" only where there is something to reveal: elsewhere R does nothing. Whether the
  // line fits beside the dots is decided with it, so that R never moves the stage up a line.
  static const char* const kKeysR = "Right / Space: next   Left: back   R: reveal   Esc: leave";
  const char* const kKeys = step.predict && !state.ui.presenter_revealed
                                ? kKeysR
                                : "Right / Space: next   Left: back   Esc: leave";
  const float keys_w = ImGui::CalcTextSize(kKeysR).x;
  const float dots_end = p.x + count * r * 3.0f + ImGui::GetFontSize();
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (right - dots_end >= keys_w) {
    ImGui::SameLine(right - ImGui::GetWindowPos().x - ImGui::CalcTextSize(kKeys).x);
  } else {
    ImGui::NewLine();
  }
  ImGui::TextColored(DimTextColor(), "%s", kKeys);
  MarkLastItem(state.on_control, std::string(kKeys).find("R: reveal") != std::string::npos ? "presenter keys, R" : "presenter keys");
}

// A tiles or decode step: the engines' own figures (PresenterEngines), always below their text.
bool EngineStep(const lesson::Step& step) { return step.kind == StageId::tiles || step.kind == StageId::decode; }

// Cells up to seven digits' worth: larger ones would only add empty colour around the numbers.
float StageCap() { return std::round(GetFonts().mono->FontSize * 7.0f); }

// The smallest cell a number prints in ("−0.00" at the smallest size a heatmap writes values).
float NumbersCell(int decimals) {
  ImGui::PushFont(GetFonts().mono);
  const float w = ImGui::CalcTextSize(attnlab::format_number(-0.5, decimals).c_str()).x;
  ImGui::PopFont();
  return std::ceil(w * 0.7f) + 4.0f;
}

void PresenterPanel::Configure(StageHeatmap& map, const lesson::Step& step, const std::vector<StageMatrix>& matrices,
                               std::size_t i, bool hidden) {
  if (step.kind == StageId::heads) {
    std::snprintf(heads_title_, sizeof heads_title_, "%s",
                  attnlab::head_label(matrices[i].head).c_str());
    map.Spec().title = heads_title_;
    map.Spec().selected = matrices[i].head == stage_head_;
  }
  map.Spec().legend = !(step.kind == StageId::heads && matrices.size() > 1);
  map.Spec().formula = nullptr;  // the step's formula is above, large
  map.Spec().hidden = hidden;
  map.Spec().outlined = &outlined_;
}

// Map i of a step's maps as the presenter draws it: every head's weights titled by head, one
// legend under them all, the step's formula above (large), its highlighted cells outlined.
MapSize PresenterPanel::SizeOf(AppState& state, const lesson::Step& step, const std::vector<StageMatrix>& matrices,
                               std::size_t i, bool hidden) {
  return [this, &state, &step, &matrices, i, hidden](float cell) {
    StageHeatmap map(state, matrices[i], cell, "presenter/");
    Configure(map, step, matrices, i, hidden);
    return map.Size();
  };
}

const MapGrid& PresenterPanel::Grid(AppState& state, const std::vector<StageMatrix>& matrices,
                                    const std::function<MapSize(std::size_t)>& size_of, int head, ImVec2 avail,
                                    float gap, float cap) {
  CachedGrid& g = grid_;
  const std::uint64_t version = state.document.TraceVersion(), document = state.document.Version();
  const std::uint64_t instruments = instruments_.Serial();
  const int step = state.ui.presenter_step, decimals = state.ui.decimals;
  const float font = ImGui::GetFontSize(), lesson_cell = stage_.cell;
  if (g.trace_version == version && g.document_version == document && g.instruments == instruments && g.step == step &&
      g.head == head &&
      g.decimals == decimals && g.width == avail.x && g.height == avail.y && g.font == font &&
      g.lesson_cell == lesson_cell && g.grid.cells.size() == matrices.size())
    return g.grid;
  MapGrid grid = FitGrid(matrices, size_of, avail, gap, cap, decimals);
  // Every step at the lesson's size (smaller only where a step cannot fit it), each row centred.
  for (float& cell : grid.cells) cell = lesson_cell > 0 ? std::min(cell, lesson_cell) : cell;
  for (std::size_t first = 0; first < matrices.size(); first += std::size_t(grid.cols)) {
    float width = 0;
    for (std::size_t i = first; i < std::min(matrices.size(), first + std::size_t(grid.cols)); ++i)
      width += (i > first ? gap : 0.0f) + size_of(i)(grid.cells[i]).x;
    grid.indents.push_back(std::max(0.0f, std::floor((avail.x - width) * 0.5f)));
  }
  g = {std::move(grid), version, document, instruments, step, head, decimals, avail.x, avail.y, font, lesson_cell};
  return g.grid;
}

// The smallest cell of `step`'s maps at their largest fit (FitGrid) in the room its text leaves:
// below the text, or `beside` it in a column of `text_width`; 0 when the step does not set the
// lesson's size (no maps, every head's small multiples, the engines' own figures, a matrix too
// large for its numbers to print at any size: the other steps would lose theirs to match it); -1
// when its text is too long for the column.
float PresenterPanel::StepCell(AppState& state, const lesson::Step& step, int head, const StepWords& words, bool beside,
                               float text_width, ImVec2 avail) {
  if (step.kind == StageId::heads || EngineStep(step) || step.kind == StageId::lines) return 0.0f;
  const std::vector<StageMatrix> matrices = Matrices(state, step, head);
  if (matrices.empty()) return 0.0f;
  const float fs = ImGui::GetFontSize(), gap = fs * 2.0f, text_h = StepText(words, false, text_width, false);
  if (beside && text_h > avail.y) return -1.0f;
  const ImVec2 room = beside ? ImVec2(avail.x - text_width - gap, avail.y) : ImVec2(avail.x, avail.y - text_h);
  const MapGrid grid = FitGrid(matrices, [&](std::size_t i) { return SizeOf(state, step, matrices, i, false); }, room,
                               gap, StageCap(), state.ui.decimals);
  const float smallest = *std::min_element(grid.cells.begin(), grid.cells.end());
  return smallest >= NumbersCell(state.ui.decimals) ? smallest : 0.0f;
}

const StageLayout& PresenterPanel::Stage(AppState& state, const lesson::Lesson& lesson, ImVec2 avail) {
  StageLayout& l = stage_;
  const std::uint64_t trace = state.document.TraceVersion(), document = state.document.Version();
  const std::uint64_t instruments = instruments_.Serial();
  const float font = ImGui::GetFontSize();
  if (l.trace_version == trace && l.document_version == document && l.instruments == instruments &&
      l.head == state.ui.selected_head && l.decimals == state.ui.decimals && l.width == avail.x && l.height == avail.y &&
      l.font == font)
    return l;
  // A column under a third of the stage wide, of at least 12 ems: about 30 characters a line.
  const float column = std::max(font * 12.0f, std::floor(avail.x * 0.3f));
  float cell = 1e9f;
  std::vector<bool> beside;
  for (const lesson::Step& step : lesson.steps) {
    const int head = StepHead(state, step);
    const StepWords words = Words(state, step, head);
    const float below = StepCell(state, step, head, words, false, avail.x, avail);
    const float side = StepCell(state, step, head, words, true, column, avail);
    // Beside only when it gives clearly larger cells: a narrow column of text is harder to read.
    beside.push_back(side > below * 1.05f);
    if (std::max(below, side) > 0) cell = std::min(cell, std::max(below, side));
  }
  l = {std::move(beside), cell < 1e9f ? cell : 0.0f, column, trace, document, instruments, state.ui.selected_head,
       state.ui.decimals, avail.x, avail.y, font};
  return l;
}

void PresenterPanel::DrawMatrices(AppState& state, const lesson::Step& step, int head, bool hidden, ImVec2 room) {
  std::vector<StageMatrix> matrices = Matrices(state, step, head);
  const ImVec2 top = ImGui::GetCursorScreenPos();
  MarkRect(state.on_control, {"", "presenter stage"}, top, ImVec2(top.x + room.x, top.y + room.y));
  if (matrices.empty()) {
    if (step.kind == StageId::W_o) ImGui::TextColored(DimTextColor(), "This scenario has no W_o: the output is the concatenation.");
    return;  // else another layer being computed: the explanation says so
  }
  outlined_.clear();
  for (const lesson::Cell& c : step.highlight) outlined_.emplace_back(c.row, c.col);
  // Every head's weights share one range: one legend under them all, not one a head.
  const bool shared_legend = step.kind == StageId::heads && matrices.size() > 1;
  const bool masked = !SourceOf(state, step)->trace->allowed.all();  // matrices: a source
  ImVec2 avail = room;
  if (shared_legend) avail.y -= HeatmapLegendHeight(masked) + ImGui::GetStyle().ItemSpacing.y;
  const float fs = ImGui::GetFontSize(), gap = fs * 2.0f;
  const auto size_of = [&](std::size_t i) { return SizeOf(state, step, matrices, i, hidden); };
  const MapGrid& grid = Grid(state, matrices, size_of, head, avail, gap, StageCap());
  ColorScale legend_scale;
  for (std::size_t i = 0; i < matrices.size(); ++i) {
    const float cell = grid.cells[i];
    StageHeatmap heatmap(state, matrices[i], cell, "presenter/");
    Configure(heatmap, step, matrices, i, hidden);
    if (i + 1 == matrices.size()) legend_scale = heatmap.Spec().scale;
    if (i % std::size_t(grid.cols) != 0)
      ImGui::SameLine(0.0f, gap);
    else
      ImGui::SetCursorScreenPos(ImVec2(top.x + grid.indents[i / std::size_t(grid.cols)], ImGui::GetCursorScreenPos().y));
    const HeatmapResult r = heatmap.Draw();
    if (r.clicked && r.row >= 0 && author_.Highlighting())
      author_.ToggleHighlight(state, cached_.lesson, state.ui.presenter_step, r.row, r.col);
    else if (step.kind == StageId::heads && r.clicked)
      state.SelectHead(matrices[i].head);
  }
  if (shared_legend) {
    ImGui::SetCursorScreenPos(ImVec2(top.x + grid.indents[0], ImGui::GetCursorScreenPos().y));
    HeatmapLegend(legend_scale, std::min(avail.x, fs * 16.0f), masked, state.ui.decimals);
  }
}

// The step's text and maps: the text above the maps, or (the lesson's stage beside) in a column
// at the right; a tiles or decode step's figures always below their text.
void PresenterPanel::DrawStage(AppState& state, const lesson::Step& step, int head, bool hidden) {
  const ImVec2 avail = ImGui::GetContentRegionAvail(), top = ImGui::GetCursorScreenPos();
  const StageLayout& layout = Stage(state, cached_.lesson, avail);
  const StepWords& words = CurrentWords(state, step, state.ui.presenter_step, head);
  const bool engine = EngineStep(step), instrument = step.instrument != lesson::Instrument::none;
  const bool lines = step.kind == StageId::lines;
  if (engine || instrument || lines || !layout.beside[std::size_t(state.ui.presenter_step)]) {
    StepText(words, hidden, avail.x, true);
    if (!engine && !instrument && !lines) {
      DrawMatrices(state, step, head, hidden, ImGui::GetContentRegionAvail());
      return;
    }
    // A figure of its own (the lines, an instrument's grid, an engine's) takes the rest of the stage.
    const ImVec2 at = ImGui::GetCursorScreenPos(), room = ImGui::GetContentRegionAvail();
    MarkRect(state.on_control, {"", "presenter stage"}, at, ImVec2(at.x + room.x, at.y + room.y));
    if (lines) {  // every head's, or the step's head's
      if (!hidden && state.document.TraceScenario())
        DrawAttentionLines(lines_, *state.document.TraceScenario(), state.document.GetTrace(),
                           step.head >= 0 ? std::vector<int>{head} : std::vector<int>{}, state.on_control);
    } else if (instrument) {
      if (instruments_.Missing().empty()) instruments_.Draw(state, step, hidden);
    } else {
      engines_.Draw(state, step, state.ui.presenter_step, head, hidden);
    }
    return;
  }
  const float gap = ImGui::GetFontSize() * 2.0f;
  ImGui::BeginGroup();
  DrawMatrices(state, step, head, hidden, ImVec2(avail.x - layout.column - gap, avail.y));
  ImGui::EndGroup();
  const float maps_bottom = ImGui::GetItemRectMax().y;
  ImGui::SetCursorScreenPos(ImVec2(top.x + avail.x - layout.column, top.y));
  ImGui::BeginGroup();
  StepText(words, hidden, layout.column, true);
  ImGui::EndGroup();
  // What follows (the lesson's authoring) goes below the taller of the two columns.
  ImGui::SetCursorScreenPos(ImVec2(top.x, std::max(maps_bottom, ImGui::GetItemRectMax().y)));
  ImGui::Dummy(ImVec2(0.0f, 0.0f));
}

void PresenterPanel::Draw(AppState& state) {
  const attnlab::Trace& trace = state.document.GetTrace();
  if (ComputingBadge(state.document, trace) && trace.heads.empty()) return;
  if (trace.heads.empty()) {
    ImGui::TextColored(ErrorTextColor(), "Nothing to present: %s", state.document.status.c_str());
    return;
  }
  const lesson::Lesson& lesson = LessonOf(state);
  if (lesson.steps.empty()) return;
  instruments_.Update(state, lesson);
  const int count = int(lesson.steps.size());
  state.ui.presenter_step = std::clamp(state.ui.presenter_step, 0, count - 1);
  const lesson::Step& step = lesson.steps[std::size_t(state.ui.presenter_step)];
  const int head = StepHead(state, step);
  const bool hidden = step.predict && !state.ui.presenter_revealed;
  state.ui.presenter_hiding = hidden;
  stage_head_ = head;
  DrawStepLine(state, step, state.ui.presenter_step, count);
  if (!cached_.error.empty()) ImGui::TextColored(WarningTextColor(), "view.lesson: %s", cached_.error.c_str());
  DrawStage(state, step, head, hidden);
  // Authoring is for preparing the lesson, out of lecture mode: the class sees a clean stage.
  if (state.ui.lecture_mode) return;
  ImGui::Spacing();
  author_.Draw(state, lesson, state.ui.presenter_step);
}

}  // namespace

std::unique_ptr<PanelContents> Make() { return std::make_unique<PresenterPanel>(); }

}  // namespace attnlab::app::panel_presenter
