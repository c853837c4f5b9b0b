#pragma once
/// The user's directories (XDG base directories, so tests isolate them with XDG_* variables):
/// settings and recent files in the config dir, the autosave in the state dir.
#include <string>

namespace attnlab::app {

/// $XDG_CONFIG_HOME/attnlab or ~/.config/attnlab, created on demand; empty when neither is known.
std::string ConfigDir();
/// $XDG_STATE_HOME/attnlab or ~/.local/state/attnlab, created on demand; empty when unknown.
std::string StateDir();
/// Where F12 screenshots go: $XDG_PICTURES_DIR, else ~/Pictures when it exists, else ~.
std::string PicturesDir();
/// The user's home directory ("." when HOME is unset).
std::string HomeDir();

}  // namespace attnlab::app
