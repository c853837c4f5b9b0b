#!/bin/sh
# Presenter mode with a clicker's keys (issue 13): P presents the preset's lesson; Right steps
# through every step to the end (and no further); each step's screenshot (F12) has the colormap
# colour of the core's value in every cell the presenter drew (attnlab_gui_presenter_check); a
# predict step shows only "?" cells until R (or Right, a clicker's key, the first time), which
# reveals them where they are without stepping on; Left and Home go
# back; Esc leaves, the arrangement whole again. The Inputs are in front beside the lesson. The
# presenter draws at lecture mode's sizes (lecture mode off), and leaving it gives the normal back.
# usage: presenter.sh APP CHECKER PRESET.json SIZE
. "$(dirname "$0")/gui_test.sh"
checker=$2
preset=$3
size=$4
log="$work/layout.json"
shots="$work/shots"
mkdir -p "$shots"
get() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$log" "$1"; }
is() { [ "$(get "$1")" = "$2" ]; }
# shot NAME: F12 (the step's key was seen down and up: frames after it), wait for the PNG written
# to its end, keep it with the layout log of that frame
shot() {
  press F12
  wait_for "$wait_limit" sh -c "ls '$XDG_PICTURES_DIR'/*.png" >/dev/null 2>&1 || fail "no screenshot for $1"
  png=$(ls "$XDG_PICTURES_DIR"/*.png)
  wait_for "$wait_limit" png_done "$png" || fail "the screenshot for $1 was never finished"
  cp "$log" "$shots/$1.json"
  mv "$png" "$shots/$1.png"
}
check() {  # check NAME [hidden|revealed]
  "$checker" "$preset" "$shots/$1.png" "$shots/$1.json" "${2:-}" || fail "step $1: pixels"
}

start "$preset" --size "$size" --layout-log "$log"
move 5 "$((${size#*x} - 5))"
press p
wait_for "$wait_limit" is 'd["presenting"]' True || fail "P did not start the presenter"
# Presenting is lecturing: the class reads the stage at lecture mode's sizes, lecture mode or not.
wait_for "$wait_limit" is 'd["font_size"] >= 20 and not d["lecture"]' True ||
  fail "the presenter kept the normal font out of lecture mode"
python3 "$(dirname "$0")/check_arrangement.py" "$log" --presenting 1 --has Presenter --has Inputs ||
  fail "the presenter's arrangement is not whole"
wait_for "$wait_limit" is 'any(w["front"] == "Inputs" for w in d["windows"])' True ||
  fail "the Inputs are not in front beside the presenter"
step=0 predicted=0
while :; do
  wait_for "$wait_limit" is 'd["presenter_step"]' "$step" || fail "the presenter is not at step $step"
  if is 'any(h["hidden"] for h in d["heatmaps"])' True; then
    shot "$step-predict"; check "$step-predict" hidden
    # A clicker has no R: the first prediction is revealed with Right, which stays on the step.
    key=r; [ "$predicted" -eq 0 ] && key=Right
    press "$key"
    wait_for "$wait_limit" is 'd["presenter_revealed"] and not any(h["hidden"] for h in d["heatmaps"])' True ||
      fail "$key did not reveal step $step"
    is 'd["presenter_step"]' "$step" || fail "$key on a hidden prediction left step $step"
    shot "$step"; check "$step" revealed
    python3 - "$shots/$step-predict.json" "$shots/$step.json" <<'PY' || fail "R moved the matrices of step $step"
import json, sys
where = lambda p: [(h["x0"], h["y0"], h["cell"], h["rows"], h["cols"]) for h in json.load(open(p))["heatmaps"] if h["id"].startswith("presenter/")]
before, after = map(where, sys.argv[1:])
assert before and before == after, (before, after)
PY
    predicted=$((predicted + 1))
  else
    shot "$step"; check "$step"
  fi
  press Right  # seen by a frame, which wrote the layout log
  is 'd["presenter_step"]' "$step" && break  # the last step: Right stays
  step=$((step + 1))
done
[ "$step" -ge 5 ] || fail "the lesson has only $((step + 1)) steps"
[ "$predicted" -ge 1 ] || fail "no step asked for a prediction"
echo "ok: $((step + 1)) steps stepped with Right, $predicted predicted and revealed with Right, then R, pixels checked"
press Left
wait_for "$wait_limit" is 'd["presenter_step"]' "$((step - 1))" || fail "Left did not go back"
press Home
wait_for "$wait_limit" is 'd["presenter_step"]' 0 || fail "Home did not go to the first step"
press Escape
wait_for "$wait_limit" is 'd["presenting"]' False || fail "Esc did not leave the presenter"
wait_for "$wait_limit" is 'd["font_size"] < 17' True || fail "leaving the presenter kept its lecture sizes"
python3 "$(dirname "$0")/check_arrangement.py" "$log" --presenting 0 --has Pipeline || fail "not whole after Esc"
echo "ok: Left, Home and Esc"
quit_and_wait
echo PASS
