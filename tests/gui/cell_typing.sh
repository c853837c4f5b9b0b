#!/bin/sh
# Typing into a cell of the Inputs panel's matrix editor with real input, under Xvfb, on a copy of
# a preset. The pixels of the cell are read back from the X server:
#  1. a double-click on X[0][0] puts a text field over the cell (its pixels change, the mouse
#     moved away so no tooltip covers it);
#  2. typing "7" shows in the field before Enter (the field's pixels change again); Escape
#     cancels: the cell is drawn exactly as before;
#  3. double-click, "0.5", Tab applies it and moves the field to X[0][1]; "2", Enter applies that;
#     Ctrl+S writes X[0][0] = 0.5 and X[0][1] = 2 (never the 7 that was cancelled).
# usage: cell_typing.sh APP PROBE PRESET.json
. "$(dirname "$0")/gui_test.sh"
probe=$2
preset=$3
doc="$HOME/typing.json"
cp "$preset" "$doc"
size=1280x800
layout "$doc" --size $size --show-panel Inputs
set -- $(control grid:X)
[ $# -eq 6 ] || fail "no grid:X in the layout dump"
cell_w=$((($3 - $1) / $6)); cell_h=$((($4 - $2) / $5))
# cell C of row 0, inset by 3 px (the outline of a scrubbed cell, rounding)
cell() { echo $(($1 + cell_w * $7 + 3)) $(($2 + 3)) $(($1 + cell_w * ($7 + 1) - 3)) $(($2 + cell_h - 3)); }
c0=$(cell "$@" 0); c1=$(cell "$@" 1)
centre() { set -- $1; echo $((($1 + $3) / 2)) $((($2 + $4) / 2)); }
away() { move 700 40; }                           # the formula bar: no tooltip over the grid
field() { probe $1 | cut -d' ' -f1-3; }            # the cell's dominant colour
picture() { probe $1 | cut -d' ' -f5; }            # a hash of its pixels

start "$doc" --size $size --show-panel Inputs
away
fill0=$(field "$c0"); fill1=$(field "$c1"); before=$(picture "$c0")
double_click $(centre "$c0"); away
[ "$(field "$c0")" != "$fill0" ] || fail "double-click: X[0][0] still shows its cell (rgb $fill0), no text field"
selected=$(picture "$c0")
type_text 7
[ "$(picture "$c0")" != "$selected" ] || fail "typed 7: nothing changed on screen before Enter"
[ "$(field "$c0")" != "$fill0" ] || fail "typed 7: the field vanished"
echo "step 1-2: the field covers X[0][0] (rgb $(field "$c0") over $fill0), typed text shows"
press Escape; away
[ "$(picture "$c0")" = "$before" ] || fail "Escape: X[0][0] is not drawn as before"
double_click $(centre "$c0"); away
type_text 0.5
press Tab; away
[ "$(field "$c1")" != "$fill1" ] || fail "Tab: no field over X[0][1] (rgb $fill1)"
type_text 2
press Return
echo "step 3: Escape restored the cell, Tab moved the field to X[0][1]"
save typing.json
got=$(python3 -c 'import json,sys; x=json.load(open(sys.argv[1]))["X"][0]; print(x[0], x[1])' "$doc")
[ "$got" = "0.5 2.0" ] || fail "saved X[0][0:2] = $got, expected 0.5 2.0"
quit_and_wait
echo "saved X[0][0] = 0.5, X[0][1] = 2"
echo "PASS"
