#!/bin/sh
# The computed arrangement with real input (issue 13): at SIZE, a fresh start, Ctrl+L on and off,
# a resize to OTHER (xdotool windowsize), a dragged splitter, Ctrl+Q, and a relaunch with the
# saved settings at the smaller of the two. After every step the layout log (read back from
# ImGui's windows) must show the menu bar, formula strip and status bar, every open panel inside
# the window and no two overlapping; the dragged width must survive the relaunch as a share.
# usage: layout_resize.sh APP PRESET.json SIZE OTHER
. "$(dirname "$0")/gui_test.sh"
preset=$2
size=$3
other=$4
log="$work/layout.json"
check="$(dirname "$0")/check_arrangement.py"

# expect DESCRIPTION ARGS...: wait until the layout log passes the check
expect() {
  what=$1; shift
  wait_for "$wait_limit" python3 "$check" "$log" "$@" >/dev/null 2>&1 || {
    python3 "$check" "$log" "$@"; fail "$what"; }
  echo "ok: $what"
}
window() { xdotool search --name attnlab | head -1; }
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$log" "$1"; }

start "$preset" --size "$size" --layout-log "$log"
expect "fresh start at $size" --size "$size" --lecture 0 --has Pipeline --has Heads --has Mask
press ctrl l
expect "lecture mode on at $size" --size "$size" --lecture 1 --has Pipeline --has Heads --has Inspector
press ctrl l
expect "lecture mode off again at $size" --size "$size" --lecture 0 --has Mask --has Inspector
w=${other%x*}; h=${other#*x}
xdotool windowsize "$(window)" "$w" "$h"
expect "resized to $other" --size "$other" --lecture 0 --has Pipeline
press ctrl l
expect "lecture mode at $other" --size "$other" --lecture 1
press ctrl l
expect "lecture mode off at $other" --size "$other" --lecture 0

# Drag the splitter right of the left column 80 px to the right, with the mouse.
left_w=$(field 'next(w["box"][2] for w in d["windows"] if w["name"] == "Setup")')
gap_x=$(field 'int(next(w["box"][0] + w["box"][2] for w in d["windows"] if w["name"] == "Setup")) + 2')
gap_y=$(field 'int(d["display"][1] // 2)')
move "$gap_x" "$gap_y"
xdotool mousedown 1
until_seen "the button down on the splitter" field_is buttons 1
for step in 20 40 60 80; do move $((gap_x + step)) "$gap_y"; done
xdotool mouseup 1
until_seen "the button up after the drag" field_is buttons 0
dragged_w=$(field 'next(w["box"][2] for w in d["windows"] if w["name"] == "Setup")')
python3 -c "import sys; sys.exit(0 if 70 <= $dragged_w - $left_w <= 90 else 1)" ||
  fail "dragging the splitter 80 px widened the left column from $left_w to $dragged_w"
expect "after dragging a splitter" --size "$other" --lecture 0
echo "ok: the splitter drag widened the left column from $left_w to $dragged_w px"
arrangement=$(field 'd["arrangement"]')
share=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["shares"][sys.argv[2] + "/left"])' \
        "$XDG_CONFIG_HOME/attnlab/settings.json" "$arrangement") ||
  fail "no $arrangement/left share in settings.json"
quit_and_wait

# Relaunch with the saved settings at the smaller size: a whole window, the share kept.
small=$size; [ "${other%x*}" -lt "${size%x*}" ] && small=$other
start "$preset" --size "$small" --layout-log "$log"
expect "relaunch at $small with the saved settings" --size "$small" --lecture 0 --has Pipeline
[ "$(field 'd["arrangement"]')" = "$arrangement" ] || fail "the relaunch is not in the $arrangement arrangement"
ratio=$(field 'next(w["box"][2] for w in d["windows"] if w["name"] == "Setup") / d["display"][0]')
python3 -c "import sys; sys.exit(0 if abs($ratio - $share) < 0.05 else 1)" ||
  fail "the relaunch shows the left column at $ratio of the width, saved share $share"
echo "ok: relaunch keeps the left column's share ($share, now $ratio of the width)"
quit_and_wait
echo "PASS"
