#pragma once
/// The panel registry: every panel of the window in one list, each a file pair
/// `panel_<name>.h/.cpp` whose PanelContents draws the window's contents and keeps its state, and
/// the arrangement that tiles them (computed every frame from the window's size and UI scale:
/// view/tiling.h). Only the shares the user dragged and which panels are open persist. It delivers
/// the typed requests panels make of each other (panel_requests.h) and keeps which tab of each
/// group is in front.
///
/// What each panel reads, besides the document (scenario, trace, versions) and its own members
/// (ui. is AppState::ui):
///   Scenario          ui.colormap, presets, session
///   Inputs            ui.colormap, ui.selected_head, ui.sensitivity_target, ui.sensitivity_on_inputs,
///                     sensitivity
///   Mask, Help        nothing shared
///   Formula           ui.hover.Shown(), ui.pinned, ui.selected_head
///   Pipeline, Heads   ui.hover.Shown(), ui.pinned (Pipeline), ui.selected_head, ui.colormap,
///                     ui.decimals; their heatmaps report the cell under the mouse (ui.hover)
///   Compare           reference (kept by its own button), ui.selected_head
///   Sensitivity       ui.sensitivity_target, ui.sensitivity_on_inputs, ui.pinned, ui.colormap,
///                     ui.decimals, sensitivity
///   Plane, Model, Head stats, Single query, Next token   ui.selected_head, ui.colormap,
///                     ui.decimals; Model and Next token also models
///   Head finder, Logit lens   models, session (their runs go on its TaskRunner), ui.colormap,
///                     ui.decimals; Head finder also ui.selected_head (outlined, set by a click)
///   Inspector         ui.hover.Shown(), ui.pinned (which it sets), ui.decimals, reference
///   Sweep             the sweep player (sweep), ui.colormap, session
///   Decode            ui.selected_head, ui.colormap, ui.decimals; sets ui.animating while it plays
///   Lines             nothing shared (its hidden heads are its own); lines_context_menu (export)
///   Presenter         ui.presenter_step, ui.presenter_revealed, ui.selected_head, ui.decimals
///   Tiles             ui.selected_head, ui.colormap, ui.decimals, ui.presenting; sets ui.animating
///                     while it plays
/// Panels read the hover of the last whole frame and take requests as they are made, so none of
/// this depends on the order they draw in. The one exception is an edit: the panels drawn after
/// the one that made it show it in the same frame, the others from the next (drawn right after:
/// an input wakes several frames), so the editors come first in the list.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <imgui.h>

#include "panels/app_state.h"
#include "panels/panel_contents.h"
#include "panels/panel_help.h"
#include "panels/panel_requests.h"
#include "view/tiling.h"

namespace attnlab::app {

/// One panel of the list, registered by name with what sets it apart, e.g.
/// `Panel("Help", panel_help::Make(rows)).HideInLecture()`.
struct Panel {
  Panel(const char* name, std::unique_ptr<PanelContents> contents)
      : name(name), contents(std::move(contents)) {}
  Panel&& WindowFlags(ImGuiWindowFlags f) && { flags = f; return std::move(*this); }
  Panel&& Strip(float lines) && { strip_lines = lines; return std::move(*this); }
  Panel&& HideInLecture() && { hide_in_lecture = true; return std::move(*this); }
  Panel&& Unlisted() && { listed = false; return std::move(*this); }

  const char* name;  ///< window (or tab) title; stable (settings, tests)
  std::unique_ptr<PanelContents> contents;
  bool open = true;
  ImGuiWindowFlags flags = 0;
  float strip_lines = 0.0f;      ///< > 0: a strip this many text lines tall
  bool hide_in_lecture = false;  ///< closed while lecture mode is on (room for the Pipeline)
  bool open_before_lecture = true;
  bool listed = true;  ///< in View > Panels (the presenter's stage is a mode, not a panel to toggle)
};

/// Which arrangement tiles the window: the normal three columns; two wider ones for lecture mode
/// and narrow windows; the presenter's stage beside the inputs.
enum class Arrangement { Normal, Compact, Presenter };
const char* ArrangementName(Arrangement arrangement);  ///< "normal", "compact", "presenter"

/// Where one window of the arrangement was drawn last frame (tests, the layout log).
struct PlacedWindow {
  std::string window;                ///< the ImGui window's name: a panel's, or its group's
  std::vector<std::string> panels;   ///< the open panels it holds, tab order
  std::string front;                 ///< the one whose tab is in front (drawn)
  Box box;
};

/// The window's panels, in drawing order, and how they were arranged last frame. Owned by the
/// shell, one per window; new panels register in its constructor (panels.cpp).
class PanelRegistry final : public PanelRequests {
 public:
  /// `shortcuts`: the rows of the Help panel's shortcut table (the shell's action table).
  explicit PanelRegistry(std::vector<panel_help::ShortcutRow> shortcuts);

  std::vector<Panel>& List() { return panels_; }
  Panel* FindPanel(const char* name);
  const Panel* FindPanel(const char* name) const;

  /// Tiles the area between the menu bar and the status bar with the open panels, draws them and
  /// the splitters between them, and takes in a splitter the user drags.
  void DrawPanels(AppState& state);
  /// Opens the panel and brings its tab to the front of its group (F1, the View menu, requests).
  void ShowPanel(const char* name) override;
  bool GivenColumn(const char* name) const override;
  /// Brings the panel's tab to the front of its group, if it is open.
  void BringToFront(const char* name);
  /// Gives the group holding panel `name` its whole column, as a double-click on its tab does (the
  /// guide opens where it can be read); a click on a folded tab gives the column back.
  void GiveColumn(const char* name);
  /// Lends the group holding panel `name` its whole column while that panel stays in front (F1:
  /// the guide opens where it can be read); the column is given back as it was, with the tab that
  /// was in front, when the panel leaves the front (another tab, closed) or GiveColumnBack().
  void LendColumn(const char* name);
  /// The column is lent to panel `name` (LendColumn) and it is in front.
  bool ColumnLentTo(const char* name) const;
  /// Ends a LendColumn: the column's groups, and the lent group's front tab, as before it.
  void GiveColumnBack();
  /// The panel is open and not hidden behind another tab of its group.
  bool PanelInFront(const char* name) const;
  /// View > Reset layout: the default shares in every arrangement, no group given its column.
  void ResetLayout() {
    shares_.clear();
    tall_group_.clear();
  }

  /// The dragged shares, by "arrangement/column[/slot]" key, and which panels are open: what
  /// persists between runs (the shell keeps them in the user's settings).
  const std::map<std::string, float>& Shares() const { return shares_; }
  void SetShares(std::map<std::string, float> shares) { shares_ = std::move(shares); }
  /// In lecture mode, the panels it closed count as they were before it.
  std::map<std::string, bool> OpenPanels(bool lecture_mode) const;
  void SetOpenPanels(const std::map<std::string, bool>& open);

  Arrangement LastArrangement() const { return last_arrangement_; }
  const std::vector<PlacedWindow>& LastPlacement() const { return placed_; }

 private:
  int PanelCount() const override { return int(panels_.size()); }
  PanelContents& Contents(int i) override { return *panels_[std::size_t(i)].contents; }
  const char* Name(int i) const override { return panels_[std::size_t(i)].name; }

  /// `heads`: the document's (many widen Compact's side column).
  std::vector<TileColumn> Columns(Arrangement arrangement, const std::string& tall_group, int heads) const;
  void KeepNextTokenBesideHeads(AppState& state, Arrangement arrangement);
  bool FoldedNow(const std::string& group) const;
  void RaiseToWantedHeights(AppState& state, Arrangement arrangement, const Box& work,
                            std::vector<TileColumn>& columns);
  void DrawSplitters(Arrangement arrangement, std::vector<TileColumn>& columns, const Tiling& tiling);
  void DrawGroup(AppState& state, const Tile& tile, const std::vector<std::size_t>& members);
  bool TallOnDoubleClick(const std::string& group, Panel& panel);
  void DrawOtherTabRow(AppState& state, const std::string& group, const std::vector<std::size_t>& row,
                       std::string& clicked);
  std::string DrawFrontTabRow(AppState& state, const std::string& group, const std::vector<std::size_t>& row,
                              const std::string& wanted, bool request, bool& reopened);

  std::vector<Panel> panels_;
  std::map<std::string, float> shares_;
  Arrangement last_arrangement_ = Arrangement::Normal;
  std::vector<PlacedWindow> placed_;
  int dragging_ = -1;  ///< the splitter being dragged (index into last frame's tiling), or -1
  /// Group -> the panel whose tab is in front. Set (BringToFront) to bring a tab to the front;
  /// a click on a tab updates it.
  std::map<std::string, std::string> front_tab_;
  /// A side group given its whole column (a double-click on one of its tabs): the column's other
  /// panels fold to their tab bars until a click on one of them, or the same double-click again.
  std::string tall_group_;
  /// While the Heads take their column: the slot there with Next token in front (a model's
  /// prediction, which the Heads' boxes change: a class sees a head switched off change it), kept
  /// at the height of what it shows (contents and chrome) instead of folding. Empty key: none.
  struct KeptSlot {
    std::string key;
    float height = 0;
  };
  KeptSlot kept_;
  /// A column lent to a panel (LendColumn): the group, the panel, and what to give back after.
  struct LentColumn {
    std::string group, panel;
    std::string tall_before, front_before;
    int open_count = -1;  ///< Document::OpenCount() when lent: another file ends it
  };
  LentColumn lent_;
  void EndLendWhenPanelLeaves(int open_count);
  /// Group -> the panel its tab bar showed last frame (tells a click on a tab from a request).
  std::map<std::string, std::string> shown_tab_;
};

}  // namespace attnlab::app
