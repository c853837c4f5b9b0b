#!/bin/sh
# The presenter's tiles steps with a clicker's keys (issue 25): P presents the FlashAttention
# preset's lesson; Right steps to its first tiles step (tile 0 of the 2 x 2 loop), then to the next
# (tile 8): in each capture the accent frame is on the CLI's tile of that step (`attnlab-cli flash
# --block 2x2`, loop order) and on no other; on the predict step (tile 9) R reveals m, l, alpha and
# O while the scores stay. The key line offers R only on that step, and lecture mode hides the
# lesson's authoring from the class.
# usage: presenter_tiles.sh APP CLI PRESET.json
. "$(dirname "$0")/gui_test.sh"
cli=$2
preset=$3
check="$(dirname "$0")/check_presenter_tiles.py"
"$cli" flash "$preset" --block 2x2 > "$work/run22.json" || fail "attnlab-cli flash --block 2x2"
start "$preset" --size 1920x1080 --capture-on "$work/cap"
step_is() { python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["window_arrangement"]["presenter_step"] != int(sys.argv[2]))' "$work/$1.png.json" "$2"; }
shows() { [ -n "$(control "$1")" ]; }  # shows ID: the last capture drew control ID
hidden() { python3 -c 'import json,sys; sys.exit(not any(h["hidden"] for h in json.load(open(sys.argv[1]))["heatmaps"]))' "$work/$1.png.json"; }
move 5 1075
press p
press Right
press Right  # step 3 of the lesson: tiles, tile 0
capture tile0
step_is tile0 2 || fail "two Right presses did not reach step 3"
"$check" "$work/tile0.png" "$work/run22.json" 0 || fail "step 3: tile 0"
# R is offered only where there is something to reveal; authoring only out of lecture mode.
shows "presenter keys" || fail "step 3: no key line"
shows "presenter keys, R" && fail "step 3 offers R with nothing to reveal"
shows "lesson author" || fail "out of lecture mode, no Author this lesson"
press Right  # step 4: tile 8
capture tile8
"$check" "$work/tile8.png" "$work/run22.json" 8 || fail "step 4: tile 8"
press Right  # step 5: tile 9, predict m
capture tile9
hidden tile9 || fail "the predict step shows its m"
shows "presenter keys, R" || fail "the predict step does not offer R"
"$check" "$work/tile9.png" "$work/run22.json" 9 || fail "step 5 (before R): tile 9"
press r
capture revealed
hidden revealed && fail "R did not reveal m, l, alpha and O"
"$check" "$work/revealed.png" "$work/run22.json" 9 || fail "step 5 (after R): tile 9"
shows "presenter keys, R" && fail "R is still offered after the reveal"
press ctrl+l
capture_layout lecture
shows "presenter keys" || fail "lecture mode: no key line"
shows "lesson author" && fail "lecture mode shows Author this lesson to the class"
quit_and_wait
echo "PASS: the presenter's outline follows the CLI's tiles, step by step"
