#include "widgets/control_marks.h"

#include <imgui_internal.h>  // the current window's name

#include <utility>

namespace attnlab::app {

void MarkRect(const ControlMarks& marks, ControlMark mark, ImVec2 min, ImVec2 max) {
  if (!marks) return;
  // A control scrolled or clipped out of its panel cannot be clicked: it is not told of, so that
  // a test never clicks, through it, whatever is drawn there instead.
  const ImRect visible = ImGui::GetCurrentWindowRead()->ClipRect;
  if (max.x <= visible.Min.x || min.x >= visible.Max.x || max.y <= visible.Min.y || min.y >= visible.Max.y) return;
  mark.window = ImGui::GetCurrentWindowRead()->Name;
  mark.x0 = min.x;
  mark.y0 = min.y;
  mark.x1 = max.x;
  mark.y1 = max.y;
  marks(std::move(mark));
}

void MarkLastItem(const ControlMarks& marks, const char* id) {
  if (!marks) return;
  ControlMark mark;
  mark.id = id;
  MarkRect(marks, std::move(mark), ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
}

}  // namespace attnlab::app
