#!/bin/sh
# The Tiles panel against `attnlab-cli flash`, under Xvfb with real keys: at the first tile, after
# five Right presses (tile (1, 1), where m rises and alpha rescales) and after one Left (the mouse over the panel), the accent outline frames the
# CLI's tile of that step in loop order, and the m, l, alpha and O heatmaps have the colours of the
# CLI's numbers after it (gui_tiles_check). Then a click on Bc's + re-runs the loop in 2 x 3 blocks.
# usage: tiles.sh APP CHECK CLI PRESET.json
. "$(dirname "$0")/gui_test.sh"
check=$2
cli=$3
doc="$HOME/tiles.json"
cp "$4" "$doc"
size=1920x1080
"$cli" flash "$doc" --block 2x2 > "$work/run22.json" || fail "attnlab-cli flash --block 2x2"
"$cli" flash "$doc" --block 2x3 > "$work/run23.json" || fail "attnlab-cli flash --block 2x3"
start "$doc" --size $size --show-panel Tiles --capture-on "$work/cap"
capture step0
"$check" "$work/step0.png" "$work/run22.json" 0 || fail "step 0"
# The keys reach the panel while the mouse is over it: over its Play button.
move $(centre $(control tiles_play))
for i in 1 2 3 4 5; do press Right; done
capture step5
"$check" "$work/step5.png" "$work/run22.json" 5 || fail "five Right presses: step 5, tile (1, 1), a rescale"
press Left
capture step4
"$check" "$work/step4.png" "$work/run22.json" 4 || fail "then Left: step 4"
# Bc's "+" (the right end of its field): the loop runs again in blocks of 2 x 3, the step kept.
set -- $(control tiles_bc)
click $(($3 - 6)) $((($2 + $4) / 2))
move $(centre $(control tiles_play))
capture blocks23
"$check" "$work/blocks23.png" "$work/run23.json" 4 || fail "Bc + : step 4 of the 2x3 loop"
quit_and_wait
echo "PASS: the outline and the block's m, l, alpha and O follow the CLI, step by step"
