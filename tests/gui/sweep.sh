#!/bin/sh
# The Sweep panel with real input, under Xvfb: "Sweep" beside the scale, Play, then Pause twice
# at different moments. Each pause is saved (Ctrl+S) and captured: the file's scale lies strictly
# inside the sweep's range and differs from the pause before, and the weights heatmaps show the
# colours the core computes for the saved file, not those of the pause before (the heatmaps
# morphed with the value). Ctrl+Z then takes the whole sweep back in one step.
# Record GIF then writes every head's weights over the sweep, byte for byte what
# `attnlab-cli export --sweep` writes for the same range.
# usage: sweep.sh APP PIXEL_CHECK CLI
. "$(dirname "$0")/gui_test.sh"
check=$2
cli=$3
size=1920x1080
doc="$HOME/sweep.json"
python3 "$(dirname "$0")/random_scenario.py" "$doc" --seed 15 --title sweep --tokens a,b,c,d,e \
  --matrix X=5x4:2 --matrix W_q=4x4:2 --matrix W_k=4x4:2 --matrix W_v=4x4:2 --set num_heads=2
scale_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("scale", "inv_sqrt_dk"))' "$1"; }
shot=0
# pause_and_check NAME: pause, save, capture, check the file's scale and the pixels against it.
pause_and_check() {
  click $(centre $(control "sweep play"))
  save sweep.json
  scale=$(scale_of "$doc")
  # d_k = 2 (4 wide, 2 heads): the range is 1/sqrt(2) / 4 .. 4 / sqrt(2), the ends excluded.
  python3 -c "import sys; s=float(sys.argv[1]); sys.exit(0 if 0.1768 < s < 2.8284 else 1)" "$scale" ||
    fail "$1: the saved scale $scale is not inside the sweep's range"
  [ "$scale" != "$(scale_of "$work/before.json")" ] || fail "$1: the scale did not move ($scale)"
  shot=$((shot + 1))
  capture "shot$shot"
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
capture_layout sweep_panel
[ -n "$(control "sweep play")" ] || fail "the Sweep panel did not come to the front"
# The sweep plays for a while between the clicks (its clock is the wall clock): not waits for a state.
click $(centre $(control "sweep play"))
sleep 1.2
pause_and_check "first pause"
# The entropy plot names its lines: a legend entry per head, inside the panel.
/usr/bin/python3 - "$work/shot1.png.json" <<'PY' || fail "the entropy plot's head legend"
import json, sys
d = json.load(open(sys.argv[1]))
heads = len([h for h in d["heatmaps"] if h["id"].startswith("overview/")])
boxes = {w["name"]: w["box"] for w in d["window_arrangement"]["windows"]}
legend = [c for c in d["controls"] if c["id"].startswith("sweep legend head ")]
assert heads > 1 and [c["id"][13:] for c in legend] == ["head %d" % h for h in range(heads)], legend
for c in legend:
    box = boxes[c["window"].split("/")[0]]
    assert box[0] <= c["rect"][0] and c["rect"][2] <= box[0] + box[2], (c, box)
print("entropy plot legend: %d heads" % heads)
PY
click $(centre $(control "sweep play"))  # Resume
sleep 0.9
pause_and_check "second pause"
press ctrl z
save sweep.json
[ "$(scale_of "$doc")" = inv_sqrt_dk ] || fail "Ctrl+Z did not take the whole sweep back: scale $(scale_of "$doc")"
# Record GIF: every head's weights over the sweep, as `attnlab-cli export --sweep` writes them.
click $(centre $(control "sweep record"))
gif="$XDG_PICTURES_DIR/attnlab-sweep-scale-head0_weights.gif"
wait_for 60 test -f "$XDG_PICTURES_DIR/attnlab-sweep-scale-head1_weights.gif" || fail "Record GIF wrote no GIF of head 1"
"$cli" export "$doc" --sweep "scale=$(python3 -c 'print(repr(2 ** -0.5 / 4))'):$(python3 -c 'print(repr(2 ** -0.5 * 4))'):41" \
  --what weights --format gif --out "$work/cli" >/dev/null || fail "attnlab-cli export --sweep"
cmp -s "$gif" "$work/cli/head0_weights.gif" || fail "the window's GIF differs from attnlab-cli export --sweep's"
/usr/bin/python3 -c 'import sys; from PIL import Image; g=Image.open(sys.argv[1]); sys.exit(0 if g.n_frames == 41 else 1)' "$gif" ||
  fail "the GIF does not have 41 frames (4 s at 10 frames a second)"
echo "Record GIF: 41 frames a head, byte for byte the CLI's"
quit_and_wait
echo "PASS: a sweep started with a click morphs the weights as the core predicts; one undo step; recorded as the CLI records it"
