#!/bin/sh
# View > Precision with real keys, under Xvfb: capture the window (layout dump included) at the
# default precision, after "." (one decimal more) and after "," (one fewer); the checker compares.
# usage: precision.sh APP CHECKER PRESET.json OUT_DIR [window options]
set -eu
app=$1
checker=$2
preset=$3
out=$4
shift 4
. "$(dirname "$0")/isolated_home.sh"
. "$(dirname "$0")/window_driver.sh"
mkdir -p "$out"
trigger="$work/capture"

capture() {  # capture NAME: the next frame as $out/NAME.png and NAME.png.json
  touch "$trigger"
  xdotool mousemove 5 790 mousemove 6 790  # an event, so that the idle window draws a frame
  wait_for 30 sh -c "test ! -e '$trigger' && test -s '$trigger.png.json'" || fail "no capture $1"
  mv "$trigger.png" "$out/$1.png"
  mv "$trigger.png.json" "$out/$1.png.json"
}

start "$preset" --capture-on "$trigger" "$@"
capture precision2
press period
capture precision3
press comma
capture precision2-again
quit_and_wait
"$checker" "$out/precision2.png" "$out/precision3.png" "$out/precision2-again.png"
