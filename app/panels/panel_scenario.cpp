#include "panels/panel_scenario.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>
#include <vector>

#include "attnlab/edits.h"
#include "attnlab/model.h"
#include "attnlab/number_format.h"
#include "panels/document_banner.h"
#include "panels/panel_requests.h"
#include "panels/positions_controls.h"
#include "session/session.h"
#include "view/label_fit.h"
#include "widgets/control_marks.h"
#include "widgets/edit_error.h"
#include "widgets/theme.h"

namespace attnlab::app::panel_scenario {
namespace {

void PresetPicker(AppState& state) {
  ImGui::SetNextItemWidth(-1.0f);
  const std::string preview = state.document.name.empty() ? "(choose a preset)" : state.document.name;
  if (!ImGui::BeginCombo("##preset", preview.c_str(), ImGuiComboFlags_HeightLarge)) return;
  for (const PresetInfo& p : state.presets) {
    const bool current = state.document.is_preset && p.stem == state.document.name;
    if (ImGui::Selectable(p.title.c_str(), current)) {
      if (state.session) state.session->RequestOpenPreset(p);  // asks first when there are unsaved changes
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s.json", p.stem.c_str());
    if (current) ImGui::SetItemDefaultFocus();
  }
  ImGui::EndCombo();
}

void TitleAndNotes(const attnlab::Scenario& s) {
  ImGui::PushFont(GetFonts().bold);
  ImGui::TextWrapped("%s", s.title.empty() ? "Untitled scenario" : s.title.c_str());
  ImGui::PopFont();
  if (s.notes.empty()) return;
  // Notes can be long: a bounded, scrollable box that leaves the controls below in view.
  const float fs = ImGui::GetFontSize();
  const float height = std::max(fs * 6.0f, ImGui::GetContentRegionAvail().y - fs * 19.0f);
  ImGui::BeginChild("##notes", ImVec2(0, height), true);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(s.notes.c_str());
  ImGui::PopTextWrapPos();
  ImGui::EndChild();
}

/// The heads field's text while it is typed in (applied on Enter or when it loses focus).
struct HeadsField {
  char text[16] = {};
  bool editing = false;
};

void RowLabel(const char* label) {
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(label);
  ImGui::TableSetColumnIndex(1);
}

void LayoutControl(AppState& state) {
  RowLabel("Layout");
  const attnlab::Layout current = state.document.GetScenario().layout;
  for (attnlab::Layout l : {attnlab::Layout::rows, attnlab::Layout::columns}) {
    if (l == attnlab::Layout::columns) SameLineIfFits(RadioButtonWidth(attnlab::layout_name(l)));
    if (ImGui::RadioButton(attnlab::layout_name(l), current == l) && current != l)
      state.document.ApplyEdit("layout", [l](attnlab::Scenario& s) { attnlab::set_layout(s, l); });
  }
  DimTextWrapped(current == attnlab::Layout::rows ? "tokens are rows: Q = X W_q"
                                              : "tokens are columns: Q = W_q X");
  ShowEditError(state.document, "layout");
}

// The count after `current` in `valid` (ascending) going `step` (+1 or -1); 0 when there is none.
int StepHeads(const std::vector<int>& valid, int current, int step) {
  if (step > 0) {
    const auto next = std::upper_bound(valid.begin(), valid.end(), current);
    return next == valid.end() ? 0 : *next;
  }
  const auto next = std::lower_bound(valid.begin(), valid.end(), current);
  return next == valid.begin() ? 0 : *std::prev(next);
}

void SetHeads(AppState& state, int heads) {
  state.document.ApplyEdit("heads",
                           [heads](attnlab::Scenario& s) { attnlab::set_head_count(s, heads); });
}

// A typed count, once confirmed: one edit, refused with the core's reason when it does not fit.
void ApplyTypedHeads(AppState& state, const std::string& text) {
  try {
    if (attnlab::parse_head_count(text) == state.document.GetScenario().num_heads) return;  // no new version
  } catch (const attnlab::ScenarioError&) {
    // not a count: the edit below is refused with this message, shown beside the field
  }
  state.document.ApplyEdit("heads", [text](attnlab::Scenario& s) { attnlab::set_typed_head_count(s, text); });
}

void StepButton(AppState& state, const std::vector<int>& valid, int current, int step) {
  const int next = StepHeads(valid, current, step);
  const float side = ImGui::GetFrameHeight();
  ImGui::SameLine(0.0f, ImGui::GetStyle().ItemInnerSpacing.x);
  ImGui::BeginDisabled(next == 0);
  if (ImGui::Button(step > 0 ? "+" : "-", ImVec2(side, side))) SetHeads(state, next);
  ImGui::EndDisabled();
  MarkLastItem(state.on_control, step > 0 ? "heads +" : "heads -");
  if (next != 0 && ImGui::IsItemHovered()) ImGui::SetTooltip("%d heads", next);
}

std::string CountList(const std::vector<int>& valid) {
  std::string out;
  for (std::size_t i = 0; i < valid.size(); ++i)
    out += (i == 0 ? "" : i + 1 == valid.size() ? " or " : ", ") + std::to_string(valid[i]);
  return out;
}

// "+" and "-" step through the counts that divide the widths; a typed count applies on Enter or
// when the field loses focus, as one edit.
void HeadsControl(AppState& state, HeadsField& field) {
  RowLabel("Heads");
  const attnlab::Scenario& s = state.document.GetScenario();
  if (s.per_head()) {
    ImGui::AlignTextToFramePadding();
    ImGui::Text("%d, each with its own weights", s.head_count());
    return;
  }
  const int heads = s.num_heads;
  const std::vector<int> valid = attnlab::valid_head_counts(s);
  if (!field.editing) std::snprintf(field.text, sizeof field.text, "%d", heads);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 3.0f);
  const bool enter =
      ImGui::InputText("##heads", field.text, sizeof field.text,
                       ImGuiInputTextFlags_CharsDecimal | ImGuiInputTextFlags_AutoSelectAll |
                           ImGuiInputTextFlags_EnterReturnsTrue);
  field.editing = ImGui::IsItemActive();
  MarkLastItem(state.on_control, "heads field");
  if (enter || ImGui::IsItemDeactivatedAfterEdit()) ApplyTypedHeads(state, field.text);
  StepButton(state, valid, heads, -1);
  StepButton(state, valid, heads, +1);
  DimTextWrapped(("splits the full W_q, W_k, W_v: H = " + CountList(valid)).c_str());
  ShowEditError(state.document, "heads");
}

void ScaleControl(AppState& state) {
  RowLabel("Scale");
  const attnlab::Scale scale = state.document.GetScenario().scale;
  using Kind = attnlab::Scale::Kind;
  struct Choice {
    Kind kind;
    const char* label;
    const char* short_label;  ///< the preview where the label does not fit
  };
  const Choice choices[] = {{Kind::inv_sqrt_dk, "1/\xE2\x88\x9A" "d_k (Vaswani)", "1/\xE2\x88\x9A" "d_k"},
                            {Kind::none, "none (unscaled)", "none"},
                            {Kind::value, "temperature T", "T"}};
  const Choice* chosen = &choices[0];
  for (const Choice& c : choices)
    if (c.kind == scale.kind) chosen = &c;
  const ImGuiStyle& style = ImGui::GetStyle();
  const float sweep_w = ImGui::CalcTextSize("Sweep").x + style.FramePadding.x * 2.0f;
  const float combo_w = ImGui::GetContentRegionAvail().x - (sweep_w + style.ItemInnerSpacing.x);
  const std::string preview = FirstThatFits({chosen->label, chosen->short_label},
                                            combo_w - ImGui::GetFrameHeight() - style.FramePadding.x * 2.0f,
                                            [](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x; });
  ImGui::SetNextItemWidth(combo_w);
  if (ImGui::BeginCombo("##scale", preview.c_str())) {
    for (const Choice& c : choices) {
      if (!ImGui::Selectable(c.label, c.kind == scale.kind) || c.kind == scale.kind) continue;
      state.document.ApplyEdit("scale", [c](attnlab::Scenario& s) { attnlab::set_scale_kind(s, c.kind); });
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine(0.0f, ImGui::GetStyle().ItemInnerSpacing.x);
  if (ImGui::Button("Sweep")) state.requests->Request(state, SweepRequest{"scale"});
  MarkLastItem(state.on_control, "sweep scale");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Play the scale from sharp to flat weights (Sweep panel)");
  if (scale.kind == Kind::value) {
    float t = static_cast<float>(1.0 / scale.value);
    ImGui::SetNextItemWidth(-1.0f);
    if (ImGui::SliderFloat("##temperature", &t, 0.05f, 20.0f, "T = %.3g",
                           ImGuiSliderFlags_Logarithmic)) {
      const bool dragging = ImGui::IsItemActive() && !ImGui::IsItemActivated();
      state.document.ApplyEdit(
          "scale", [t](attnlab::Scenario& s) { attnlab::set_temperature(s, t); },
          dragging);  // one drag = one undo step
    }
    DimTextWrapped("scores are divided by T (multiplied by scale = 1/T = " + attnlab::format_trimmed(scale.value, 4) + ")");
  }
  ShowEditError(state.document, "scale");
}

void ColormapControl(AppState& state) {
  RowLabel("Colours");
  struct Choice {
    Colormap map;
    const char* label;
  };
  const Choice choices[] = {{Colormap::Viridis, "Viridis"},
                            {Colormap::Cividis, "Cividis (colour-blind safe)"},
                            {Colormap::Grayscale, "Grayscale (print)"}};
  const char* preview = choices[0].label;
  for (const Choice& c : choices)
    if (c.map == state.ui.colormap) preview = c.label;
  ImGui::SetNextItemWidth(-1.0f);
  if (ImGui::BeginCombo("##colormap", preview)) {
    for (const Choice& c : choices)
      if (ImGui::Selectable(c.label, c.map == state.ui.colormap)) state.ui.colormap = c.map;
    ImGui::EndCombo();
  }
  DimTextWrapped("signed values: blue < 0 < red");
}

void Controls(AppState& state, HeadsField& heads) {
  const ImGuiTableFlags flags = ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_PadOuterX;
  if (!ImGui::BeginTable("##controls", 2, flags)) return;
  ImGui::TableSetupColumn("label", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 4.2f);
  ImGui::TableSetupColumn("control", ImGuiTableColumnFlags_WidthStretch);
  LayoutControl(state);
  HeadsControl(state, heads);
  KvHeadsControl(state);
  ScaleControl(state);
  ColormapControl(state);
  ImGui::EndTable();
}

void Shapes(AppState& state) {
  const attnlab::Scenario& s = state.document.GetScenario();
  const attnlab::Trace& t = state.document.GetTrace();
  if (t.heads.empty()) return;
  const bool rows = s.layout == attnlab::Layout::rows;
  const attnlab::HeadTrace& h = t.heads.front();
  const int d_k = int(rows ? h.Q.cols() : h.Q.rows());
  const int d_v = int(rows ? h.V.cols() : h.V.rows());
  const int d_out = int(rows ? t.output.cols() : t.output.rows());
  ImGui::TextColored(DimTextColor(), "%s", s.cross_attention() ? "Cross-attention" : "Self-attention");
  ImGui::Text("n_x = %d   n_z = %d   d_x = %d", s.n_x(), s.n_z(), s.d_x());
  ImGui::Text("H = %d   d_k = %d   d_v = %d   d_out = %d", state.document.HeadCount(), d_k, d_v, d_out);
  for (const std::string& w : t.warnings) {
    ImGui::PushStyleColor(ImGuiCol_Text, WarningTextColor());
    ImGui::TextWrapped("%s", w.c_str());
    ImGui::PopStyleColor();
  }
}

class ScenarioPanel final : public PanelContents {
 public:
  void Draw(AppState& state) override;

 private:
  HeadsField heads_;
  PositionsFields positions_;
};

}  // namespace

void ScenarioPanel::Draw(AppState& state) {
  DocumentBanner(state, "Scenario");
  PresetPicker(state);
  ImGui::Spacing();
  TitleAndNotes(state.document.GetScenario());
  ImGui::Spacing();
  Controls(state, heads_);
  PositionsSection(state, positions_);
  LogitsSection(state);
  ImGui::Separator();
  Shapes(state);
}

std::unique_ptr<PanelContents> Make() { return std::make_unique<ScenarioPanel>(); }

}  // namespace attnlab::app::panel_scenario
