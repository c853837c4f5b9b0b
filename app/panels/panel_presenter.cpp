#include "panels/panel_presenter.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/lesson.h"
#include "panels/lesson_author.h"
#include "panels/presenter_engines.h"
#include "panels/stage_heatmap.h"
#include "view/derived_stages.h"
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

// The explanation scans the step's matrices (all of a 2048-token trace's scores): written once
// per trace, step and head, not every frame.
struct CachedExplanation {
  std::string text, prompt;  // prompt: a predict step's question before the reveal
  std::uint64_t trace_version = ~std::uint64_t{0};
  int step = -1, head = -1;
};

/// The size of a map drawn with cells of the given size, as the step draws it.
using MapSize = std::function<ImVec2(float cell)>;

// Where a step's maps go: `cols` a row, each map's cells.
struct MapGrid {
  int cols = 1;
  std::vector<float> cells;
};

// The grid of the step drawn last, kept while what it was fitted to stays: a fit measures dozens of
// maps (every column count, a tenth smaller at a time), too many to build every frame. Not keyed
// on the reveal: R must not move the maps.
struct CachedGrid {
  MapGrid grid;
  std::uint64_t trace_version = ~std::uint64_t{0}, document_version = ~std::uint64_t{0};  // the lesson is the document's
  int step = -1, head = -1, decimals = -1;
  float width = -1, height = -1, font = 0;
};

// Cells as large as fit `width` x `height`, up to `cap`; below two pixels, pooled (FitCellSize).
float CellFor(const attnlab::Matrix& m, float width, float height, float cap, int decimals) {
  const float fit = std::min(width / float(m.cols()), height / float(m.rows()));
  return std::floor(fit >= 2.0f ? std::min(cap, fit) : FitCellSize(int(m.rows()), int(m.cols()), width, height, decimals));
}

// The prediction prompt, or once revealed the explanation, in the room the taller of the two
// takes: R shows the numbers without moving the matrices (or turning their labels).
void PromptOrExplanation(const lesson::Step& step, const std::string& prompt, bool hidden,
                         const std::string& explanation) {
  const bool predict = step.predict;
  const float wrap = ImGui::GetContentRegionAvail().x;
  const float prompt_h = ImGui::CalcTextSize(prompt.c_str(), nullptr, false, wrap).y;
  const float explanation_h = ImGui::CalcTextSize(explanation.c_str(), nullptr, false, wrap).y;
  if (hidden) {
    ImGui::PushStyleColor(ImGuiCol_Text, WarningTextColor());
    ImGui::TextWrapped("%s", prompt.c_str());
    ImGui::PopStyleColor();
  } else {
    ImGui::TextWrapped("%s", explanation.c_str());
  }
  const float shown_h = hidden ? prompt_h : explanation_h;
  if (predict && std::max(prompt_h, explanation_h) > shown_h)
    ImGui::Dummy(ImVec2(0.0f, std::max(prompt_h, explanation_h) - shown_h - ImGui::GetStyle().ItemSpacing.y));
}

class PresenterPanel final : public PanelContents {
 public:
  void Draw(AppState& state) override;

 private:
  const lesson::Lesson& LessonOf(AppState& state);
  std::vector<StageMatrix> Matrices(AppState& state, const lesson::Step& step, int head);
  void DrawHeader(AppState& state, const lesson::Step& step, int head, int index, int count);
  void DrawMatrices(AppState& state, const lesson::Step& step, int head, bool hidden);

  const CachedExplanation& Explanation(AppState& state, const lesson::Step& step, int index, int head);
  const MapGrid& Grid(AppState& state, const std::vector<StageMatrix>& matrices,
                      const std::function<MapSize(std::size_t)>& size_of, int head, ImVec2 avail, float gap, float cap);

  CachedLesson cached_;
  CachedExplanation explanation_;
  CachedGrid grid_;
  DerivedStages derived_;
  LessonAuthor author_;
  PresenterEngines engines_;
  std::vector<std::pair<int, int>> outlined_;
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

const CachedExplanation& PresenterPanel::Explanation(AppState& state, const lesson::Step& step, int index, int head) {
  CachedExplanation& e = explanation_;
  const std::uint64_t version = state.document.TraceVersion();
  if (e.trace_version == version && e.step == index && e.head == head) return e;
  const attnlab::Scenario& s = state.document.GetScenario();
  const attnlab::Trace& t = state.document.GetTrace();
  e = {lesson::step_explanation(step, s, t, head),
       step.predict ? lesson::predict_prompt(step, s, t, head) + " Press R to reveal." : std::string(), version, index,
       head};
  return e;
}

// The matrices a step shows: one, or each input, or every head's weights.
std::vector<StageMatrix> PresenterPanel::Matrices(AppState& state, const lesson::Step& step, int head) {
  const attnlab::Scenario& s = state.document.GetScenario();
  const attnlab::Trace& t = state.document.GetTrace();
  const std::uint64_t tv = state.document.TraceVersion();
  const attnlab::HeadTrace& h = t.heads[std::size_t(head)];
  const bool rows = s.layout == attnlab::Layout::rows;
  const int d_v = int(rows ? h.output.cols() : h.output.rows());
  const StageId stage = step.kind == StageId::heads ? StageId::weights : step.kind;  // every head's weights
  const char* label = attnlab::stage_row(stage).label;  // the Pipeline's titles
  switch (step.kind) {
    case StageId::inputs: {
      std::vector<StageMatrix> out = {{StageId::none, "X", &s.X, state.document.Version()}};
      if (s.Z) out.push_back({StageId::none, "Z", &*s.Z, state.document.Version()});
      return out;
    }
    case StageId::X_pos:
    case StageId::Q_rot:
    case StageId::K_rot:
    case StageId::bias: {
      if (!attnlab::has_stage(t, step.kind)) return {};  // the explanation says what turns it on
      if (step.kind == StageId::X_pos) return {{stage, label, &t.X_pos, tv, false}};
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
      return {{stage, label, &*s.W_o, state.document.Version(), false, nullptr, 0, rows ? d_v : 0}};
    case StageId::output: return {{stage, label, &t.output, tv}};
    case StageId::tiles:  // drawn by PresenterEngines
    case StageId::decode:
    case StageId::none: break;  // not a lesson step
  }
  return {};
}

void PresenterPanel::DrawHeader(AppState& state, const lesson::Step& step, int head, int index, int count) {
  const attnlab::Scenario& s = state.document.GetScenario();
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
  ImGui::PushFont(GetFonts().bold);
  ImGui::TextWrapped("%s", lesson::step_title(step, s, head).c_str());
  ImGui::PopFont();
  if (!step.caption.empty()) ImGui::TextWrapped("%s", step.caption.c_str());
  ImGui::PushFont(GetFonts().mono);
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(AccentColor()), "%s",
                     lesson::step_formula(step, s, head).c_str());
  ImGui::PopFont();
}

// The largest cell (up to `cap`) at which a map of `m` fits in width x room: a guess from the room,
// then a tenth smaller at a time (key labels wider than a cell turn upright and take more height,
// so the map is measured each time), until it fits or only its colour bar is too wide. `fits`, if
// given, says whether it does.
float FitCell(const attnlab::Matrix& m, const MapSize& size_at, float width, float room, float cap, int decimals,
              bool* fits = nullptr) {
  float cell = CellFor(m, width, room, cap, decimals);
  ImVec2 size = size_at(cell);
  for (int tries = 0; tries < 20 && cell > 2.0f && (size.y > room || size.x > width); ++tries) {
    const float next = std::max(2.0f, std::floor(cell * 0.9f));
    const ImVec2 smaller = size_at(next);
    if (size.y <= room && smaller.x >= size.x) break;  // the colour bar: smaller cells do not help
    cell = next, size = smaller;
  }
  if (fits) *fits = size.x <= width && size.y <= room;
  return cell;
}

// Columns of the grid `count` maps like `first` are laid out in: as many as give the largest cells
// (four heads at 1280 x 800: 2 x 2, where four side by side cut the third and lost the fourth).
int GridColumns(const attnlab::Matrix& first, const MapSize& size_at, int count, ImVec2 avail, float gap, float cap,
                int decimals) {
  int best = 1;
  float best_cell = -1.0f;
  for (int cols = 1; cols <= count; ++cols) {
    const float rows = float((count + cols - 1) / cols);
    bool fits = false;
    const float cell =
        FitCell(first, size_at, (avail.x - gap * float(cols - 1)) / float(cols), avail.y / rows, cap, decimals, &fits);
    if (fits && cell > best_cell + 0.5f) best = cols, best_cell = cell;
  }
  return best;
}

// The grid of `matrices` in `avail`: the column count with the largest cells, then each map's cells
// in its share of the room. `size_of(i)`: map i's size at a cell size, as drawn.
MapGrid FitGrid(const std::vector<StageMatrix>& matrices, const std::function<MapSize(std::size_t)>& size_of,
                ImVec2 avail, float gap, float cap, int decimals) {
  const float fs = ImGui::GetFontSize();
  MapGrid grid;
  grid.cols = matrices.size() > 1 ? GridColumns(*matrices[0].m, size_of(0), int(matrices.size()), avail, gap, cap, decimals)
                                  : 1;
  const float rows = float((int(matrices.size()) + grid.cols - 1) / grid.cols);
  const float width =
      std::max(fs * 6.0f, (avail.x - gap * float(grid.cols - 1)) / float(grid.cols) - (grid.cols > 1 ? 0.0f : fs * 6.0f));
  const float room = std::max(fs * 6.0f, avail.y / rows - ImGui::GetStyle().ItemSpacing.y);
  for (std::size_t i = 0; i < matrices.size(); ++i)
    grid.cells.push_back(FitCell(*matrices[i].m, size_of(i), width, room, cap, decimals));
  return grid;
}

const MapGrid& PresenterPanel::Grid(AppState& state, const std::vector<StageMatrix>& matrices,
                                    const std::function<MapSize(std::size_t)>& size_of, int head, ImVec2 avail,
                                    float gap, float cap) {
  CachedGrid& g = grid_;
  const std::uint64_t version = state.document.TraceVersion(), document = state.document.Version();
  const int step = state.ui.presenter_step, decimals = state.ui.decimals;
  const float font = ImGui::GetFontSize();
  if (g.trace_version == version && g.document_version == document && g.step == step && g.head == head &&
      g.decimals == decimals && g.width == avail.x && g.height == avail.y && g.font == font &&
      g.grid.cells.size() == matrices.size())
    return g.grid;
  g = {FitGrid(matrices, size_of, avail, gap, cap, decimals), version, document, step, head, decimals, avail.x, avail.y,
       font};
  return g.grid;
}

void PresenterPanel::DrawMatrices(AppState& state, const lesson::Step& step, int head, bool hidden) {
  std::vector<StageMatrix> matrices = Matrices(state, step, head);
  if (matrices.empty()) {
    ImGui::TextColored(DimTextColor(), "This scenario has no W_o: the output is the concatenation.");
    return;
  }
  outlined_.clear();
  for (const lesson::Cell& c : step.highlight) outlined_.emplace_back(c.row, c.col);
  // The room left, shared by the step's matrices in a grid; cells as large as fit, up to five
  // digits' worth.
  // Every head's weights share one range: one legend under them all, not one a head.
  const bool shared_legend = step.kind == StageId::heads && matrices.size() > 1;
  const bool masked = !state.document.GetTrace().allowed.all();
  ImVec2 avail = ImGui::GetContentRegionAvail();
  if (shared_legend) avail.y -= HeatmapLegendHeight(masked) + ImGui::GetStyle().ItemSpacing.y;
  const float fs = ImGui::GetFontSize();
  const float cap = std::round(GetFonts().mono->FontSize * 7.0f);
  const float gap = fs * 2.0f;
  char title[32] = "";
  const auto configure = [&](StageHeatmap& map, std::size_t i) {
    if (step.kind == StageId::heads) {
      std::snprintf(title, sizeof title, "head %d", matrices[i].head + 1);
      map.Spec().title = title;
      map.Spec().selected = matrices[i].head == head;
    }
    map.Spec().legend = !shared_legend;
    map.Spec().formula = nullptr;  // the step's formula is above, large
    map.Spec().hidden = hidden;
    map.Spec().outlined = &outlined_;
  };
  const auto size_of = [&](std::size_t i) -> MapSize {
    return [&, i](float cell) {
      StageHeatmap map(state, matrices[i], cell, "presenter/");
      configure(map, i);
      return map.Size();
    };
  };
  const MapGrid& grid = Grid(state, matrices, size_of, head, avail, gap, cap);
  ColorScale legend_scale;
  for (std::size_t i = 0; i < matrices.size(); ++i) {
    const float cell = grid.cells[i];
    StageHeatmap heatmap(state, matrices[i], cell, "presenter/");
    configure(heatmap, i);
    if (i + 1 == matrices.size()) legend_scale = heatmap.Spec().scale;
    if (i % std::size_t(grid.cols) != 0) ImGui::SameLine(0.0f, gap);
    const HeatmapResult r = heatmap.Draw();
    if (r.clicked && r.row >= 0 && author_.Highlighting())
      author_.ToggleHighlight(state, cached_.lesson, state.ui.presenter_step, r.row, r.col);
    else if (step.kind == StageId::heads && r.clicked)
      state.SelectHead(matrices[i].head);
  }
  if (shared_legend) HeatmapLegend(legend_scale, std::min(avail.x, fs * 16.0f), masked, state.ui.decimals);
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
  const int count = int(lesson.steps.size());
  state.ui.presenter_step = std::clamp(state.ui.presenter_step, 0, count - 1);
  const lesson::Step& step = lesson.steps[std::size_t(state.ui.presenter_step)];
  const int head = std::clamp(step.head >= 0 ? step.head : state.ui.selected_head, 0,
                              int(trace.heads.size()) - 1);
  const bool hidden = step.predict && !state.ui.presenter_revealed;
  DrawHeader(state, step, head, state.ui.presenter_step, count);
  if (!cached_.error.empty()) ImGui::TextColored(WarningTextColor(), "view.lesson: %s", cached_.error.c_str());
  const CachedExplanation& words = Explanation(state, step, state.ui.presenter_step, head);
  PromptOrExplanation(step, words.prompt, hidden, words.text);
  ImGui::Spacing();
  if (step.kind == StageId::tiles || step.kind == StageId::decode)
    engines_.Draw(state, step, state.ui.presenter_step, head, hidden);
  else
    DrawMatrices(state, step, head, hidden);
  // Authoring is for preparing the lesson, out of lecture mode: the class sees a clean stage.
  if (state.ui.lecture_mode) return;
  ImGui::Spacing();
  author_.Draw(state, lesson, state.ui.presenter_step);
}

}  // namespace

std::unique_ptr<PanelContents> Make() { return std::make_unique<PresenterPanel>(); }

}  // namespace attnlab::app::panel_presenter
