#!/bin/sh
# Setup > Positions and the Mask's window with real input, under Xvfb. Each step changes one thing
# with a click or typed keys, saves (Ctrl+S) and captures the window: the file has the new key, the
# weights heatmaps (the Pipeline's and the Heads panel's) show the colours the core computes for
# the saved file, and no longer those of the file before the step (the step changed the picture).
#  1. a click on RoPE;  2. a click on ALiBi;  3. positions typed: "0 5 10 15 20", Enter;
#  4. a click on the Mask's Window (3 by default).
# usage: positions_controls.sh APP PIXEL_CHECK
set -eu
app=$1
check=$2
. "$(dirname "$0")/isolated_home.sh"
. "$(dirname "$0")/window_driver.sh"
size=1920x1080
doc="$HOME/positions.json"
python3 - "$doc" <<'PY'
import json, random, sys
rnd = random.Random(14)
m = lambda r, c: [[round(rnd.uniform(-1.5, 1.5), 2) for _ in range(c)] for _ in range(r)]
# Positions far apart turn the pairs a lot (RoPE) and cost much (ALiBi: head 1 loses 1/4 a position).
json.dump({"format": "attnlab/1", "title": "positions", "tokens": ["a", "b", "c", "d", "e"],
           "X": m(5, 4), "W_q": m(4, 4), "W_k": m(4, 4), "W_v": m(4, 4),
           "num_heads": 2, "positions": [0, 3, 6, 9, 12], "scale": 1.0}, open(sys.argv[1], "w"))
PY
has_key() {  # has_key EXPRESSION: true when the saved file satisfies it (d is the file's JSON)
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$doc" "$1"
}
shot=0
# step NAME KEY_EXPRESSION: save, check the file, capture, check the pixels against it (and not
# against the file before), then read the controls' new places from the capture.
step() {
  press ctrl s; sleep 0.8
  has_key "$2" || fail "$1: the saved file does not satisfy $2"
  shot=$((shot + 1))
  rm -f "$work/cap.png" "$work/cap.png.json"
  touch "$work/cap"
  wait_for 10 test -f "$work/cap.png.json" || fail "$1: no capture"
  sleep 0.3
  cp "$work/cap.png" "$work/shot$shot.png"; cp "$work/cap.png.json" "$work/shot$shot.png.json"
  "$check" --shot "$doc" "$work/shot$shot.png" || fail "$1: weights pixels differ from the core"
  if "$check" --shot "$work/before.json" "$work/shot$shot.png" >/dev/null; then
    fail "$1: the weights pixels still match the file before: the step changed nothing"
  fi
  cp "$doc" "$work/before.json"
  cp "$work/shot$shot.png.json" "$work/layout.png.json"  # where the controls are now
  echo "step $shot ($1): the file has it, the pixels follow the core"
}
cp "$doc" "$work/before.json"
layout "$doc" --size $size
[ -n "$(control rope)" ] || fail "no RoPE checkbox in the layout dump"
start "$doc" --size $size --capture-on "$work/cap"

click $(centre $(control rope))
step "RoPE clicked on" '"rope" in d'

click $(centre $(control alibi))
step "ALiBi clicked on" 'd.get("alibi") is True'

click $(centre $(control positions))
press ctrl a
xdotool type --delay 60 "0 5 10 15 20"; sleep 0.3
press Return
step "positions typed" 'd.get("positions") == [0, 5, 10, 15, 20]'

click $(centre $(control "mask window"))
step "window clicked on" 'isinstance(d.get("mask"), dict) and d["mask"].get("window") == 3'
quit_and_wait
echo "PASS: RoPE, ALiBi, typed positions and the window, each by real input, each followed by the pixels"
