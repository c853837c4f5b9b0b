# Sourced by the window tests that change one thing per step with real input (positions_controls.sh,
# logits_controls.sh), after gui_test.sh; they set $doc (the scenario the window saves to) and
# $check (attnlab_gui_pixel_check).

has_key() {  # has_key EXPRESSION: true when the saved file satisfies it (d is the file's JSON)
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$doc" "$1"
}
shot=0
# step NAME KEY_EXPRESSION: save, check the file, capture, check the pixels against it (and not
# against the file before), then read the controls' new places from the capture.
step() {
  save "$(basename "$doc")"
  has_key "$2" || fail "$1: the saved file does not satisfy $2"
  shot=$((shot + 1))
  capture "shot$shot"
  "$check" --shot "$doc" "$work/shot$shot.png" || fail "$1: weights pixels differ from the core"
  if "$check" --shot "$work/before.json" "$work/shot$shot.png" >/dev/null; then
    fail "$1: the weights pixels still match the file before: the step changed nothing"
  fi
  cp "$doc" "$work/before.json"  # (capture made shot$shot's dump the layout: where the controls are now)
  echo "step $shot ($1): the file has it, the pixels follow the core"
}
