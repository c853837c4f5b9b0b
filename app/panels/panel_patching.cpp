#include "panels/panel_patching.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "attnlab/number_format.h"
#include "attnlab/numbering.h"
#include "attnlab/text_fit.h"
#include "session/model_lab.h"
#include "widgets/control_marks.h"
#include "widgets/heatmap.h"
#include "widgets/panel_tooltip.h"
#include "widgets/theme.h"

namespace attnlab::app::panel_patching {
namespace {

constexpr const char* kQuoteOpen = "\xE2\x80\x9C";
constexpr const char* kQuoteClose = "\xE2\x80\x9D";
constexpr const char* kMinus = " \xE2\x88\x92 ";

std::string Quoted(const std::string& label) { return kQuoteOpen + label + kQuoteClose; }

// What a finished run shows, as the heatmap widget draws it: rebuilt when the result changes.
struct Grids {
  std::uint64_t serial = 0;  ///< PatchingRun::ResultSerial() of what they show
  attnlab::Matrix heads, positions;
  std::vector<std::string> layers, head_numbers, tokens;  ///< row and column labels
  double range = 1;  ///< the colours' range: -range .. range, 1 at least (a full restore)
};

void Rebuild(Grids& g, const PatchingResult& r, std::uint64_t serial) {
  g.serial = serial;
  g.heads = r.patching.heads;
  g.positions = r.patching.positions;
  g.layers.clear();
  g.head_numbers.clear();
  g.tokens.clear();
  for (Eigen::Index l = 0; l < g.heads.rows(); ++l) g.layers.push_back(attnlab::index_text(int(l)));
  for (Eigen::Index h = 0; h < g.heads.cols(); ++h) g.head_numbers.push_back(attnlab::index_text(int(h)));
  const PatchingInput& in = r.input;
  for (std::size_t i = 0; i < in.clean_labels.size(); ++i)  // where the prompts differ: both tokens
    g.tokens.push_back(in.request.clean[i] == in.request.corrupted[i] ? in.clean_labels[i]
                                                                       : in.clean_labels[i] + "/" + in.corrupt_labels[i]);
  g.range = 1.0;
  for (const attnlab::Matrix* m : {&g.heads, &g.positions})
    if (m->size() > 0) g.range = std::max(g.range, m->cwiseAbs().maxCoeff());
}

// The largest whole-pixel cell, at most `cap`, at which the whole of `spec` (its title, labels and
// legend, which need not grow with the cells) fits `room`; below a pixel a cell, pooled (FitCellSize).
void FitCells(AppState& state, HeatmapSpec& spec, ImVec2 room, float cap) {
  const auto fits = [&](float cell) {
    spec.cell = cell;
    const ImVec2 size = HeatmapSize(*state.heatmaps, spec);
    return size.x <= room.x && size.y <= room.y;
  };
  int lo = 1, hi = std::max(1, int(cap));  // fits(lo) is known true inside the loop
  if (!fits(1.0f)) {
    const int rows = int(spec.values->rows()), cols = int(spec.values->cols());
    const ImVec2 trial = HeatmapSize(*state.heatmaps, spec);
    spec.cell = FitCellSize(rows, cols, std::max(8.0f, room.x - (trial.x - float(cols))),
                            std::max(8.0f, room.y - (trial.y - float(rows))), state.ui.decimals);
    return;
  }
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (fits(float(mid))) lo = mid;
    else hi = mid - 1;
  }
  spec.cell = float(lo);
}

// The heads beside the positions (each the whole height) or above them, whichever gives the smaller
// of their cells the larger size: a lecture-mode panel is short, a small model's grids are narrow.
// Sizes both specs' cells; returns whether they go side by side.
bool Arrange(AppState& state, HeatmapSpec& heads, HeatmapSpec& positions, ImVec2 room, float cap) {
  const float gap = ImGui::GetFontSize();
  HeatmapSpec above = heads, below = positions;
  FitCells(state, above, ImVec2(room.x, room.y * 0.5f), cap);
  FitCells(state, below, ImVec2(room.x, room.y - HeatmapSize(*state.heatmaps, above).y - gap), cap);
  HeatmapSpec left = heads, right = positions;
  FitCells(state, left, ImVec2(room.x * 0.5f, room.y), cap);
  FitCells(state, right, ImVec2(room.x - HeatmapSize(*state.heatmaps, left).x - gap, room.y), cap);
  const bool beside = std::min(left.cell, right.cell) > std::min(above.cell, below.cell);
  heads.cell = beside ? left.cell : above.cell;
  positions.cell = beside ? right.cell : below.cell;
  return beside;
}

class PatchingPanel final : public PanelContents {
 public:
  void Draw(AppState& state) override;

 private:
  void Fields(AppState& state, ModelLab& lab);
  bool FieldRow(AppState& state, const char* label, char* buffer, std::size_t size, float label_w,
                const std::string& count, bool count_refused);
  void StatusLine(AppState& state, const PatchingRun& run);
  void RunControls(AppState& state, PatchingRun& run);
  void Results(AppState& state, ModelLab& lab, const PatchingRun& run);
  void HeadTooltip(AppState& state, const PatchingResult& r, int layer, int head);
  void PositionTooltip(AppState& state, const PatchingResult& r, int layer, int position);
  void OpenPendingLayer(ModelLab& lab);
  PatchingFields Current() const { return {clean_, corrupt_, answer_, wrong_}; }
  void Fill(const PatchingFields& f);

  // A sentence or two, as the Model field; the answers are one token.
  char clean_[400] = {}, corrupt_[400] = {}, answer_[64] = {}, wrong_[64] = {};
  /// A field was typed in: until then the clean prompt is the Model text and the others its
  /// suggestion (SuggestInductionPair), so that a class sees a working pair on the circuit at once.
  bool typed_ = false;
  Grids grids_;
  int pending_layer_ = -1, pending_head_ = -1;  ///< a clicked head, opened once the Model text has run
};

void PatchingPanel::Fill(const PatchingFields& f) {
  std::snprintf(corrupt_, sizeof corrupt_, "%s", f.corrupt.c_str());
  std::snprintf(answer_, sizeof answer_, "%s", f.answer.c_str());
  std::snprintf(wrong_, sizeof wrong_, "%s", f.wrong.c_str());
}

// A prompt's field, its label aligned at `label_w`, its token count after it. Returns whether it was edited.
bool PatchingPanel::FieldRow(AppState& state, const char* label, char* buffer, std::size_t size, float label_w,
                             const std::string& count, bool count_refused) {
  const float x = ImGui::GetCursorPosX();
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(label);
  ImGui::SameLine(x + label_w);
  const float count_w = ImGui::CalcTextSize("000 tokens").x + ImGui::GetStyle().ItemSpacing.x;
  ImGui::SetNextItemWidth(std::max(ImGui::GetFontSize() * 6.0f, ImGui::GetContentRegionAvail().x - count_w));
  const bool edited = ImGui::InputText((std::string("##patching ") + label).c_str(), buffer, size);
  MarkLastItem(state.on_control, (std::string("patching ") + label).c_str());
  ImGui::SameLine();
  ImGui::TextColored(count_refused ? ErrorTextColor() : DimTextColor(), "%s", count.c_str());
  return edited;
}

void PatchingPanel::Fields(AppState& state, ModelLab& lab) {
  PatchingRun& run = lab.Patching();
  const PatchingInput* in = run.InputStale() ? nullptr : run.Input();
  if (!typed_ && lab.Text() != clean_) std::snprintf(clean_, sizeof clean_, "%s", lab.Text().c_str());
  else if (!typed_ && in) Fill(in->suggestion.value_or(PatchingFields{clean_, "", "", ""}));
  const auto count = [](const std::vector<int>& ids) {
    return ids.empty() ? std::string() : std::to_string(ids.size()) + (ids.size() == 1 ? " token" : " tokens");
  };
  const bool differ = in && !in->request.clean.empty() && !in->request.corrupted.empty() &&
                      in->request.clean.size() != in->request.corrupted.size();
  const float label_w = ImGui::CalcTextSize("corrupt").x + ImGui::GetStyle().ItemSpacing.x * 2.0f;
  typed_ = FieldRow(state, "clean", clean_, sizeof clean_, label_w, in ? count(in->request.clean) : "", false) || typed_;
  typed_ = FieldRow(state, "corrupt", corrupt_, sizeof corrupt_, label_w, in ? count(in->request.corrupted) : "", differ) ||
           typed_;
  // The answer and the wrong token side by side, each with the token it reads as.
  const float token_w = ImGui::GetFontSize() * 6.0f;
  const auto token_field = [&](const char* label, char* buffer, std::size_t size, const std::string& read) {
    const float x = ImGui::GetCursorPosX();
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(label);
    ImGui::SameLine(x + ImGui::CalcTextSize(label).x + ImGui::GetStyle().ItemSpacing.x * 2.0f);
    ImGui::SetNextItemWidth(token_w);
    typed_ = ImGui::InputText((std::string("##patching ") + label).c_str(), buffer, size) || typed_;
    MarkLastItem(state.on_control, (std::string("patching ") + label).c_str());
    if (read.empty()) return;
    ImGui::SameLine();
    ImGui::TextColored(DimTextColor(), "%s", read.c_str());
  };
  token_field("answer", answer_, sizeof answer_, in ? in->answer_label : "");
  SameLineIfFits(ImGui::CalcTextSize("wrong").x + token_w + ImGui::GetFontSize() * 4.0f);
  token_field("wrong", wrong_, sizeof wrong_, in ? in->wrong_label : "");
  SameLineIfFits(ImGui::CalcTextSize("Suggest").x + ImGui::GetStyle().FramePadding.x * 2.0f);
  ImGui::BeginDisabled(!in || !in->suggestion);
  if (ImGui::Button("Suggest")) Fill(*in->suggestion);
  ImGui::EndDisabled();
  MarkLastItem(state.on_control, "patching suggest");
  // Said even while a field still holds the keyboard: the reason is wanted right after typing.
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled | ImGuiHoveredFlags_AllowWhenBlockedByActiveItem)) {
    // Greyed out: why; else what it fills in.
    const std::string tip = in && !in->suggestion ? in->no_suggestion
                                                  : "A test of induction, when the clean prompt's last token came "
                                                    "before: that earlier copy replaced, the token after it the answer";
    if (!tip.empty()) PanelTooltip("%s", tip.c_str());
    MarkTooltip(state.on_control, "patching suggest tooltip");
  }
  // A click that changes nothing would look broken: say the fields hold the suggestion already.
  if (in && in->suggestion && *in->suggestion == Current()) {
    ImGui::SameLine();
    ImGui::TextColored(DimTextColor(), "(the suggestion)");
    MarkLastItem(state.on_control, "patching suggestion held");
  }
}

void PatchingPanel::StatusLine(AppState& state, const PatchingRun& run) {
  const PatchingInput* in = run.Input();  // while newer fields are read (a keystroke), the last reading
  if (!in) {
    ImGui::TextColored(DimTextColor(), "Reading the prompts%s", kEllipsis);
  } else if (!in->error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, in->incomplete ? DimTextColor() : ErrorTextColor());
    ImGui::TextWrapped("%s", in->error.c_str());
    ImGui::PopStyleColor();
    MarkLastItem(state.on_control, in->incomplete ? "patching hint" : "patching refusal");
  } else if (!run.Note().empty()) {
    ImGui::TextColored(ErrorTextColor(), "%s", run.Note().c_str());
    MarkLastItem(state.on_control, "patching note");
  } else {
    ImGui::NewLine();  // the line kept: Run and the grids do not jump as a refusal comes and goes
  }
}

void PatchingPanel::RunControls(AppState& state, PatchingRun& run) {
  if (run.Running()) {
    const float cancel_w = ImGui::CalcTextSize("Cancel").x + ImGui::GetStyle().FramePadding.x * 2.0f;
    char overlay[64];
    std::snprintf(overlay, sizeof overlay, "%d of %d patched runs", run.Done(), run.Total());
    ImGui::ProgressBar(run.Total() > 0 ? float(run.Done()) / float(run.Total()) : 0.0f,
                       ImVec2(ImGui::GetContentRegionAvail().x - cancel_w - ImGui::GetStyle().ItemSpacing.x, 0),
                       overlay);
    MarkLastItem(state.on_control, "patching progress");
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) run.Cancel();
    MarkLastItem(state.on_control, "patching cancel");
    return;
  }
  ImGui::BeginDisabled(!run.CanRun());
  if (ImGui::Button("Run")) run.Run();
  ImGui::EndDisabled();
  MarkLastItem(state.on_control, "patching run");
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    PanelTooltip("Patch every head's output and the residual stream at every layer and position");
  if (const PatchingResult* r = run.Result()) {
    ImGui::SameLine();
    const std::string line = "logit difference " + r->input.answer_label + kMinus + r->input.wrong_label + ": clean " +
                             format_number(r->patching.clean, 3) + ", corrupt " + format_number(r->patching.corrupted, 3);
    ImGui::AlignTextToFramePadding();
    if (run.ResultStale()) ImGui::TextColored(DimTextColor(), "%s (of the prompts before)", line.c_str());
    else ImGui::TextUnformatted(line.c_str());
    MarkLastItem(state.on_control, "patching logit difference");
  }
}

void PatchingPanel::HeadTooltip(AppState& state, const PatchingResult& r, int layer, int head) {
  BeginPanelTooltip();
  ImGui::PushFont(GetFonts().bold);
  const std::string name = attnlab::model_head_label(layer, head);
  ImGui::TextUnformatted(name.c_str());
  ImGui::PopFont();
  MarkLastItem(state.on_control, ("patching tooltip " + name).c_str());
  const double effect = r.patching.heads(layer, head);
  ImGui::Text("normalised effect %s", format_significant(effect, 4).c_str());
  ImGui::Text("logit difference %s (clean %s, corrupt %s)", format_significant(r.Raw(effect), 5).c_str(),
              format_significant(r.patching.clean, 5).c_str(), format_significant(r.patching.corrupted, 5).c_str());
  DimTextWrapped("Patched: " + name + "'s output z at every position, taken from the clean run into the corrupt one.");
  DimTextWrapped("Click: open " + attnlab::layer_label(layer) + " as the document, " + attnlab::head_label(head) +
                 " selected.");
  ImGui::EndTooltip();
}

void PatchingPanel::PositionTooltip(AppState& state, const PatchingResult& r, int layer, int position) {
  const PatchingInput& in = r.input;
  const std::size_t i = std::size_t(position);
  BeginPanelTooltip();
  ImGui::PushFont(GetFonts().bold);
  const std::string name = attnlab::layer_label(layer) + ", position " + attnlab::index_text(position);
  ImGui::TextUnformatted(name.c_str());
  ImGui::PopFont();
  MarkLastItem(state.on_control, ("patching tooltip " + name).c_str());
  const double effect = r.patching.positions(layer, position);
  ImGui::Text("normalised effect %s", format_significant(effect, 4).c_str());
  ImGui::Text("logit difference %s (clean %s, corrupt %s)", format_significant(r.Raw(effect), 5).c_str(),
              format_significant(r.patching.clean, 5).c_str(), format_significant(r.patching.corrupted, 5).c_str());
  const std::string tokens = in.request.clean[i] == in.request.corrupted[i]
                                 ? Quoted(in.clean_labels[i]) + " in both prompts"
                                 : Quoted(in.clean_labels[i]) + " clean, " + Quoted(in.corrupt_labels[i]) + " corrupt";
  DimTextWrapped("Patched: the residual stream entering " + attnlab::layer_label(layer) + " at position " +
                 attnlab::index_text(position) + " (" + tokens + "), taken from the clean run into the corrupt one.");
  ImGui::EndTooltip();
}

// A head clicked: its layer opens as the document once the Model text is the clean prompt and has
// run (the layer is made from that run).
void PatchingPanel::OpenPendingLayer(ModelLab& lab) {
  if (pending_layer_ < 0 || lab.RunStale() || !lab.Run() || lab.Run()->text != lab.Text()) return;
  lab.OpenLayer(pending_layer_, pending_head_);
  pending_layer_ = pending_head_ = -1;
}

void PatchingPanel::Results(AppState& state, ModelLab& lab, const PatchingRun& run) {
  const PatchingResult* r = run.Result();
  if (!r) {
    grids_ = {};
    DimTextWrapped("Run patches each head's output z (every position) and the residual stream entering each "
                   "layer at each position from the clean run into the corrupt one. 1: that alone restores the "
                   "clean logit difference; 0: no change.");
    return;
  }
  if (grids_.serial != run.ResultSerial()) Rebuild(grids_, *r, run.ResultSerial());
  const bool stale = run.ResultStale() || run.Running();
  const ColorScale scale{DivergingFor(state.ui.colormap), -grids_.range, grids_.range};
  const float cap = std::round(ImGui::GetFontSize() * 3.5f);
  const auto spec_of = [&](const char* id, const char* title, const attnlab::Matrix& values,
                           const std::vector<std::string>& cols, const char* col_axis) {
    HeatmapSpec spec;
    spec.id = id;
    spec.title = title;
    spec.values = &values;
    spec.row_labels = &grids_.layers;
    spec.col_labels = &cols;
    spec.row_axis = "layer";
    spec.col_axis = col_axis;
    spec.scale = scale;
    spec.decimals = state.ui.decimals;
    spec.shape_in_title = false;
    spec.cell_tooltip = false;
    spec.stale = stale;
    spec.data_version = grids_.serial;
    return spec;
  };
  HeatmapSpec heads = spec_of("patching/heads", "heads' z patched", grids_.heads, grids_.head_numbers, "head");
  HeatmapSpec positions = spec_of("patching/positions", "residual stream patched",
                                  grids_.positions, grids_.tokens, "position");
  positions.legend = false;  // one scale for both: the heads' legend
  const bool beside = Arrange(state, heads, positions, ImGui::GetContentRegionAvail(), cap);
  ImGui::BeginGroup();
  const HeatmapResult h = Heatmap(*state.heatmaps, heads);
  ImGui::EndGroup();
  if (h.hovered) HeadTooltip(state, *r, h.row, h.col);
  if (h.hovered && h.clicked && !stale) {
    pending_layer_ = h.row;
    pending_head_ = h.col;
    lab.SetText(r->input.fields.clean);  // the layer is made from the clean prompt's run
  }
  if (beside) ImGui::SameLine(0.0f, ImGui::GetFontSize());
  else ImGui::Spacing();
  ImGui::BeginGroup();
  const HeatmapResult p = Heatmap(*state.heatmaps, positions);
  ImGui::EndGroup();
  if (p.hovered) PositionTooltip(state, *r, p.row, p.col);
}

void PatchingPanel::Draw(AppState& state) {
  ModelLab* lab = state.models;
  if (!lab) return;
  if (!lab->Model()) {
    DimTextWrapped("No model open. File > Open model" + std::string(kEllipsis) +
                   " opens one; then patch between a clean and a corrupt prompt here.");
    return;
  }
  PatchingRun& run = lab->Patching();
  Fields(state, *lab);
  run.SetFields(lab->SharedModel(), Current());
  StatusLine(state, run);
  RunControls(state, run);
  ImGui::Spacing();
  Results(state, *lab, run);
  OpenPendingLayer(*lab);
}

}  // namespace

std::unique_ptr<PanelContents> Make() { return std::make_unique<PatchingPanel>(); }

}  // namespace attnlab::app::panel_patching
