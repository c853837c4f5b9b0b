#include "panels/panel_next_token.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/numbering.h"
#include "panels/document_banner.h"
#include "session/model_lab.h"
#include "widgets/computing_badge.h"
#include "widgets/control_marks.h"
#include "widgets/theme.h"

namespace attnlab::app::panel_next_token {
namespace {

constexpr int kTop = 5;
// Beside the enlarged Heads: the likeliest three rows, enough to see a head switched off change
// the prediction, and the rest of the column for the heads' numbers.
constexpr std::size_t kRowsBesideHeads = 3;

// A bar of `p` (0..full) over a track `width` wide at the cursor, `height` tall.
void Bar(float width, float height, double p, double full, ImU32 color) {
  const ImVec2 pos = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(width, height));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(pos, ImVec2(pos.x + width, pos.y + height), ImGui::GetColorU32(ImGuiCol_FrameBg));
  const float w = std::round(width * float(std::clamp(p / full, 0.0, 1.0)));
  if (w > 0) dl->AddRectFilled(pos, ImVec2(pos.x + w, pos.y + height), color);
}

// As a percentage: "4.9%" reads at the back of a room where "0.049" does not. Below 1%, two
// significant digits ("0.016%"): a large vocabulary spreads a random model's guess that thin.
std::string Percent(double p) {
  char text[32];
  if (p < 0.01)
    std::snprintf(text, sizeof text, "%.2g%%", p * 100.0);
  else
    std::snprintf(text, sizeof text, "%.1f%%", p * 100.0);
  return text;
}

// One row a token: its label, bars (the model's in grey above the edited one's when comparing) and
// the numbers "0.41 → 0.12"; `beside_heads`: the first kRowsBesideHeads rows alone, else all with
// what the grey and coloured bars are under them.
void Rows(const ModelLab& lab, const NextTokens& next, bool compare, bool beside_heads) {
  const models::HfModel& model = *lab.Model();
  std::vector<NextRow> rows = CompareNext(next, kTop);
  if (beside_heads && rows.size() > kRowsBesideHeads) rows.resize(kRowsBesideHeads);
  const float fs = ImGui::GetFontSize();
  // The bars share one scale, the largest probability shown filling its track: a small model's
  // 5% is a bar, not a sliver.
  double full = 1e-9;
  for (const NextRow& r : rows) full = std::max({full, r.model, r.edited});
  const ImU32 grey = IM_COL32(150, 152, 160, 255), accent = AccentColor();
  // The label and number columns are as wide as their widest entry this frame (a label at most a
  // third of the panel): sized from what they hold, never squeezed by the bars beside them.
  std::vector<std::string> labels, numbers;
  float label_w = 0, number_w = 0;
  for (const NextRow& r : rows) {
    labels.push_back(model.label(r.id));
    numbers.push_back(compare ? Percent(r.model) + " \xE2\x86\x92 " + Percent(r.edited) : Percent(r.model));
    label_w = std::max(label_w, ImGui::CalcTextSize(labels.back().c_str()).x);
    number_w = std::max(number_w, ImGui::CalcTextSize(numbers.back().c_str()).x);
  }
  label_w = std::min(label_w, std::floor(ImGui::GetContentRegionAvail().x / 3.0f));
  const ImGuiTableFlags flags = ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_PadOuterX;
  if (!ImGui::BeginTable("##next", 3, flags)) return;
  ImGui::TableSetupColumn("token", ImGuiTableColumnFlags_WidthFixed, label_w);
  ImGui::TableSetupColumn("bars", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("p", ImGuiTableColumnFlags_WidthFixed, number_w);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const NextRow& r = rows[i];
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(labels[i].c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("token id %d", r.id);
    ImGui::TableSetColumnIndex(1);
    const float width = std::max(fs * 4.0f, ImGui::GetContentRegionAvail().x);
    const float height = ImGui::GetFrameHeight();
    if (compare) {
      Bar(width, std::floor(height * 0.4f), r.model, full, grey);
      ImGui::SetCursorPosY(ImGui::GetCursorPosY() - ImGui::GetStyle().ItemSpacing.y + 1.0f);
      Bar(width, std::floor(height * 0.6f), r.edited, full, accent);
    } else {
      Bar(width, height, r.model, full, accent);
    }
    ImGui::TableSetColumnIndex(2);
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(numbers[i].c_str());
  }
  ImGui::EndTable();
  if (compare && !beside_heads)
    DimTextWrapped("grey: " + model.name() + " as it is \xC2\xB7 colour: with " +
                   attnlab::layer_label(next.layer) +
                   " as the document has it. Bars are to the scale of the largest.");
}

// An encoder predicts no next token: the panel is its Masked word view, titled with the word.
void MaskedWordTitle(const ModelLab& lab, const NextTokens& next) {
  ImGui::PushFont(GetFonts().bold);
  ImGui::TextUnformatted("Masked word");
  ImGui::PopFont();
  const ModelRun* run = lab.Run();
  if (next.position < 0 || !run || next.position >= int(run->labels.size())) return;
  ImGui::SameLine();
  const bool hidden = run->hidden == next.position;
  ImGui::TextColored(DimTextColor(), "at token %d%s%s", next.position, hidden ? ", hiding " : "",
                     hidden ? run->hidden_label.c_str() : "");
}

class NextTokenPanel final : public PanelContents {
 public:
  void Draw(AppState& state) override {
    const ModelLab* lab = state.models;
    if (!lab) return;
    const NextTokens& next = lab->Next();
    const bool compare = next.state == NextTokens::State::Edited && !next.edited.empty();
    const bool shows_rows = !next.model.empty() && lab->Model();
    // Beside the enlarged Heads: its first rows alone, at the top (the notes would push them out).
    const bool rows_only = std::exchange(beside_heads_, false) && shows_rows;
    if (next.state == NextTokens::State::Failed) {
      ImGui::PushStyleColor(ImGuiCol_Text, ErrorTextColor());
      ImGui::TextWrapped("%s", next.note.c_str());
      ImGui::PopStyleColor();
    } else if (!rows_only) {
      if (next.masked_word) MaskedWordTitle(*lab, next);
      if (next.offer_locate && state.locate_model) LocateModelButton(state, "locate model");
      DimTextWrapped(next.stale && !next.model.empty() ? "Computing" + std::string("\xE2\x80\xA6 ") + next.note
                                                       : next.note);
    }
    rows_height_ = 0.0f;
    if (!shows_rows) return;
    if (!rows_only) ImGui::Spacing();
    if (next.stale) ImGui::PushStyleVar(ImGuiStyleVar_Alpha, ImGui::GetStyle().Alpha * kStaleAlpha);
    ImGui::BeginGroup();
    Rows(*lab, next, compare, rows_only);
    ImGui::EndGroup();
    MarkLastItem(state.on_control, "next token rows");  // where a test sees them whole, or cut
    if (next.stale) ImGui::PopStyleVar();
    if (rows_only) rows_height_ = ImGui::GetCursorPosY();
    else rows_height_ = ImGui::GetItemRectSize().y + ImGui::GetStyle().ItemSpacing.y;
  }
  // While the Heads take the column (asked each frame before drawing): the height of its first
  // rows alone, then drawn alone, a model's likeliest tokens in view beside the heads that change
  // them; 0 without a model's prediction (the panel folds to its tab).
  // An encoder predicts the word at a mask token, not the next one: the tab says so.
  const char* TabLabel(const AppState& state) const override {
    const models::HfModel* model = state.models ? state.models->Model() : nullptr;
    return model && !model->config().causal ? "Masked word" : "Next token";
  }
  float HeightBesideHeads(AppState& state) override {
    beside_heads_ = state.models && state.models->Model() && rows_height_ > 0.0f;
    return beside_heads_ ? rows_height_ : 0.0f;
  }

 private:
  float rows_height_ = 0.0f;   // of the rows as last drawn, the space above and below them included
  bool beside_heads_ = false;  // this frame: the rows alone (HeightBesideHeads)
};

}  // namespace

std::unique_ptr<PanelContents> Make() { return std::make_unique<NextTokenPanel>(); }

}  // namespace attnlab::app::panel_next_token
