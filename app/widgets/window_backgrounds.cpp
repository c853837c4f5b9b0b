#include "widgets/window_backgrounds.h"

#include <imgui_internal.h>  // the windows' rectangles

namespace attnlab::app {
namespace {

ImRect RectOf(const ImGuiWindow* w) {
  return ImRect(w->Pos, ImVec2(w->Pos.x + w->Size.x, w->Pos.y + w->Size.y));
}

// Top-level windows drawn last frame; popups and tooltips draw their own background on top.
bool IsDrawnTopLevel(const ImGuiWindow* w) {
  const ImGuiWindowFlags nested =
      ImGuiWindowFlags_ChildWindow | ImGuiWindowFlags_Popup | ImGuiWindowFlags_Tooltip;
  return w->WasActive && !w->Hidden && (w->Flags & nested) == 0;
}

}  // namespace

float PanelBackgroundAlpha(const char* name) {
  const ImGuiWindow* window = ImGui::FindWindowByName(name);
  if (!window || !window->WasActive) return 1.0f;  // not placed yet: nothing known about overlaps
  const ImRect rect = RectOf(window);
  for (const ImGuiWindow* other : GImGui->Windows)
    if (other != window && IsDrawnTopLevel(other) && rect.Overlaps(RectOf(other))) return 1.0f;
  return 0.0f;  // tiles share edges only (ImRect::Overlaps is strict)
}

ImVec4 ClearColor() {
  ImVec4 c = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  c.w = 1.0f;
  return c;
}

}  // namespace attnlab::app
