#include "widgets/panel_tooltip.h"

#include <cstdarg>

#include <imgui_internal.h>

#include "view/tooltip_place.h"

namespace attnlab::app {

namespace {

/// ImGui's tooltip window (it names it "##Tooltip_00"), as last drawn; null before the first.
const ImGuiWindow* TooltipWindow() { return ImGui::FindWindowByName("##Tooltip_00"); }

/// The tooltip's size on the last frame it was drawn; 0 before.
ImVec2 LastTooltipSize() {
  const ImGuiWindow* tooltip = TooltipWindow();
  return tooltip ? tooltip->SizeFull : ImVec2(0, 0);
}

/// The panel the caller draws in: the root of its current window, which may be a child.
ImRect CallersPanel() { return ImGui::GetCurrentWindowRead()->RootWindow->Rect(); }

/// Inside the panel the caller draws in.
void PlaceTooltipInPanel() {
  const ImVec2 mouse = ImGui::GetIO().MousePos, size = LastTooltipSize();
  const ImRect panel = CallersPanel();
  const TooltipPlace p = TooltipInside(mouse.x, mouse.y, panel.Min.x, panel.Min.y, panel.Max.x, panel.Max.y, size.x,
                                       size.y, ImGui::GetFontSize());
  ImGui::SetNextWindowPos(ImVec2(p.x, p.y), ImGuiCond_Always);
}

TooltipRect RectOf(ImVec2 min, ImVec2 max) { return {min.x, min.y, max.x, max.y}; }

}  // namespace

void BeginCellTooltip(ImVec2 keep_min, ImVec2 keep_max) {
  const ImVec2 mouse = ImGui::GetIO().MousePos, size = LastTooltipSize();
  const ImRect panel = CallersPanel();
  const ImGuiViewport* screen = ImGui::GetMainViewport();
  const ImVec2 screen_max(screen->Pos.x + screen->Size.x, screen->Pos.y + screen->Size.y);
  const TooltipPlace p =
      TooltipClearOfRows(mouse.x, mouse.y, RectOf(keep_min, keep_max), RectOf(panel.Min, panel.Max),
                         RectOf(screen->Pos, screen_max), size.x, size.y, ImGui::GetFontSize());
  ImGui::SetNextWindowPos(ImVec2(p.x, p.y), ImGuiCond_Always);
  ImGui::BeginTooltip();
}

void MarkTooltip(const ControlMarks& marks, const char* id) {
  const ImGuiWindow* tooltip = TooltipWindow();
  if (!marks || !tooltip || !tooltip->Active || tooltip->Hidden) return;
  ControlMark mark;
  mark.window = tooltip->Name;
  mark.id = id;
  mark.x0 = tooltip->Pos.x, mark.y0 = tooltip->Pos.y;
  mark.x1 = tooltip->Pos.x + tooltip->SizeFull.x, mark.y1 = tooltip->Pos.y + tooltip->SizeFull.y;
  marks(mark);
}

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
