# Sourced by the window test scripts: a fresh temporary $work holding the window's HOME, config,
# state (autosave) and pictures directories, so a test never reads or writes the user's own.
work=$(mktemp -d)
export XDG_CONFIG_HOME="$work/config" XDG_STATE_HOME="$work/state" HOME="$work/home" \
       XDG_PICTURES_DIR="$work/pictures"
mkdir -p "$HOME"
