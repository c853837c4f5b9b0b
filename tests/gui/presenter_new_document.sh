#!/bin/sh
# A new document's lesson starts at its first step (issue 38, point 4): P, Right x4 and Esc on one
# preset, Ctrl+O another, P: the presenter was at "Step 5 of 8", now step 1. The same after a
# model's layer or any file opened: the step is the presenter's view of one document. And a P typed
# ahead right after the dialog's Enter is not lost (point 9).
# usage: presenter_new_document.sh APP PRESETS_DIR
. "$(dirname "$0")/gui_test.sh"
presets=$2
first="$presets/modern-flashattention-tiles.json"
other="$presets/vaswani-q2-is-attends.json"
log="$work/layout.json"
is() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$log" "$1" 2>/dev/null; }
start "$first" --size 1280x800 --layout-log "$log"
press p
wait_for "$wait_limit" is 'd["presenting"]' || fail "P did not start the presenter"
for step in 1 2 3 4; do
  press Right
  wait_for "$wait_limit" is "d['presenter_step'] == $step" || fail "Right did not reach step $((step + 1))"
done
press Escape
wait_for "$wait_limit" is 'not d["presenting"]' || fail "Esc did not leave the presenter"
echo "step 1: the first preset's lesson left at step 5"
press ctrl o
until_seen "the Open dialog" popup_open
frames 2
type_text "$other"
press Return
opened() { title_is "vaswani-q2-is-attends"; }
wait_for "$wait_limit" opened || fail "Ctrl+O did not open $other"
press p
wait_for "$wait_limit" is 'd["presenting"]' || fail "P did not start the presenter on the new document"
is 'd["presenter_step"] == 0 and not d["presenter_revealed"]' ||
  fail "the new document's lesson starts at step $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["presenter_step"] + 1)' "$log"), not 1"
echo "step 2: the other preset's lesson starts at step 1"

# Keys typed ahead of the frames, as a teacher types (issue 38, point 9): the path, Enter and P in
# one burst of taps. The frame after the one where Enter closed the dialog still counted its text
# field as wanting the keys, and P went to the closed dialog.
press Escape
wait_for "$wait_limit" is 'not d["presenting"]' || fail "Esc did not leave the presenter"
press ctrl o
until_seen "the Open dialog" popup_open
until_seen "the dialog's path field holding the keyboard" field_is text_input 1
xdotool type --delay 0 "$first"
xdotool key --delay 0 Return p
wait_for "$wait_limit" title_is "modern-flashattention-tiles" || fail "Enter typed ahead did not open $first"
wait_for "$wait_limit" is 'd["presenting"]' || fail "P typed ahead right after the path and Enter was lost"
echo "step 3: P typed ahead after Ctrl+O, a path and Enter starts the presenter"
kill9
echo "PASS"
