#pragma once
/// The panel registry: every panel of the window in one list, each a file pair
/// `panel_<name>.h/.cpp` with a `Draw(AppState&)` that draws the window's contents.
#include <vector>

#include <imgui.h>

#include "app_state.h"

namespace attnlab::app {

/// Default column of a panel; panels sharing a column are stacked top to bottom in list order.
enum class PanelColumn { Left, Centre, Right };

struct Panel {
  const char* name;             ///< window title; stable (ImGui ini, tests)
  void (*draw)(AppState&);      ///< draws the contents between Begin and End
  PanelColumn column;
  float weight;                 ///< share of the column's height
  float compact_weight;         ///< share when the right column folds into the left one
  bool open = true;
  ImGuiWindowFlags flags = 0;
  float strip_lines = 0.0f;      ///< > 0: a strip this many text lines tall; weights ignored
  bool hide_in_lecture = false;  ///< closed while lecture mode is on (room for the Pipeline)
  bool open_before_lecture = true;
};

/// The one list of panels (panels.cpp). New panels register there.
std::vector<Panel>& Panels();

/// Draws every open panel at its default place (first use, or after View > Reset layout).
void DrawPanels(AppState& state);

}  // namespace attnlab::app
