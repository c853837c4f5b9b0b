#!/bin/sh
# View > Precision with real keys, under Xvfb: capture the window (layout dump included) at the
# default precision, after "." (one decimal more) and after "," (one fewer); the checker compares.
# usage: precision.sh APP CHECKER PRESET.json OUT_DIR [window options]
. "$(dirname "$0")/gui_test.sh"
checker=$2
preset=$3
out=$4
shift 4
mkdir -p "$out"
shot() {  # shot NAME: the next frame as $out/NAME.png and NAME.png.json
  capture "$1"
  cp "$work/$1.png" "$work/$1.png.json" "$out/"
}

start "$preset" --capture-on "$work/cap" "$@"
move 5 790  # out of the way: no hover or tooltip in the captures
shot precision2
press period
shot precision3
press comma
shot precision2-again
quit_and_wait
"$checker" "$out/precision2.png" "$out/precision3.png" "$out/precision2-again.png"
