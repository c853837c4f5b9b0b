#pragma once
/// The panel registry: every panel of the window in one list, each a file pair
/// `panel_<name>.h/.cpp` with a `Draw(AppState&)` that draws the window's contents.
#include <vector>

#include <imgui.h>

#include "panels/app_state.h"

namespace attnlab::app {

/// Default column of a panel; panels sharing a column are stacked top to bottom in list order.
enum class PanelColumn { Left, Centre, Right };

struct Panel {
  const char* name;             ///< window (or tab) title; stable (ImGui ini, tests)
  void (*draw)(AppState&);      ///< draws the contents between Begin and End
  PanelColumn column;
  float weight;                 ///< share of the column's height (a group: its largest member's)
  float compact_weight;         ///< share when the right column folds into the left one
  bool open = true;
  ImGuiWindowFlags flags = 0;
  float strip_lines = 0.0f;      ///< > 0: a strip this many text lines tall; weights ignored
  bool hide_in_lecture = false;  ///< closed while lecture mode is on (room for the Pipeline)
  bool open_before_lecture = true;
  /// Panels of one group share one window, one tab each (null: a window of its own). The
  /// compact arrangement (narrow window, lecture mode) has its own grouping: fewer, larger slots.
  const char* group = nullptr;
  const char* compact_group = nullptr;
};

/// The one list of panels (panels.cpp). New panels register there.
std::vector<Panel>& Panels();
Panel* FindPanel(const char* name);

/// Draws every open panel at its default place (first use, or after View > Reset layout).
void DrawPanels(AppState& state);

/// Opens the panel and brings its tab to the front of its group (F1, the View menu).
void ShowPanel(AppState& state, const char* name);
/// The panel is open and not hidden behind another tab of its group.
bool PanelInFront(const AppState& state, const char* name);

}  // namespace attnlab::app
