#include "panels/panel_head_finder.h"

#include <imgui.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/numbering.h"
#include "attnlab/text_fit.h"
#include "session/instrument_runs.h"
#include "session/model_lab.h"
#include "widgets/busy_bar.h"
#include "widgets/control_marks.h"
#include "widgets/heatmap.h"
#include "widgets/panel_tooltip.h"
#include "widgets/theme.h"

namespace attnlab::app::panel_head_finder {
namespace {

using models::HeadScore;

/// How the panel names and explains each score (models/head_finder.h has the formulas).
struct ScoreText {
  HeadScore score;
  const char* title;
  const char* short_title;  ///< where five titles in a row leave little room (lecture mode)
  const char* words;        ///< the formula in words, for the hover
};
constexpr std::array<ScoreText, models::kHeadScores> kScores = {{
    {HeadScore::previous_token, "previous-token", "previous",
     "the mean, over every query i but the first, of its weight on key i \xE2\x88\x92 1, the token just before it"},
    {HeadScore::induction, "induction", "induction",
     "on R random tokens repeated twice: the mean, over the second repeat's queries i, of the weight on "
     "key i \xE2\x88\x92 R + 1, the token after the query's earlier occurrence"},
    {HeadScore::duplicate_token, "duplicate-token", "duplicate",
     "the mean, over the queries whose token appeared before, of their weight on its earlier occurrences "
     "(summed)"},
    {HeadScore::first_token, "first-token (sink)", "sink", "the mean, over every query, of its weight on the first token"},
    {HeadScore::local_span, "local span", "span",
     "the mean, over every query i, of the distance i \xE2\x88\x92 j it looks back, weighted by its weights (tokens)"},
}};

/// One score as the heatmap widget draws it: layers down, heads across, NaN (undefined) masked.
struct ScoreGrid {
  attnlab::Matrix values;
  attnlab::BoolArray defined;
  std::vector<std::pair<double, std::pair<int, int>>> ranked;  ///< finite scores, highest first
  std::string id;                                                ///< "heads/induction"
};

ScoreGrid MakeGrid(const Eigen::MatrixXd& score, HeadScore which) {
  ScoreGrid g;
  g.values = attnlab::Matrix::Zero(score.rows(), score.cols());
  g.defined = attnlab::BoolArray::Constant(score.rows(), score.cols(), false);
  for (int l = 0; l < int(score.rows()); ++l)
    for (int h = 0; h < int(score.cols()); ++h)
      if (std::isfinite(score(l, h))) {
        g.values(l, h) = score(l, h);
        g.defined(l, h) = true;
        g.ranked.push_back({score(l, h), {l, h}});
      }
  std::stable_sort(g.ranked.begin(), g.ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  g.id = std::string("heads/") + models::score_name(which);
  return g;
}

std::vector<std::string> Numbers(int count) {
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) out.push_back(attnlab::index_text(i));
  return out;
}

/// How many of the highest heads a score lists: `wanted`, or all it has.
int ListLength(const ScoreGrid& g, int wanted) { return std::min<int>(wanted, int(g.ranked.size())); }

/// How the cards are drawn: cell size, heads listed, the list beside the grid or under it, the titles.
struct CardFit {
  float cell = 0;
  int list = 5;
  bool beside = false;
  bool short_titles = false;
};

class HeadFinderPanel final : public PanelContents {
 public:
  void Draw(AppState& state) override;

 private:
  void Controls(ModelLab& lab, const ControlMarks& marks);
  void Ask(AppState& state, ModelLab& lab);
  void Rebuild(const HeadFinderResult& r);
  void Grids(AppState& state, ModelLab& lab);
  HeatmapSpec Spec(AppState& state, ModelLab& lab, int s, const CardFit& fit) const;
  ImVec2 CardSize(AppState& state, ModelLab& lab, int s, const CardFit& fit) const;
  float FlowHeight(AppState& state, ModelLab& lab, const CardFit& fit, float width) const;
  CardFit Fit(AppState& state, ModelLab& lab, ImVec2 avail) const;
  void Card(AppState& state, ModelLab& lab, int s, const CardFit& fit);
  void Tooltip(AppState& state, ModelLab& lab, int s, int layer, int head) const;
  void Open(ModelLab& lab, int layer, int head) const;

  HeadFinderRun run_;
  bool on_text_ = true;  ///< the text scores read the Model panel's text (else the repeat)
  int repeat_ = 10, seed_ = 0;
  std::uint64_t built_ = ~std::uint64_t{0};
  std::array<ScoreGrid, models::kHeadScores> grids_;  ///< in kScores' order
  std::vector<std::string> layer_labels_, head_labels_;
  int tokens_ = 0;  ///< how many tokens the text scores read (the local span's range)
  std::vector<std::pair<int, int>> outlined_;  ///< the document's head, when it is a layer of the model
  std::array<float, 5> fit_key_ = {};            ///< the room, font, scores and decimals fit_ was found for
  CardFit fit_;
};

void HeadFinderPanel::Controls(ModelLab& lab, const ControlMarks& marks) {
  if (ImGui::RadioButton("the Model's text", on_text_)) on_text_ = true;
  MarkLastItem(marks, "heads read text");
  ImGui::SameLine();
  if (ImGui::RadioButton("random repeat", !on_text_)) on_text_ = false;
  MarkLastItem(marks, "heads read repeat");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Every score on R random tokens repeated twice (attnlab-cli heads --random-repeat R --seed S)");
  ImGui::SameLine();
  const float field = ImGui::GetFontSize() * 6.0f;
  ImGui::SetNextItemWidth(field);
  // Twice R tokens and a BOS fit the model's positions: the field never asks for a refused repeat.
  const int longest = std::max(1, (lab.Model()->config().max_positions - 1) / 2);
  ImGui::InputInt("R", &repeat_);
  repeat_ = std::clamp(repeat_, 1, longest);
  MarkLastItem(marks, "heads repeat");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("How many random tokens are repeated (the induction score's R, 1 to %d)", longest);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(field);
  if (ImGui::InputInt("seed", &seed_)) seed_ = std::max(0, seed_);
  if (on_text_ && !lab.Run())
    DimTextWrapped("Type a text in the Model panel to read the scores on it; meanwhile they read the repeat.");
}

void HeadFinderPanel::Ask(AppState& state, ModelLab& lab) {
  HeadFinderAsk ask{lab.SharedModel(), {}, repeat_, seed_};
  if (on_text_ && lab.Run()) ask.text_ids = lab.Run()->run->ids;
  run_.Request(state.session->Tasks(), ask);
}

void HeadFinderPanel::Rebuild(const HeadFinderResult& r) {
  for (std::size_t s = 0; s < kScores.size(); ++s) grids_[s] = MakeGrid(r.scores[kScores[s].score], kScores[s].score);
  layer_labels_ = Numbers(int(grids_[0].values.rows()));
  head_labels_ = Numbers(int(grids_[0].values.cols()));
  tokens_ = int(r.scores.ids.size());
}

void HeadFinderPanel::Draw(AppState& state) {
  ModelLab* lab = state.models;
  if (!lab || !state.session) return;
  if (!lab->Model()) {
    run_.Clear(state.session->Tasks());
    DimTextWrapped("No model open. File > Open model" + std::string(kEllipsis) +
                   " opens a Hugging Face folder; the head finder then scores every layer's heads.");
    return;
  }
  // An encoder: one line why the scores do not apply, and nothing run.
  if (const std::string refusal = models::head_finder_refusal(lab->Model()->config()); !refusal.empty()) {
    run_.Clear(state.session->Tasks());
    DimTextWrapped(refusal + ".");
    MarkLastItem(state.on_control, "head finder refusal");
    return;
  }
  Controls(*lab, state.on_control);
  Ask(state, *lab);
  // The first scores: a bar; newer ones: the grids dimmed (Spec), in place.
  if (run_.Stale() && !run_.Get()) BusyBar(("Scoring the heads" + std::string(kEllipsis)).c_str());
  if (!run_.Error().empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ErrorTextColor());
    ImGui::TextWrapped("%s", run_.Error().c_str());
    ImGui::PopStyleColor();
  }
  const HeadFinderResult* r = run_.Get();
  if (!r) return;
  if (built_ != run_.Serial()) {
    Rebuild(*r);
    built_ = run_.Serial();
  }
  const std::string read = r->on_text ? "the text's " + std::to_string(r->scores.ids.size()) + " tokens; induction"
                                      : "every score";
  DimTextWrapped("Layers down, heads across. Read on " + read + " on " + std::to_string(r->repeat) + " random tokens twice (seed " +
                 std::to_string(r->seed) + ").");
  outlined_.clear();
  if (lab->DocumentLayer() >= 0) outlined_.push_back({lab->DocumentLayer(), state.ui.selected_head});
  Grids(state, *lab);
}

HeatmapSpec HeadFinderPanel::Spec(AppState& state, ModelLab& lab, int s, const CardFit& fit) const {
  const ScoreGrid& g = grids_[std::size_t(s)];
  HeatmapSpec spec;
  spec.id = g.id.c_str();
  spec.title = fit.short_titles ? kScores[std::size_t(s)].short_title : kScores[std::size_t(s)].title;
  spec.values = &g.values;
  spec.allowed = &g.defined;
  spec.row_labels = &layer_labels_;
  spec.col_labels = &head_labels_;
  // No axis names (a line each): the panel's line above says rows are layers, columns heads.
  spec.scale = WeightsScale(state.ui.colormap);
  if (kScores[std::size_t(s)].score == HeadScore::local_span)  // a distance in tokens, 0 to n - 1
    spec.scale.hi = std::max(1.0, double(tokens_ - 1));
  spec.cell = fit.cell;
  spec.shape_in_title = false;
  spec.legend = false;
  spec.cell_tooltip = false;
  spec.decimals = state.ui.decimals;
  spec.data_version = built_;
  spec.stale = run_.Stale() || lab.RunStale();
  spec.outlined = &outlined_;
  return spec;
}

ImVec2 HeadFinderPanel::CardSize(AppState& state, ModelLab& lab, int s, const CardFit& fit) const {
  const HeatmapSpec spec = Spec(state, lab, s, fit);
  ImVec2 grid = HeatmapSize(*state.heatmaps, spec);
  ImGui::PushFont(GetFonts().bold);  // the title's font
  grid.x = std::max(grid.x, ImGui::CalcTextSize(spec.title).x);
  ImGui::PopFont();
  const float list_h = ImGui::GetTextLineHeightWithSpacing() * float(ListLength(grids_[std::size_t(s)], fit.list));
  const float list_w = ImGui::CalcTextSize("00.00  0.000").x;
  if (fit.beside) return ImVec2(grid.x + ImGui::GetFontSize() * 0.5f + list_w, std::max(grid.y, list_h));
  return ImVec2(std::max(grid.x, list_w), grid.y + list_h);
}

// The five cards flowed over rows of `width` take this height.
float HeadFinderPanel::FlowHeight(AppState& state, ModelLab& lab, const CardFit& fit, float width) const {
  const float gap = ImGui::GetFontSize();
  float x = 0, y = 0, row_h = 0;
  for (int s = 0; s < int(kScores.size()); ++s) {
    const ImVec2 size = CardSize(state, lab, s, fit);
    if (x > 0 && x + size.x > width) x = 0, y += row_h + gap, row_h = 0;
    x += size.x + gap;
    row_h = std::max(row_h, size.y);
  }
  return y + row_h;
}

// The five cards (a grid and its highest heads, under it or beside it) flow over rows; the cells are
// the largest at which they all fit the panel, with five heads listed or, where that is too tall,
// three. Below a readable cell, the panel scrolls instead.
CardFit HeadFinderPanel::Fit(AppState& state, ModelLab& lab, ImVec2 avail) const {
  const float fs = ImGui::GetFontSize(), smallest = std::max(8.0f, std::round(fs * 1.2f));
  for (float cell = std::round(fs * 6.0f); cell >= smallest; cell = std::floor(cell * 0.92f))
    for (bool short_titles : {false, true})
      for (int list : {5, 3})
        for (bool beside : {false, true}) {
          const CardFit fit{cell, list, beside, short_titles};
          if (FlowHeight(state, lab, fit, avail.x) <= avail.y) return fit;
        }
  return {smallest, 3, false, true};
}

void HeadFinderPanel::Grids(AppState& state, ModelLab& lab) {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float gap = ImGui::GetFontSize();
  // The search measures every card at many sizes: only when the room, the font or the scores change.
  const std::array<float, 5> key = {avail.x, avail.y, ImGui::GetFontSize(), float(built_), float(state.ui.decimals)};
  if (key != fit_key_) {
    fit_key_ = key;
    fit_ = Fit(state, lab, avail);
  }
  const CardFit& fit = fit_;
  float x = 0;  // where the next card starts in its row
  for (int s = 0; s < int(kScores.size()); ++s) {
    const ImVec2 size = CardSize(state, lab, s, fit);
    if (s > 0 && x + size.x <= avail.x)
      ImGui::SameLine(0, gap);
    else if (s > 0)
      x = 0;
    ImGui::BeginGroup();
    Card(state, lab, s, fit);
    ImGui::EndGroup();
    x += size.x + gap;
  }
}

void HeadFinderPanel::Card(AppState& state, ModelLab& lab, int s, const CardFit& fit) {
  const ScoreGrid& g = grids_[std::size_t(s)];
  const HeatmapResult r = Heatmap(*state.heatmaps, Spec(state, lab, s, fit));
  if (r.hovered) Tooltip(state, lab, s, r.row, r.col);
  if (r.clicked && r.hovered) Open(lab, r.row, r.col);
  if (fit.beside) ImGui::SameLine(0, ImGui::GetFontSize() * 0.5f);
  ImGui::BeginGroup();
  const int decimals = std::max(2, state.ui.decimals);
  for (int i = 0; i < ListLength(g, fit.list); ++i) {
    const auto& [value, head] = g.ranked[std::size_t(i)];
    const std::string name = attnlab::index_text(head.first) + "." + attnlab::index_text(head.second);
    char line[64];  // highest first: the order is the rank
    std::snprintf(line, sizeof line, "%s  %.*f", name.c_str(), decimals, value);
    ImGui::PushID(i);
    if (ImGui::Selectable(line, false, 0, ImVec2(ImGui::CalcTextSize(line).x, 0))) Open(lab, head.first, head.second);
    ImGui::PopID();
    MarkLastItem(state.on_control, (g.id + " top " + std::to_string(i)).c_str());
    if (ImGui::IsItemHovered()) Tooltip(state, lab, s, head.first, head.second);
  }
  ImGui::EndGroup();
}

void HeadFinderPanel::Tooltip(AppState& state, ModelLab& lab, int s, int layer, int head) const {
  const ScoreGrid& g = grids_[std::size_t(s)];
  const ScoreText& text = kScores[std::size_t(s)];
  BeginPanelTooltip();
  ImGui::PushFont(GetFonts().bold);
  const std::string name = attnlab::model_head_label(layer, head);
  ImGui::TextUnformatted(name.c_str());
  ImGui::PopFont();
  MarkLastItem(state.on_control, ("heads tooltip " + name).c_str());  // the words a window test reads
  ImGui::SameLine();
  if (g.defined(layer, head))
    ImGui::Text("%s: %.*f", text.title, std::max(3, state.ui.decimals), g.values(layer, head));
  else
    ImGui::Text("%s: undefined on these tokens", text.title);
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 24.0f);
  ImGui::TextColored(DimTextColor(), "%s", text.words);
  if (lab.Run())
    ImGui::TextColored(DimTextColor(), "Click: open %s as the document, %s selected.", attnlab::layer_label(layer).c_str(),
                       attnlab::head_label(head).c_str());
  else
    ImGui::TextColored(DimTextColor(), "Type a text in the Model panel to open a layer.");
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

// The layer opens on the Model panel's text, as a click on its grid does.
void HeadFinderPanel::Open(ModelLab& lab, int layer, int head) const {
  if (!lab.Run() || lab.RunStale()) return;
  lab.OpenLayer(layer, head);
}

}  // namespace

std::unique_ptr<PanelContents> Make() { return std::make_unique<HeadFinderPanel>(); }

}  // namespace attnlab::app::panel_head_finder
