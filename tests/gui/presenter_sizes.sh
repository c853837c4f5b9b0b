#!/bin/sh
# The presenter's figures keep their size from step to step (issue 26): in lecture mode at SIZE, P
# presents the preset's lesson and Right steps through all of it; the window is then resized to
# OTHER and Left steps back. At each size the cells of every step's matrices are within 0.7x of
# each other (the slides' rule: the same 3x3 matrix must not jump in size as the teacher steps),
# and a step whose cells are the lesson's size fills the stage: its maps span at least half of the
# room left below the text, across or down (they are as large as the lesson's tightest step
# allows, centred). Captures are kept in KEEP_DIR when given.
# usage: presenter_sizes.sh APP PRESET.json SIZE OTHER [KEEP_DIR]
. "$(dirname "$0")/gui_test.sh"
preset=$2
size=$3
other=$4
keep=${5:-}
log="$work/layout.json"
get() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$log" "$1"; }
is() { [ "$(get "$1")" = "$2" ]; }
shot() {  # shot NAME: the next frame's layout dump (the check reads only that); kept: its picture too
  if [ -z "$keep" ]; then capture_layout "$1"; else capture "$1" && cp "$work/$1.png" "$keep/$(basename "$preset" .json)-$1.png"; fi
}

start "$preset" --size "$size" --lecture --layout-log "$log" --capture-on "$work/cap"
move 5 "$((${size#*x} - 5))"
press p
wait_for "$wait_limit" is 'd["presenting"] and d["lecture"]' True || fail "P did not present in lecture mode"
step=0
while :; do  # forward at SIZE
  wait_for "$wait_limit" is 'd["presenter_step"]' "$step" || fail "the presenter is not at step $step"
  frames 2
  shot "$size-$step"
  press Right
  frames 2
  is 'd["presenter_step"]' "$step" && break  # the last step: Right stays
  step=$((step + 1))
done
last=$step
xdotool windowsize "$window" "${other%x*}" "${other#*x}"
wait_for "$wait_limit" is '[int(v) for v in d["display"]]' "[${other%x*}, ${other#*x}]" || fail "the window was not resized to $other"
while :; do  # back at OTHER
  frames 2
  shot "$other-$step"
  [ "$step" -eq 0 ] && break
  press Left
  step=$((step - 1))
  wait_for "$wait_limit" is 'd["presenter_step"]' "$step" || fail "Left did not go back to step $step"
done
quit_and_wait
python3 "$(dirname "$0")/check_presenter_sizes.py" "$work" "$size" "$other" "$last" || fail "the stage's sizes"
echo PASS
