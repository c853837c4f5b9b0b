#include "panels/panel_lens.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/models/token_text.h"
#include "attnlab/numbering.h"
#include "attnlab/text_fit.h"
#include "attnlab/scenario.h"
#include "session/instrument_runs.h"
#include "session/model_lab.h"
#include "view/label_fit.h"
#include "widgets/busy_bar.h"
#include "widgets/control_marks.h"
#include "widgets/heatmap.h"
#include "widgets/panel_tooltip.h"
#include "widgets/theme.h"

namespace attnlab::app::panel_lens {
namespace {

/// A token as the field shows it: the text the tokenizer makes it from (" Paris"), else its id.
std::string TokenText(const models::HfModel& model, int id) {
  const models::Tokenizer* tokenizer = model.tokenizer();
  if (tokenizer && tokenizer->contains(id)) return tokenizer->decode(id);
  return std::to_string(id);
}

/// The largest cell, up to `most`, at which `specs` stacked fit `room` whole (labels and titles
/// included): the table and the chosen token's map share one cell size, so their columns line up.
float FitCell(HeatmapContext& ctx, std::vector<HeatmapSpec> specs, ImVec2 room, float most) {
  const float spacing = ImGui::GetStyle().ItemSpacing.y;
  float cell = most;
  for (; cell > 2.0f; cell = std::floor(cell * 0.9f)) {
    float height = 0, width = 0;
    for (HeatmapSpec& spec : specs) {
      spec.cell = cell;
      const ImVec2 size = HeatmapSize(ctx, spec);
      height += size.y + spacing;
      width = std::max(width, size.x);
    }
    if (width <= room.x && height <= room.y) break;
  }
  return std::max(cell, 2.0f);
}

/// A token written in a cell of `cell` pixels, centred: smaller (to 60% of the font) where it is wider
/// than `room`, and shortened in the middle only below that.
void CellToken(ImDrawList* dl, const std::string& token, ImVec2 at, float cell, float room, ImU32 ink) {
  ImFont* font = ImGui::GetFont();
  const float fs = ImGui::GetFontSize();
  const float natural = font->CalcTextSizeA(fs, FLT_MAX, 0, token.c_str()).x;
  const float size = std::max(fs * 0.6f, std::min(fs, fs * room / std::max(natural, 1.0f)));
  const TextWidthFn width = [font, size](const std::string& t) { return font->CalcTextSizeA(size, FLT_MAX, 0, t.c_str()).x; };
  const std::string text = ElideMiddle(token, room, width);
  const ImVec2 extent = font->CalcTextSizeA(size, FLT_MAX, 0, text.c_str());
  dl->AddText(font, size, ImVec2(at.x + (cell - extent.x) * 0.5f, at.y + (cell - extent.y) * 0.5f), ink, text.c_str());
}

/// The heads the document switches off when it is a layer of the open model (Next token runs them
/// off too), as layer.head.
std::vector<models::HeadRef> DocumentHeadsOff(AppState& state, const ModelLab& lab) {
  std::vector<models::HeadRef> off;
  if (lab.DocumentLayer() < 0) return off;
  for (int h : state.document.GetScenario().heads_off) off.push_back({lab.DocumentLayer(), h});
  return off;
}

/// What the lens runs, in one line: the model's own weights, with the document's heads switched off.
std::string WhatItRuns(const ModelLab& lab, const std::vector<models::HeadRef>& off) {
  if (lab.DocumentLayer() < 0) return "The model as it is (the document is not one of its layers).";
  std::string heads;
  for (const models::HeadRef& h : off)
    heads += (heads.empty() ? "" : ", ") + attnlab::index_text(h.layer) + "." + attnlab::index_text(h.head);
  const std::string layer = attnlab::layer_label(lab.DocumentLayer());
  return (off.empty() ? "The model's own weights" : "Heads " + heads + " switched off, as in the document") +
         "; other edits of " + layer + " are not in the lens (Next token shows them).";
}

class LensPanel final : public PanelContents {
 public:
  void Draw(AppState& state) override;

 private:
  void TokenField(const models::HfModel& model, const ControlMarks& marks);
  void Choose(const models::HfModel& model, const std::string& text);
  void Rebuild(const LensResult& r, const models::HfModel& model);
  HeatmapSpec TableSpec(AppState& state, const LensResult& r, bool last) const;
  HeatmapSpec ChosenSpec(AppState& state) const;
  void Table(AppState& state, const LensResult& r, const models::HfModel& model, HeatmapSpec spec);
  void Chosen(AppState& state, const LensResult& r, HeatmapSpec spec);
  void Tooltip(AppState& state, const LensResult& r, int layer, int position) const;
  HeatmapSpec BaseSpec(AppState& state) const;

  LensRun run_;
  char token_[64] = {};
  std::optional<int> chosen_;
  std::string token_error_;
  const models::HfModel* token_model_ = nullptr;  ///< the model chosen_ is an id of
  std::uint64_t built_ = ~std::uint64_t{0};
  attnlab::Matrix top_p_, chosen_p_;  ///< layers by positions
  std::vector<std::string> layer_labels_;
  std::string chosen_name_, chosen_title_;  ///< "p(“␣Paris”)", "... after each layer"
};

void LensPanel::Choose(const models::HfModel& model, const std::string& text) {
  chosen_.reset();
  token_error_.clear();
  if (text.empty()) return;
  try {
    chosen_ = models::one_token(model, "token", text);
  } catch (const ScenarioError& e) {
    token_error_ = e.what();
  }
}

void LensPanel::TokenField(const models::HfModel& model, const ControlMarks& marks) {
  if (token_model_ != &model) {  // another model: the typed token is one of its ids again, or refused
    token_model_ = &model;
    Choose(model, token_);
  }
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Token");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10.0f);
  if (ImGui::InputTextWithHint("##lens token", model.tokenizer() ? "one token's text" : "a token id", token_, sizeof token_))
    Choose(model, token_);
  MarkLastItem(marks, "lens token");
  ImGui::SameLine();
  ImGui::TextColored(DimTextColor(), "or click a cell");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("The token's probability after every layer, at every position, below");
  if (!token_error_.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ErrorTextColor());
    ImGui::TextWrapped("%s", token_error_.c_str());
    ImGui::PopStyleColor();
  }
}

void LensPanel::Rebuild(const LensResult& r, const models::HfModel& model) {
  const int layers = int(r.lens.top.size()), n = int(r.lens.ids.size());
  top_p_.resize(layers, n);
  for (int l = 0; l < layers; ++l)
    for (int i = 0; i < n; ++i) top_p_(l, i) = r.lens.top[std::size_t(l)][std::size_t(i)].p;
  chosen_p_ = r.lens.chosen;
  layer_labels_.clear();
  for (int l = 0; l < layers; ++l) layer_labels_.push_back(attnlab::index_text(l));
  chosen_name_ = r.chosen ? "p(\xE2\x80\x9C" + model.label(*r.chosen) + "\xE2\x80\x9D)" : "";
  chosen_title_ = chosen_name_ + " after each layer";
}

void LensPanel::Draw(AppState& state) {
  ModelLab* lab = state.models;
  if (!lab || !state.session) return;
  TaskRunner& tasks = state.session->Tasks();
  const models::HfModel* model = lab->Model();
  const std::string refusal = model ? models::logit_lens_refusal(model->config()) : "";
  if (!refusal.empty()) {  // an encoder: one line why the lens does not apply, and nothing run
    run_.Clear(tasks);
    DimTextWrapped(refusal + ".");
    MarkLastItem(state.on_control, "logit lens refusal");
    return;
  }
  if (!model || !lab->Run()) {
    run_.Clear(tasks);
    DimTextWrapped(model ? "Type a text in the Model panel: the lens reads it."
                         : "No model open. File > Open model" + std::string(kEllipsis) +
                               " opens a Hugging Face folder; type a text in the Model panel and the lens shows "
                               "what the model would predict after each layer.");
    return;
  }
  DimTextWrapped("What the model would predict if it stopped after each layer: the most likely token, its "
                 "probability as the colour.");
  const std::vector<models::HeadRef> heads_off = DocumentHeadsOff(state, *lab);
  DimTextWrapped(WhatItRuns(*lab, heads_off));
  TokenField(*model, state.on_control);
  run_.Request(tasks, {lab->SharedModel(), lab->Run()->run->ids, chosen_, heads_off});
  if (run_.Stale() && !run_.Get()) BusyBar(("Reading the layers" + std::string(kEllipsis)).c_str());
  if (!run_.Error().empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ErrorTextColor());
    ImGui::TextWrapped("%s", run_.Error().c_str());
    ImGui::PopStyleColor();
  }
  const LensResult* r = run_.Get();
  if (!r) return;
  if (built_ != run_.Serial()) {
    Rebuild(*r, *model);
    built_ = run_.Serial();
  }
  const bool chosen = chosen_p_.size() > 0;
  HeatmapSpec table = TableSpec(state, *r, !chosen), below = ChosenSpec(state);
  std::vector<HeatmapSpec> stacked = {table};
  if (chosen) stacked.push_back(below);
  table.cell = below.cell = FitCell(*state.heatmaps, stacked, ImGui::GetContentRegionAvail(),
                                    std::round(ImGui::GetFontSize() * 4.5f));
  Table(state, *r, *model, table);
  if (chosen) Chosen(state, *r, below);
}

HeatmapSpec LensPanel::BaseSpec(AppState& state) const {
  HeatmapSpec spec;
  spec.row_labels = &layer_labels_;
  spec.row_axis = "after layer";
  spec.scale = WeightsScale(state.ui.colormap);
  spec.shape_in_title = false;
  spec.cell_tooltip = false;
  spec.decimals = state.ui.decimals;
  spec.data_version = built_;
  spec.stale = run_.Stale() || state.models->RunStale();
  return spec;
}

HeatmapSpec LensPanel::TableSpec(AppState& state, const LensResult& r, bool last) const {
  HeatmapSpec spec = BaseSpec(state);
  spec.id = "lens/top";
  spec.title = "most likely next token";
  spec.values = &top_p_;
  spec.col_labels = &r.labels;  // the positions, by their tokens (no axis name: a line less)
  spec.values_in_cells = false;
  // The colours' legend under the table alone; with a token chosen, its map writes its numbers in
  // its cells instead, and the room goes to the cells (lecture mode at 1280x800).
  spec.legend = last;
  return spec;
}

// Under the table, with its cells: the positions' names are the table's, above.
HeatmapSpec LensPanel::ChosenSpec(AppState& state) const {
  HeatmapSpec spec = BaseSpec(state);
  spec.id = "lens/chosen";
  spec.title = chosen_title_.c_str();
  spec.values = &chosen_p_;
  spec.legend = false;
  return spec;
}

// The table: a cell per layer and position, the top token written in, its probability the colour.
void LensPanel::Table(AppState& state, const LensResult& r, const models::HfModel& model, HeatmapSpec spec) {
  const HeatmapResult hit = Heatmap(*state.heatmaps, spec);
  const float pad = std::max(1.0f, std::round(spec.cell * 0.06f));
  const float room = spec.cell - 2.0f * pad;
  if (room >= ImGui::GetFontSize()) {  // the tokens fit where a letter or two do
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (int l = 0; l < int(top_p_.rows()); ++l)
      for (int i = 0; i < int(top_p_.cols()); ++i) {
        const attnlab::Rgb8 fill = attnlab::MapValue(spec.scale, top_p_(l, i));
        const ImU32 ink = attnlab::Luminance(fill) > 0.45 ? IM_COL32(0, 0, 0, 255) : IM_COL32(255, 255, 255, 255);
        const ImVec2 cell(hit.grid.x + spec.cell * float(i), hit.grid.y + spec.cell * float(l));
        CellToken(dl, r.top_labels[std::size_t(l)][std::size_t(i)], cell, spec.cell, room, ink);
      }
  }
  if (hit.hovered) Tooltip(state, r, hit.row, hit.col);
  if (hit.clicked && hit.hovered) {  // that token's probability everywhere
    const int id = r.lens.top[std::size_t(hit.row)][std::size_t(hit.col)].id;
    std::snprintf(token_, sizeof token_, "%s", TokenText(model, id).c_str());
    chosen_ = id;
    token_error_.clear();
  }
}

void LensPanel::Chosen(AppState& state, const LensResult& r, HeatmapSpec spec) {
  const HeatmapResult hit = Heatmap(*state.heatmaps, spec);
  if (hit.hovered) Tooltip(state, r, hit.row, hit.col);
}

void LensPanel::Tooltip(AppState& state, const LensResult& r, int layer, int position) const {
  const int decimals = std::max(3, state.ui.decimals);
  const models::Prediction& top = r.lens.top[std::size_t(layer)][std::size_t(position)];
  BeginPanelTooltip();
  ImGui::PushFont(GetFonts().bold);
  ImGui::Text("after %s, position %d \xE2\x80\x9C%s\xE2\x80\x9D", attnlab::layer_label(layer).c_str(), position,
              r.labels[std::size_t(position)].c_str());
  ImGui::PopFont();
  MarkLastItem(state.on_control, ("lens tooltip " + std::to_string(layer) + " " + std::to_string(position)).c_str());
  ImGui::Text("most likely next: \xE2\x80\x9C%s\xE2\x80\x9D  p = %.*f", r.top_labels[std::size_t(layer)][std::size_t(position)].c_str(),
              decimals, top.p);
  if (r.chosen) ImGui::Text("%s = %.*f", chosen_name_.c_str(), decimals, r.lens.chosen(layer, position));
  ImGui::TextColored(DimTextColor(), "Click a cell of the table: its token's probability after every layer.");
  ImGui::EndTooltip();
}

}  // namespace

std::unique_ptr<PanelContents> Make() { return std::make_unique<LensPanel>(); }

}  // namespace attnlab::app::panel_lens
