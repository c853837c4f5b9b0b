#pragma once
/// Tooltips that stay inside the panel they explain (issue 26, point 2): ImGui::BeginTooltip() and
/// SetTooltip() placed beside the mouse towards the current window's middle (view/tooltip_place.h),
/// where ImGui's default (below right of the mouse) spilled over the next panel.
#include <imgui.h>

#include "widgets/control_marks.h"

namespace attnlab::app {

void BeginPanelTooltip();
void PanelTooltip(const char* format, ...) IM_FMTARGS(1);
/// A hovered cell's tooltip that leaves [keep_min, keep_max] (the grid's first row down to the
/// hovered row) uncovered: below or beside the grid, leaving the panel for the screen only where
/// the panel has no such room (view/tooltip_place.h: TooltipClearOfRows).
void BeginCellTooltip(ImVec2 keep_min, ImVec2 keep_max);
/// Tells `marks` where the tooltip drawn this frame is, as control `id` (tests compare it with
/// the rows it must not cover); nothing when no tooltip is drawn.
void MarkTooltip(const ControlMarks& marks, const char* id);

}  // namespace attnlab::app
