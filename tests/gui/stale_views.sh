#!/bin/sh
# Nothing stale after an undo or another file (issue 26.10), with real input under Xvfb, on a copy
# of Vaswani Q2 saved as stale.json:
#  1. "Colour the Inputs by it" (Sensitivity): the Inputs say "Colours: d output[0][0] / d cell";
#  2. Sweep > Play, then Pause: the Sweep panel shows "scale = ..." and Resume; the title says the
#     document is modified;
#  3. Ctrl+Z takes the sweep back: the title is clean again (the file as saved) and the Sweep panel
#     forgets the sweep (no value, Play again);
#  4. F1, then Ctrl+O opens another preset: the Inputs show values again (the gradient named a
#     cell of the old file), nothing of the sweep is back, and Help has given its column back
#     (the Heads no longer folded to their tab bar).
# Each step is read from a capture's layout dump (the named controls drawn).
# usage: stale_views.sh APP PRESET OTHER_PRESET
. "$(dirname "$0")/gui_test.sh"
other=$3
doc="$HOME/stale.json"
cp "$2" "$doc"
has() { [ -n "$(control "$1")" ]; }
start "$doc" --size 1920x1080 --show-panel Sensitivity --capture-on "$work/cap"
capture_layout first
click $(centre $(control "sensitivity on inputs"))
click $(centre $(control "panel tab Inputs"))
capture_layout colours
has "inputs colour by value" || fail "the Inputs are not coloured by the gradient after the click"

click $(centre $(control "panel tab Sweep"))
capture_layout sweep
version=$(seen_field version)
click $(centre $(control "sweep play"))
until_seen "three frames of the sweep" field_at_least version $((version + 3))
click $(centre $(control "sweep play"))  # Pause
capture_layout paused
has "sweep value" || fail "the paused sweep shows no value"
title_is " stale.json \\*\$" || fail "the title does not say the swept document is modified"

press ctrl z
wait_for "$wait_limit" title_is " stale.json\$" ||
  fail "undone back to the saved file, the title still says modified: $(xdotool getwindowname "$window")"
capture_layout undone
has "sweep value" && fail "the Sweep panel still shows the value of a sweep that was undone"
echo "undo: the title is clean, the Sweep panel forgot the sweep"

press F1  # Help takes its column: the Heads fold to their tab bar until another file opens
capture_layout guide
press ctrl o
until_seen "the Open dialog" popup_open
frames 2
type_text "$other"
press Return
title_not_stale() { ! title_is "stale.json"; }
wait_for "$wait_limit" title_not_stale || fail "Ctrl+O did not open $other"
frames 3
capture_layout other
has "inputs colour by value" && fail "another file opened, the Inputs still colour by the old file's gradient"
has "sweep value" && fail "another file opened, the Sweep panel shows a sweep"
heads_height() {
  /usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))["window_arrangement"]
print(int(next(w["box"][3] for w in d["windows"] if w["name"] == "Heads") / d["font_size"]))' "$1"
}
[ "$(heads_height "$work/guide.png.json")" -lt 3 ] || fail "F1 did not give Help the column"
[ "$(heads_height "$work/other.png.json")" -ge 3 ] || fail "another file opened, the Heads stay folded after F1"
quit_and_wait
echo "PASS: after Ctrl+Z and after another file, no panel keeps what belonged to the old document"
