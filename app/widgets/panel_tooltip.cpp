#include "widgets/panel_tooltip.h"

#include <cstdarg>

#include <imgui_internal.h>

#include "view/tooltip_place.h"

namespace attnlab::app {

namespace {

/// The tooltip's size on the last frame it was drawn (ImGui names it "##Tooltip_00"); 0 before.
ImVec2 LastTooltipSize() {
  const ImGuiWindow* tooltip = ImGui::FindWindowByName("##Tooltip_00");
  return tooltip ? tooltip->SizeFull : ImVec2(0, 0);
}

/// Inside the panel the caller draws in (the root of its current window, which may be a child).
void PlaceTooltipInPanel() {
  const ImVec2 mouse = ImGui::GetIO().MousePos, size = LastTooltipSize();
  const ImRect panel = ImGui::GetCurrentWindowRead()->RootWindow->Rect();
  const TooltipPlace p = TooltipInside(mouse.x, mouse.y, panel.Min.x, panel.Min.y, panel.Max.x, panel.Max.y, size.x,
                                       size.y, ImGui::GetFontSize());
  ImGui::SetNextWindowPos(ImVec2(p.x, p.y), ImGuiCond_Always);
}

}  // namespace

void BeginPanelTooltip() {
  PlaceTooltipInPanel();
  ImGui::BeginTooltip();
}

void PanelTooltip(const char* format, ...) {
  PlaceTooltipInPanel();
  va_list args;
  va_start(args, format);
  ImGui::SetTooltipV(format, args);
  va_end(args);
}

}  // namespace attnlab::app
