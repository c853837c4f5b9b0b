#!/bin/sh
# RoPE switched on with a real click in Setup > Positions, under Xvfb: the weights heatmaps (the
# Pipeline's and the Heads panel's) then show the colours the core computes for the file the window
# saves (Ctrl+S), which has "rope", and no longer those of the file without it.
# usage: rope_toggle.sh APP PIXEL_CHECK
set -eu
app=$1
check=$2
. "$(dirname "$0")/isolated_home.sh"
. "$(dirname "$0")/window_driver.sh"
size=1920x1080
doc="$HOME/rope.json"
before="$work/before.json"
# Positions far apart turn the pairs a lot: RoPE visibly changes who attends to whom.
python3 - "$doc" <<'PY'
import json, random, sys
rnd = random.Random(14)
m = lambda r, c: [[round(rnd.uniform(-1.5, 1.5), 2) for _ in range(c)] for _ in range(r)]
json.dump({"format": "attnlab/1", "title": "RoPE toggle", "tokens": ["a", "b", "c", "d", "e"],
           "X": m(5, 4), "W_q": m(4, 4), "W_k": m(4, 4), "W_v": m(4, 4),
           "positions": [0, 3, 6, 9, 12], "scale": 1.0}, open(sys.argv[1], "w"))
PY
cp "$doc" "$before"
layout "$doc" --size $size
rope=$(control "rope")
[ -n "$rope" ] || fail "no RoPE checkbox in the layout dump"
set -- $rope
start "$doc" --size $size --capture-on "$work/cap"
click $((($1 + $3) / 2)) $((($2 + $4) / 2))
press ctrl s; sleep 0.8
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if "rope" in d else 1)' "$doc" ||
  fail "after the click the saved file has no \"rope\""
touch "$work/cap"
wait_for 10 test -f "$work/cap.png.json" || fail "no capture after the click"
sleep 0.5
quit_and_wait
"$check" --shot "$doc" "$work/cap.png" || fail "weights pixels differ from the core with RoPE on"
if "$check" --shot "$before" "$work/cap.png" >/dev/null; then
  fail "the weights pixels still match the scenario without RoPE: the click changed nothing"
fi
echo "PASS: RoPE on by a click; weights pixels follow the core, and differ from RoPE off"
