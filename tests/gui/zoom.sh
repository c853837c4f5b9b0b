#!/bin/sh
# Zoom at any time (issue 13), with real input: Ctrl+= and Ctrl+wheel make the font larger with
# the arrangement still whole, Ctrl+- smaller, Ctrl+0 back to 100%; the zoom survives a relaunch.
# usage: zoom.sh APP PRESET.json
. "$(dirname "$0")/gui_test.sh"
preset=$2
log="$work/layout.json"
check="$(dirname "$0")/check_arrangement.py"
font() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["font_size"])' "$log"; }
# font_is SIZE WHAT: wait until the font is SIZE px and the arrangement is whole
font_near() { python3 -c 'import json,sys; sys.exit(abs(json.load(open(sys.argv[1]))["font_size"] - float(sys.argv[2])) > 0.05)' "$log" "$1"; }
whole() { python3 "$check" "$log" --size 1280x800 >/dev/null 2>&1; }
font_is() {
  wait_for "$wait_limit" font_near "$1" || fail "$2: font is $(font) px, expected $1"
  wait_for "$wait_limit" whole || python3 "$check" "$log" --size 1280x800 || fail "$2: the arrangement is not whole"
  echo "ok: $2 ($1 px)"
}

start "$preset" --size 1280x800 --layout-log "$log"
font_is 16.0 "100% at start"
press ctrl equal
font_is 17.6 "Ctrl+= zooms to 110%"
move 640 400
hold ctrl  # held until the wheel was taken (the window takes Ctrl+wheel before ImGui sees it)
xdotool click 4
font_is 20.0 "Ctrl+wheel zooms to 125%"
release ctrl
press ctrl minus
font_is 17.6 "Ctrl+- back to 110%"
quit_and_wait
start "$preset" --size 1280x800 --layout-log "$log"
font_is 17.6 "the zoom survives a relaunch"
press ctrl 0
font_is 16.0 "Ctrl+0 back to 100%"
quit_and_wait
echo PASS
