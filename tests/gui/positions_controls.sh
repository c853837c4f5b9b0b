#!/bin/sh
# Setup > Positions and the Mask's window with real input, under Xvfb. Each step changes one thing
# with a click or typed keys, saves (Ctrl+S) and captures the window: the file has the new key, the
# weights heatmaps (the Pipeline's and the Heads panel's) show the colours the core computes for
# the saved file, and no longer those of the file before the step (the step changed the picture).
#  1. a click on RoPE;  2. a click on ALiBi;  3. positions typed: "0 5 10 15 20", Enter;
#  4. a click on the Mask's Window (3 by default).
# usage: positions_controls.sh APP PIXEL_CHECK
. "$(dirname "$0")/gui_test.sh"
check=$2
size=1920x1080
doc="$HOME/positions.json"
# Positions far apart turn the pairs a lot (RoPE) and cost much (ALiBi: head 1 loses 1/4 a position).
python3 "$(dirname "$0")/random_scenario.py" "$doc" --seed 14 --title positions --tokens a,b,c,d,e \
  --matrix X=5x4:1.5 --matrix W_q=4x4:1.5 --matrix W_k=4x4:1.5 --matrix W_v=4x4:1.5 \
  --set num_heads=2 --set 'positions=[0, 3, 6, 9, 12]' --set scale=1.0
. "$(dirname "$0")/saved_steps.sh"
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
type_text "0 5 10 15 20"
press Return
step "positions typed" 'd.get("positions") == [0, 5, 10, 15, 20]'

click $(centre $(control "mask window"))
step "window clicked on" 'isinstance(d.get("mask"), dict) and d["mask"].get("window") == 3'
quit_and_wait
echo "PASS: RoPE, ALiBi, typed positions and the window, each by real input, each followed by the pixels"
