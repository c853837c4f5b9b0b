#pragma once
/// Help panel: the guide to the window (docs/GUIDE.md, compiled in) and the keyboard shortcuts.
#include <memory>
#include <string>
#include <vector>

#include "panels/panel_contents.h"

namespace attnlab::app::panel_help {

/// One line of the shortcut table: "Ctrl+S", "Save (a preset asks where to keep a copy)".
struct ShortcutRow {
  std::string keys;
  std::string action;
};

/// The panel, listing `shortcuts` (the shell's action table: what the keys really do).
std::unique_ptr<PanelContents> Make(std::vector<ShortcutRow> shortcuts);

}  // namespace attnlab::app::panel_help
