#include "shell/guide.h"

#include <imgui.h>

#include "view/guide.h"
#include "widgets/theme.h"

namespace attnlab::app {
namespace {

constexpr const char* kDismiss = "\xC3\x97";  // ×

// The longest hint that fits `room` beside the dismiss button; null when none does.
const char* HintThatFits(float room, float* width) {
  const ImGuiStyle& style = ImGui::GetStyle();
  const float dismiss = ImGui::CalcTextSize(kDismiss).x + style.FramePadding.x * 2.0f + style.ItemSpacing.x;
  for (const char* text : FirstRunHintTexts()) {
    *width = ImGui::CalcTextSize(text).x + style.FramePadding.x * 2.0f + dismiss;
    if (*width <= room) return text;
  }
  return nullptr;
}

// The hint in the accent colour (nowhere else in the menu bar) with dark text: seen at a glance.
bool HintButton(const char* text) {
  const ImVec4 accent = ImGui::ColorConvertU32ToFloat4(AccentColor());
  const ImVec4 hovered(accent.x, accent.y * 1.1f, accent.z * 1.5f + 0.1f, 1.0f);
  ImGui::PushStyleColor(ImGuiCol_Button, accent);
  ImGui::PushStyleColor(ImGuiCol_ButtonHovered, hovered);
  ImGui::PushStyleColor(ImGuiCol_ButtonActive, hovered);
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.05f, 0.05f, 0.05f, 1.0f));
  const bool clicked = ImGui::Button(text);
  ImGui::PopStyleColor(4);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Open the guide in the Help panel");
  return clicked;
}

}  // namespace

void ShowGuide(AppState& state, PanelRegistry& panels) {
  state.first_run_hint.Dismiss();
  if (panels.ColumnLentTo("Help")) {  // F1 again: the layout as it was
    panels.GiveColumnBack();
    return;
  }
  // A tab's third of a column is too small to read a walkthrough in; lent before the request
  // brings Help to the front, so that the tab in front before comes back with the column.
  panels.LendColumn("Help");
  panels.Request(state, GuideRequest{});
}

void DrawFirstRunHint(AppState& state, PanelRegistry& panels) {
  // Presenting, the menu bar is on the class's screen: the hint is for the teacher.
  if (!state.first_run_hint.Due() || state.ui.presenting) return;
  const float room = ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x;
  float width = 0.0f;
  const char* text = HintThatFits(room, &width);
  if (!text) return;
  ImGui::SetCursorPosX(ImGui::GetCursorPosX() + room - width);
  if (HintButton(text)) ShowGuide(state, panels);
  if (ImGui::SmallButton(kDismiss)) state.first_run_hint.Dismiss();
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Dismiss: this hint will not show again");
}

}  // namespace attnlab::app
