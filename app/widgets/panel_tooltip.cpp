#include "widgets/panel_tooltip.h"

#include <cstdarg>

#include "view/tooltip_place.h"

namespace attnlab::app {

namespace {

void PlaceTooltipInPanel() {
  const ImVec2 mouse = ImGui::GetIO().MousePos, at = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
  const TooltipPlace p =
      TooltipInside(mouse.x, mouse.y, at.x, at.y, at.x + size.x, at.y + size.y, ImGui::GetFontSize());
  ImGui::SetNextWindowPos(ImVec2(p.x, p.y), ImGuiCond_Always, ImVec2(p.pivot_x, p.pivot_y));
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
