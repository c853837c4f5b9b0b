# Sourced by the window test scripts: a fresh temporary $work holding the window's HOME, config,
# state (autosave) and pictures directories, so a test never reads or writes the user's own.
work=$(mktemp -d)
export XDG_CONFIG_HOME="$work/config" XDG_STATE_HOME="$work/state" HOME="$work/home" \
       XDG_PICTURES_DIR="$work/pictures"
mkdir -p "$HOME"
# llvmpipe compiles the window's shaders at every start and keeps them in a cache under HOME, fresh
# for each test: one cache shared by all the tests saves about 0.2 s of CPU a start under ASan
# (1.0 s cold, 0.8 s warm here). Only compiled shaders live there; nothing of the window's state.
export MESA_SHADER_CACHE_DIR="${MESA_SHADER_CACHE_DIR:-${TMPDIR:-/tmp}/attnlab-tests-mesa-cache}"
