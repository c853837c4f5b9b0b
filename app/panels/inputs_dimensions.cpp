#include "panels/inputs_dimensions.h"

#include <imgui.h>

#include <algorithm>
#include <cstdint>
#include <optional>

#include "attnlab/edits.h"
#include "attnlab/scenario.h"
#include "widgets/edit_error.h"
#include "widgets/theme.h"

namespace attnlab::app::inputs_dimensions {
namespace {

void RowLabel(const char* label, const char* tip) {
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(label);
  if (tip && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
  ImGui::TableSetColumnIndex(1);
}

attnlab::Fill CurrentFill(const State& self) { return {self.grow_random, self.random}; }

// One size control: +/- apply at once, typed numbers on Enter (never a half-typed "1" of "12").
void SizeControl(AppState& state, const State& self, const char* label, const char* tip, int current,
                 void (*apply)(attnlab::Scenario&, int, const attnlab::Fill&)) {
  RowLabel(label, tip);
  int value = current;
  ImGui::PushID(label);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.0f);
  if (ImGui::InputInt("##size", &value, 1, 1, ImGuiInputTextFlags_EnterReturnsTrue) && value != current) {
    const attnlab::Fill fill = CurrentFill(self);
    state.document.ApplyEdit(label, [&](attnlab::Scenario& s) { apply(s, value, fill); });
  }
  ImGui::PopID();
  ShowEditError(state.document, label);
}

struct Widths {
  int d_k = 0, d_v = 0;
};

Widths CurrentWidths(AppState& state) {
  const attnlab::Trace& t = state.document.GetTrace();
  if (t.heads.empty()) return {};
  const bool rows = state.document.GetScenario().layout == attnlab::Layout::rows;
  const attnlab::HeadTrace& h = t.heads.front();
  return {int(rows ? h.Q.cols() : h.Q.rows()), int(rows ? h.V.cols() : h.V.rows())};
}

void SizeControls(AppState& state, State& self) {
  const attnlab::Scenario& s = state.document.GetScenario();
  const Widths w = CurrentWidths(state);
  const ImGuiTableFlags flags = ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("##sizes", 2, flags)) return;
  ImGui::TableSetupColumn("label", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 5.2f);
  ImGui::TableSetupColumn("control", ImGuiTableColumnFlags_WidthStretch);
  SizeControl(state, self, "d_model", "width of X's embeddings (d_x)", s.d_x(), attnlab::set_model_width);
  if (s.cross_attention())
    SizeControl(state, self, "d_z", "width of the context Z's embeddings", s.d_z(), attnlab::set_context_width);
  SizeControl(state, self, "d_k", "query/key width of each head", w.d_k, attnlab::set_key_width);
  SizeControl(state, self, "d_v", "value width of each head", w.d_v, attnlab::set_value_width);
  RowLabel("New cells", "what a matrix that grows is padded with");
  if (ImGui::RadioButton("zeros", !self.grow_random)) self.grow_random = false;
  SameLineIfFits(RadioButtonWidth("random"));
  if (ImGui::RadioButton("random", self.grow_random)) self.grow_random = true;
  ImGui::EndTable();
}

void DistributionControl(attnlab::RandomSpec& r) {
  using Kind = attnlab::RandomSpec::Kind;
  struct Choice {
    Kind kind;
    const char* label;
  };
  const Choice choices[] = {{Kind::randint, "integers (NumPy randint)"},
                            {Kind::normal, "normal N(\xCE\xBC, \xCF\x83)"},
                            {Kind::xavier, "Xavier uniform"}};
  const char* preview = choices[0].label;
  for (const Choice& c : choices)
    if (c.kind == r.kind) preview = c.label;
  RowLabel("Values", nullptr);
  ImGui::SetNextItemWidth(-1.0f);
  if (ImGui::BeginCombo("##dist", preview)) {
    for (const Choice& c : choices)
      if (ImGui::Selectable(c.label, c.kind == r.kind)) r.kind = c.kind;
    ImGui::EndCombo();
  }
  const float half = ImGui::GetFontSize() * 4.6f;
  if (r.kind == Kind::randint) {
    RowLabel("Range", "integers from low up to (not including) high, like randint(low, high)");
    ImGui::SetNextItemWidth(half);
    ImGui::InputInt("##low", &r.low, 0);
    ImGui::SameLine();
    ImGui::TextUnformatted("to");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(half);
    ImGui::InputInt("##high", &r.high, 0);
    r.high = std::max(r.high, r.low + 1);
  } else if (r.kind == Kind::normal) {
    RowLabel("\xCE\xBC, \xCF\x83", "mean and standard deviation");
    ImGui::SetNextItemWidth(half);
    ImGui::InputDouble("##mean", &r.mean, 0, 0, "%.3g");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(half);
    ImGui::InputDouble("##std", &r.stddev, 0, 0, "%.3g");
    r.stddev = std::clamp(r.stddev, 0.0, 1e3);
    r.mean = std::clamp(r.mean, -1e3, 1e3);
  }
}

void RandomControls(AppState& state, State& self) {
  ImGui::PushFont(GetFonts().bold);
  ImGui::TextUnformatted("Random values");
  ImGui::PopFont();
  const ImGuiTableFlags flags = ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("##random", 2, flags)) return;
  ImGui::TableSetupColumn("label", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 5.2f);
  ImGui::TableSetupColumn("control", ImGuiTableColumnFlags_WidthStretch);
  DistributionControl(self.random);
  RowLabel("Seed", "same seed, same numbers on every machine");
  int seed = static_cast<int>(self.random.seed);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.0f);
  if (ImGui::InputInt("##seed", &seed)) self.random.seed = static_cast<std::uint64_t>(std::max(seed, 0));
  ImGui::EndTable();
  const attnlab::RandomSpec spec = self.random;
  if (ImGui::Button("Randomize weights"))
    state.document.ApplyEdit("randomize", [spec](attnlab::Scenario& s) { attnlab::randomize_weights(s, spec); });
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("New values for every W and b present (identity W's stay identity)");
  ImGui::SameLine();
  if (ImGui::Button("Randomize X"))
    state.document.ApplyEdit("randomize", [spec](attnlab::Scenario& s) { attnlab::randomize_embeddings(s, spec); });
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("New embeddings for the tokens (and for Z)");
  ShowEditError(state.document, "randomize");
}

}  // namespace

void Draw(AppState& state, State& self) {
  SizeControls(state, self);
  ImGui::PushStyleColor(ImGuiCol_Text, DimTextColor());
  ImGui::TextWrapped("Growing keeps every head's own columns; change the number of heads in "
                     "Scenario and watch the bands in W_q re-split.");
  ImGui::PopStyleColor();
  ImGui::Separator();
  RandomControls(state, self);
}

}  // namespace attnlab::app::inputs_dimensions
