#pragma once
/// The panel registry: every panel of the window in one list, each a file pair
/// `panel_<name>.h/.cpp` whose PanelContents draws the window's contents and keeps its state.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <imgui.h>

#include "panels/app_state.h"
#include "panels/panel_contents.h"
#include "panels/panel_help.h"

namespace attnlab::app {

/// Default column of a panel; panels sharing a column are stacked top to bottom in list order.
enum class PanelColumn { Left, Centre, Right };

struct Panel {
  const char* name;             ///< window (or tab) title; stable (ImGui ini, tests)
  std::unique_ptr<PanelContents> contents;
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

/// The window's panels, in drawing order, and how their tab groups were shown last frame. Owned
/// by the shell, one per window; new panels register in its constructor (panels.cpp).
class PanelRegistry {
 public:
  /// `shortcuts`: the rows of the Help panel's shortcut table (the shell's action table).
  explicit PanelRegistry(std::vector<HelpPanel::ShortcutRow> shortcuts);

  std::vector<Panel>& List() { return panels_; }
  Panel* FindPanel(const char* name);
  const Panel* FindPanel(const char* name) const;

  /// Draws every open panel at its default place (first use, or after View > Reset layout).
  void DrawPanels(AppState& state);
  /// Opens the panel and brings its tab to the front of its group (F1, the View menu).
  void ShowPanel(AppState& state, const char* name);
  /// The panel is open and not hidden behind another tab of its group.
  bool PanelInFront(const AppState& state, const char* name) const;

 private:
  std::vector<Panel> panels_;
  /// The arrangement of the last frame drawn: which grouping PanelInFront() answers for.
  bool last_compact_ = false;
  /// Group -> the panel its tab bar showed last frame (tells a click on a tab from a request).
  std::map<std::string, std::string> shown_tab_;
};

}  // namespace attnlab::app
