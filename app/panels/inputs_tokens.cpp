#include "panels/inputs_tokens.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "attnlab/edits.h"
#include "attnlab/scenario.h"
#include "widgets/edit_error.h"
#include "widgets/theme.h"

namespace attnlab::app::inputs_tokens {
namespace {

void AttentionKind(AppState& state) {
  const bool cross = state.document.GetScenario().cross_attention();
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Attention");
  ImGui::SameLine();
  if (ImGui::RadioButton("self", !cross) && cross)
    state.document.ApplyEdit("attention", [](attnlab::Scenario& s) { attnlab::set_cross_attention(s, false); });
  SameLineIfFits(RadioButtonWidth("cross"));
  if (ImGui::RadioButton("cross", cross) && !cross)
    state.document.ApplyEdit("attention", [](attnlab::Scenario& s) { attnlab::set_cross_attention(s, true); });
  DimTextWrapped(cross ? "queries from X; keys and values from the context Z"
                   : "queries, keys and values all from X");
  ShowEditError(state.document, "attention");
}

void LabelField(AppState& state, State& self, Sequence seq, int i, const char* source) {
  const attnlab::Scenario& s = state.document.GetScenario();
  const std::vector<std::string>& labels = seq == Sequence::X ? s.tokens : s.context_tokens;
  char buf[128] = {};
  if (i < static_cast<int>(labels.size()))
    std::snprintf(buf, sizeof buf, "%s", labels[static_cast<std::size_t>(i)].c_str());
  const std::string hint = "#" + std::to_string(i);
  const ImGuiID id = ImGui::GetID("##label");
  ImGui::SetNextItemWidth(-1.0f);
  const bool changed = ImGui::InputTextWithHint("##label", hint.c_str(), buf, sizeof buf);
  if (changed) {
    const std::string text = buf;
    state.document.ApplyEdit(source, [=](attnlab::Scenario& sc) { attnlab::set_token_label(sc, seq, i, text); },
                             self.label_editing == id);
    self.label_editing = id;
  }
  if (ImGui::IsItemDeactivated() && self.label_editing == id) self.label_editing = 0;
}

void RowButtons(AppState& state, Sequence seq, int i, int n, const char* source) {
  ImGui::BeginDisabled(i == 0);
  if (ImGui::ArrowButton("##up", ImGuiDir_Up))
    state.document.ApplyEdit(source, [=](attnlab::Scenario& s) { attnlab::move_token(s, seq, i, -1); });
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("Move up");
  ImGui::SameLine(0, 2);
  ImGui::BeginDisabled(i == n - 1);
  if (ImGui::ArrowButton("##down", ImGuiDir_Down))
    state.document.ApplyEdit(source, [=](attnlab::Scenario& s) { attnlab::move_token(s, seq, i, +1); });
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("Move down");
  ImGui::SameLine(0, 2);
  if (ImGui::Button("\xC3\x97", ImVec2(ImGui::GetFrameHeight(), 0)))  // ×
    state.document.ApplyEdit(source, [=](attnlab::Scenario& s) { attnlab::remove_token(s, seq, i); });
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Remove this token (its embedding too)");
}

void TokenList(AppState& state, State& self, Sequence seq) {
  const attnlab::Scenario& s = state.document.GetScenario();
  const int n = seq == Sequence::X ? s.n_x() : s.n_z();
  const char* source = seq == Sequence::X ? "tokens X" : "tokens Z";
  const char* label_source = seq == Sequence::X ? "labels X" : "labels Z";
  ImGui::PushFont(GetFonts().bold);
  ImGui::Text(seq == Sequence::X ? "X tokens" : "Z tokens");
  ImGui::PopFont();
  ImGui::SameLine();
  ImGui::TextColored(DimTextColor(), seq == Sequence::X ? "n_x = %d, the queries" : "n_z = %d, keys and values", n);
  ImGui::PushID(source);
  const float fs = ImGui::GetFontSize();
  const ImGuiTableFlags flags = ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg;
  if (ImGui::BeginTable("##tokens", 3, flags)) {
    ImGui::TableSetupColumn("#", ImGuiTableColumnFlags_WidthFixed, fs * 1.6f);
    ImGui::TableSetupColumn("label", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("actions", ImGuiTableColumnFlags_WidthFixed,
                            ImGui::GetFrameHeight() * 3 + 6);
    ImGuiListClipper clipper;
    clipper.Begin(n);
    while (clipper.Step())
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
        ImGui::PushID(i);
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        ImGui::AlignTextToFramePadding();
        ImGui::TextColored(DimTextColor(), "%d", i);
        ImGui::TableSetColumnIndex(1);
        LabelField(state, self, seq, i, label_source);
        ImGui::TableSetColumnIndex(2);
        RowButtons(state, seq, i, n, source);
        ImGui::PopID();
      }
    ImGui::EndTable();
  }
  if (ImGui::Button("+ Add token"))
    state.document.ApplyEdit(source, [=](attnlab::Scenario& sc) { attnlab::insert_token(sc, seq, n); });
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Appends a token with a zero embedding (edit it in %s below)",
                      seq == Sequence::X ? "X" : "Z");
  ShowEditError(state.document, source);
  ShowEditError(state.document, label_source);
  ImGui::PopID();
}

}  // namespace

void Draw(AppState& state, State& self) {
  AttentionKind(state);
  ImGui::Separator();
  TokenList(state, self, Sequence::X);
  if (state.document.GetScenario().cross_attention()) {
    ImGui::Spacing();
    TokenList(state, self, Sequence::Z);
  }
}

}  // namespace attnlab::app::inputs_tokens
