#pragma once
/// Where named controls were drawn this frame, so that window tests can click them with real
/// input: the harness listens and lists them in its layout dump; attnlab itself never listens.
#include <functional>
#include <string>

#include <imgui.h>

namespace attnlab::app {

struct ControlMark {
  std::string window, id;
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;  ///< window coordinates (pixels / framebuffer scale)
  int rows = 0, cols = 0;                ///< a grid of equal cells (a matrix editor); else 0
};

/// Who is told where controls were drawn; empty when nobody listens.
using ControlMarks = std::function<void(const ControlMark&)>;

/// Tells `marks`, if set, that `mark` (id, rows, cols) was drawn over [min, max] in the current
/// window; not when none of it is in view (scrolled or clipped away).
void MarkRect(const ControlMarks& marks, ControlMark mark, ImVec2 min, ImVec2 max);
/// The same for the last item drawn.
void MarkLastItem(const ControlMarks& marks, const char* id);

}  // namespace attnlab::app
