#!/bin/sh
# The shipped lesson of the hand-built induction circuit (issue 39), with a clicker's keys in one
# window at 1920x1080: the preset (a layer-0 document of assets/models/induction-circuit, named
# "../models/induction-circuit" from the presets' folder) opens the circuit; P presents; Right steps
# through every step. Each predict step first shows only "?" cells; Right reveals it without
# stepping on (a clicker has no R) and the next Right steps. The pixels of each step equal the
# numbers computed apart from the window:
#  - the document's steps: the core's on the preset (attnlab_gui_presenter_check);
#  - the layer-1 steps: the core's on `attnlab-cli model DIR --text T --layer 1 --out`'s scenario;
#  - the finder steps: `attnlab-cli heads DIR --text T --random-repeat 10 --seed 0 --json`'s score;
#  - the patching step: `attnlab-cli patch DIR --clean --corrupt --answer --wrong --json`'s heads.
# usage: lesson_circuit.sh APP CLI PRESENTER_CHECK INSTRUMENTS_CHECK PATCHING_CHECK LESSON.json CIRCUIT_DIR
. "$(dirname "$0")/gui_test.sh"
cli=$2
presenter_check=$3
instruments_check=$4
patching_check=$5
lesson=$6
model=$7
log="$work/layout.json"
step_field() {  # step_field I KEY: the lesson's step I's KEY ("" when it has none)
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["view"]["lesson"]["steps"][int(sys.argv[2])]; print(s.get(sys.argv[3], ""))' \
    "$lesson" "$1" "$2"
}
text=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["view"]["model"]["text"])' "$lesson")
steps=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["view"]["lesson"]["steps"]))' "$lesson")
"$cli" heads "$model" --text "$text" --random-repeat 10 --seed 0 --json >"$work/heads.json" || fail "attnlab-cli heads"
"$cli" model "$model" --text "$text" --layer 1 --out "$work/layer1.json" >/dev/null || fail "attnlab-cli model --layer 1"

is() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$log" "$1" 2>/dev/null; }
# The step's maps, drawn and current: the stage's (presenter/...) or an instrument's.
drawn='[h for h in d["heatmaps"] if h["id"].startswith("presenter") and not h["stale"]]'

start "$lesson" --size 1920x1080 --layout-log "$log" --capture-on "$work/cap"
wait_for "$wait_limit" is 'd["model"].get("name") == "induction-circuit" and not d["model"]["loading"]' ||
  fail "the lesson did not open its model (../models/induction-circuit beside the presets)"
move 5 1075  # off the maps: no tooltip over them
press p
wait_for "$wait_limit" is 'd["presenting"]' || fail "P did not start the presenter"
step=0 predicted=0
while [ "$step" -lt "$steps" ]; do
  wait_for "$wait_limit" is "d['presenter_step'] == $step and len($drawn) > 0" || fail "step $step drew no map"
  stage=$(step_field "$step" stage) layer=$(step_field "$step" layer)
  if [ "$(step_field "$step" predict)" = True ]; then
    is "all(h['hidden'] for h in $drawn)" || fail "predict step $step shows its numbers before the reveal"
    case "$stage" in finder | patching) ;;  # hidden in the layout log: no pixels to read
    *)
      capture "$step-predict"; cp "$log" "$work/$step-predict.log.json"
      scenario=$lesson; [ "$layer" = 1 ] && scenario=$work/layer1.json
      "$presenter_check" "$scenario" "$work/$step-predict.png" "$work/$step-predict.log.json" hidden ||
        fail "predict step $step shows more than \"?\" cells" ;;
    esac
    press Right
    wait_for "$wait_limit" is "d['presenter_revealed'] and not any(h['hidden'] for h in $drawn)" ||
      fail "Right did not reveal predict step $step"
    is "d['presenter_step'] == $step" || fail "Right on predict step $step stepped on before the reveal"
    predicted=$((predicted + 1))
  fi
  capture "$step"; cp "$log" "$work/$step.log.json"
  case "$stage" in
    finder)
      "$instruments_check" "$work/$step.png" "$work/heads.json" --finder "$(step_field "$step" score)" ||
        fail "finder step $step is not attnlab-cli heads' $(step_field "$step" score)" ;;
    patching)
      "$cli" patch "$model" --clean "$(step_field "$step" clean)" --corrupt "$(step_field "$step" corrupt)" \
        --answer "$(step_field "$step" answer)" --wrong "$(step_field "$step" wrong)" --json >"$work/patch.json" ||
        fail "attnlab-cli patch"
      "$patching_check" "$work/$step.png" "$work/patch.json" --heads presenter_patching ||
        fail "patching step $step is not attnlab-cli patch's heads" ;;
    *)
      scenario=$lesson; [ "$layer" = 1 ] && scenario=$work/layer1.json
      "$presenter_check" "$scenario" "$work/$step.png" "$work/$step.log.json" revealed ||
        fail "step $step ($stage, layer ${layer:-of the document}) is not the core's" ;;
  esac
  echo "step $step ($stage${layer:+, layer $layer}): pixels equal the reference"
  press Right
  step=$((step + 1))
done
[ "$predicted" -ge 4 ] || fail "only $predicted steps asked for a prediction"
is "d['presenter_step'] == $((steps - 1))" || fail "Right went past the last step"
echo "ok: $steps steps, $predicted revealed with Right"
kill9
echo PASS
