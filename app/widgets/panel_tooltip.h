#pragma once
/// Tooltips that stay inside the panel they explain (issue 26, point 2): ImGui::BeginTooltip() and
/// SetTooltip() placed beside the mouse towards the current window's middle (view/tooltip_place.h),
/// where ImGui's default (below right of the mouse) spilled over the next panel.
#include <imgui.h>

namespace attnlab::app {

void BeginPanelTooltip();
void PanelTooltip(const char* format, ...) IM_FMTARGS(1);

}  // namespace attnlab::app
