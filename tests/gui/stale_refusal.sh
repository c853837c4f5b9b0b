#!/bin/sh
# A refusal does not outlive the next successful edit, with real input under Xvfb: a 2x3 matrix
# pasted over X (3x4) with Ctrl+V is refused, in the error colour under X and in the status bar;
# a click on the Mask grid (a successful edit of another control) clears both.
# usage: stale_refusal.sh APP PROBE PRESET.json
. "$(dirname "$0")/gui_test.sh"
probe=$2
preset=$3
size=1280x800
width=${size%x*}; height=${size#*x}
doc="$HOME/refusal.json"
cp "$preset" "$doc"
layout "$doc" --size $size --show-panel Inputs
set -- $(control grid:X)
[ $# -eq 6 ] || fail "no grid:X in the layout dump"
grid_x=$((($1 + $3) / 2)); grid_y=$((($2 + $4) / 2))
below_x="0 $4 $3 $(($4 + 60))"   # where the Inputs panel writes X's refusal
mask=$(python3 - "$work/layout.png.json" <<'PY'
import json, sys
for h in json.load(open(sys.argv[1]))["heatmaps"]:
    if h["id"] == "mask":
        print(int(h["x0"] + h["cell"] * 2.5), int(h["y0"] + h["cell"] * 0.5)); break
PY
)
[ -n "$mask" ] || fail "no Mask grid in the layout dump"
errors() { probe "$@" 240,100,96,30 | cut -d' ' -f6; }   # pixels in the error colour
status_errors() { errors 0 $((height - 24)) $width $height; }

start "$doc" --size $size --show-panel Inputs
printf '1 2 3\n4 5 6\n' | xclip -selection clipboard -i >/dev/null 2>&1
move $grid_x $grid_y
press ctrl v
move 700 40
[ "$(status_errors)" -ge 10 ] || fail "pasting 2x3 over X: no refusal in the status bar"
[ "$(errors $below_x)" -ge 10 ] || fail "pasting 2x3 over X: no refusal under X"
echo "step 1: the paste was refused under X and in the status bar"
click $mask
move 700 40
[ "$(status_errors)" -lt 10 ] || fail "after a successful edit (Mask click), the status bar still shows the refusal"
[ "$(errors $below_x)" -lt 10 ] || fail "after a successful edit (Mask click), X still shows the refusal"
save refusal.json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if "mask" in d else 1)' "$doc" ||
  fail "the Mask click was not an edit"
quit_and_wait
echo "step 2: a Mask edit cleared both"
echo "PASS"
