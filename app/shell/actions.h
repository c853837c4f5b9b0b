#pragma once
/// Every command of the window in one table: its label, menu, shortcut, Help text and what it
/// does. The menu bar (main_menu.cpp), the keyboard and the Help panel's shortcut list are all
/// drawn from it, so they cannot disagree.
#include <functional>
#include <string>
#include <vector>

#include "panels/app_state.h"
#include "panels/panel_help.h"
#include "panels/panels.h"

namespace attnlab::app {

class DocumentDialogs;

/// What an action's callbacks act on: the document and view state, the window's panels and its
/// dialogs.
struct ActionContext {
  AppState& state;
  PanelRegistry& panels;
  DocumentDialogs* dialogs = nullptr;  ///< the window's; null: file actions are disabled
};

/// A key and its modifiers: {GLFW_KEY_S, true, true} is Ctrl+Shift+S.
struct KeyChord {
  int key = 0;  ///< GLFW key code
  bool ctrl = false;
  bool shift = false;
};

/// When a shortcut is honoured.
enum class KeyScope {
  Always,    ///< even while typing or a dialog is up (quit, lecture mode, help)
  NoDialog,  ///< not while a dialog is open: dialogs own the keyboard (open, save)
  /// Not while typing in a text field (it keeps its own Ctrl+Z and digits), nor while
  /// "Opening..." / "Saving..." is up (the document cannot change).
  Document,
  /// Reported by the platform from GLFW's key callback (F12: ImGui 1.86 misses a press and
  /// release within one frame), not polled from ImGui.
  Platform,
};

struct Action {
  using Run = std::function<void(ActionContext&)>;
  using Query = std::function<bool(const ActionContext&)>;

  const char* label = "";            ///< menu item
  const char* menu = nullptr;        ///< "File", "Edit", "View" or "Help"; null: keys only
  std::vector<KeyChord> keys;        ///< the first is shown in the menu
  KeyScope scope = KeyScope::Always;
  bool repeat = false;               ///< a held key runs it again
  bool separator_before = false;     ///< in the menu
  const char* help = nullptr;        ///< the Help panel's description; null: not listed
  const char* help_keys = nullptr;   ///< the Help panel's keys column, when not the chords
  Run run;
  Query enabled;                     ///< null: always enabled
  Query checked;                     ///< null: not a toggle
  Run tooltip;                       ///< shown while its menu item is hovered
  Run draw;                          ///< draws the entry itself (dynamic lists, submenus)
};

/// "Ctrl+Shift+S", "F12", "[".
std::string ChordText(const KeyChord& chord);

/// The table, in menu order within each menu and in the Help panel's order.
class ActionTable {
 public:
  ActionTable();

  const std::vector<Action>& List() const { return actions_; }
  /// Runs the actions whose keys ImGui reports pressed this frame; call once per frame.
  void HandleShortcuts(ActionContext& ctx) const;
  /// Runs the KeyScope::Platform action bound to `chord`, if any.
  void RunPlatformKey(ActionContext& ctx, const KeyChord& chord) const;
  /// The Help panel's shortcut table: one row per chord of each described action.
  std::vector<panel_help::ShortcutRow> HelpRows() const;

 private:
  bool Pressed(const KeyChord& chord, bool repeat) const;

  std::vector<Action> actions_;
};

}  // namespace attnlab::app
