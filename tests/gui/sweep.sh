#!/bin/sh
# The Sweep panel with real input, under Xvfb: "Sweep" beside the scale, Play, then Pause twice
# at different moments. Each pause is saved (Ctrl+S) and captured: the file's scale lies strictly
# inside the sweep's range and differs from the pause before, and the weights heatmaps show the
# colours the core computes for the saved file, not those of the pause before (the heatmaps
# morphed with the value). Ctrl+Z then takes the whole sweep back in one step.
# Record GIF then writes every head's weights over the sweep, byte for byte what
# `attnlab-cli export --sweep` writes for the same range.
# usage: sweep.sh APP PIXEL_CHECK CLI
set -eu
app=$1
check=$2
cli=$3
. "$(dirname "$0")/isolated_home.sh"
. "$(dirname "$0")/window_driver.sh"
size=1920x1080
doc="$HOME/sweep.json"
python3 - "$doc" <<'PY'
import json, random, sys
rnd = random.Random(15)
m = lambda r, c: [[round(rnd.uniform(-2, 2), 2) for _ in range(c)] for _ in range(r)]
json.dump({"format": "attnlab/1", "title": "sweep", "tokens": ["a", "b", "c", "d", "e"],
           "X": m(5, 4), "W_q": m(4, 4), "W_k": m(4, 4), "W_v": m(4, 4), "num_heads": 2},
          open(sys.argv[1], "w"))
PY
scale_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("scale", "inv_sqrt_dk"))' "$1"; }
shot=0
# pause_and_check NAME: pause, save, capture, check the file's scale and the pixels against it.
pause_and_check() {
  click $(centre $(control "sweep play"))
  press ctrl s; sleep 0.8
  scale=$(scale_of "$doc")
  # d_k = 2 (4 wide, 2 heads): the range is 1/sqrt(2) / 4 .. 4 / sqrt(2), the ends excluded.
  python3 -c "import sys; s=float(sys.argv[1]); sys.exit(0 if 0.1768 < s < 2.8284 else 1)" "$scale" ||
    fail "$1: the saved scale $scale is not inside the sweep's range"
  [ "$scale" != "$(scale_of "$work/before.json")" ] || fail "$1: the scale did not move ($scale)"
  shot=$((shot + 1))
  rm -f "$work/cap.png" "$work/cap.png.json"
  touch "$work/cap"
  wait_for 10 test -f "$work/cap.png.json" || fail "$1: no capture"
  sleep 0.3
  cp "$work/cap.png" "$work/shot$shot.png"; cp "$work/cap.png.json" "$work/shot$shot.png.json"
  "$check" --shot "$doc" "$work/shot$shot.png" || fail "$1: weights pixels differ from the core"
  if "$check" --shot "$work/before.json" "$work/shot$shot.png" >/dev/null; then
    fail "$1: the weights pixels still match the pause before: the sweep changed nothing"
  fi
  cp "$doc" "$work/before.json"
  echo "pause $shot ($1): scale = $scale, the pixels follow the core"
}
cp "$doc" "$work/before.json"
layout "$doc" --size $size
[ -n "$(control "sweep scale")" ] || fail "no Sweep button beside the scale in the layout dump"
start "$doc" --size $size --capture-on "$work/cap"
click $(centre $(control "sweep scale"))
# The Sweep tab is in front now: read its controls' places from a capture.
touch "$work/cap"; wait_for 10 test -f "$work/cap.png.json" || fail "no capture of the Sweep panel"
sleep 0.3; cp "$work/cap.png.json" "$work/layout.png.json"
[ -n "$(control "sweep play")" ] || fail "the Sweep panel did not come to the front"
click $(centre $(control "sweep play"))
sleep 1.2
pause_and_check "first pause"
click $(centre $(control "sweep play"))  # Resume
sleep 0.9
pause_and_check "second pause"
press ctrl z
press ctrl s; sleep 0.8
[ "$(scale_of "$doc")" = inv_sqrt_dk ] || fail "Ctrl+Z did not take the whole sweep back: scale $(scale_of "$doc")"
# Record GIF: every head's weights over the sweep, as `attnlab-cli export --sweep` writes them.
click $(centre $(control "sweep record"))
gif="$XDG_PICTURES_DIR/attnlab-sweep-scale-head1_weights.gif"
wait_for 60 test -f "$XDG_PICTURES_DIR/attnlab-sweep-scale-head2_weights.gif" || fail "Record GIF wrote no GIF of head 2"
"$cli" export "$doc" --sweep "scale=$(python3 -c 'print(repr(2 ** -0.5 / 4))'):$(python3 -c 'print(repr(2 ** -0.5 * 4))'):41" \
  --what weights --format gif --out "$work/cli" >/dev/null || fail "attnlab-cli export --sweep"
cmp -s "$gif" "$work/cli/head1_weights.gif" || fail "the window's GIF differs from attnlab-cli export --sweep's"
/usr/bin/python3 -c 'import sys; from PIL import Image; g=Image.open(sys.argv[1]); sys.exit(0 if g.n_frames == 41 else 1)' "$gif" ||
  fail "the GIF does not have 41 frames (4 s at 10 frames a second)"
echo "Record GIF: 41 frames a head, byte for byte the CLI's"
quit_and_wait
echo "PASS: a sweep started with a click morphs the weights as the core predicts; one undo step; recorded as the CLI records it"
