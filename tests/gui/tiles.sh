#!/bin/sh
# The Tiles panel against `attnlab-cli flash`, under Xvfb with real keys: at the first tile, after
# five Right presses (tile (1, 1), where m rises and alpha rescales) and after one Left (the mouse over the panel), the accent outline frames the
# CLI's tile of that step in loop order, and the m, l, alpha and O heatmaps have the colours of the
# CLI's numbers after it (gui_tiles_check); every figure at one cell, whole inside the panel. Then a click on Bc's + re-runs the loop in 2 x 3 blocks,
# and a typed X cell re-runs it on the edited file (the panel keeps no stale run).
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
# The figures fill the panel: at 1920x1080 the state and the finished output beside the scores, one
# cell for all (no figure left at two thirds of the others' size with half the panel empty beside
# it), every grid whole inside the panel, its numbers printed, m, l, alpha and O at the same decimals.
python3 - "$work/step0.png.json" <<'PY' || fail "the Tiles figures at one cell, inside the panel"
import json, sys
maps = [h for h in json.load(open(sys.argv[1]))["heatmaps"] if h["id"].startswith("tiles_")]
cells = {h["id"]: h["cell"] for h in maps}
print("Tiles cells: %s" % cells)
assert len(maps) == 7 and min(cells.values()) >= 0.85 * max(cells.values()), "figures of unequal size"
for h in maps:
    right, bottom = h["x0"] + h["cell"] * h["cols"], h["y0"] + h["cell"] * h["rows"]
    assert h["values_drawn"] and right <= h["clip"][2] and bottom <= h["clip"][3], "%s cut or without numbers" % h["id"]
# One number format: the first tile's alpha (all 0: nothing to rescale) prints "0.00", not "0", beside m, l and O.
state = {h["id"]: h["decimals"] for h in maps if h["id"] in ("tiles_m", "tiles_l", "tiles_alpha", "tiles_O")}
print("decimals of the block's state: %s" % state)
assert len(set(state.values())) == 1, "the state's cells printed at different decimals"
PY
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
# An edit re-runs the loop: X[3][0] (token 'on': its query, key and value) typed into the Inputs;
# the same step then has the CLI's numbers for the saved file, which differ from the old run's.
click $(centre $(control "panel tab Inputs"))
capture_layout inputs
click $(centre $(control "inputs tab Tokens"))
capture_layout x
type_cell X 3 0 2.5
save tiles.json
"$cli" flash "$doc" --block 2x3 > "$work/edited23.json" || fail "attnlab-cli flash of the edited file"
python3 -c 'import json,sys; a, b = (json.load(open(f))["tiles"][4] for f in sys.argv[1:]); sys.exit(a == b)' \
  "$work/run23.json" "$work/edited23.json" || fail "the edit did not change tile 4: the check could not tell"
move $(centre $(control tiles_play))
capture edited
"$check" "$work/edited.png" "$work/edited23.json" 4 || fail "after the edit: step 4 of the edited file's 2x3 loop"
! "$check" "$work/blocks23.png" "$work/edited23.json" 4 >/dev/null || fail "the old run's pixels pass for the edited file's numbers"
quit_and_wait
echo "PASS: the outline and the block's m, l, alpha and O follow the CLI, step by step and after an edit"
