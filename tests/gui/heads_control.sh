#!/bin/sh
# The Scenario panel's Heads control with real clicks and keys, under Xvfb, on copies of a preset
# whose projections are 4 wide (H must divide 4):
#  1. "+" from 1 head gives 2, then 4 (never the refused 3), then nothing more;
#  2. typing 3 and Enter is refused with one line in the status bar, the document keeps 4 heads;
#  3. on a 16-wide copy with 2 heads, typing 16 and Enter is one edit: Ctrl+Z gives 2 back.
# Each count is read from the file Ctrl+S writes.
# usage: heads_control.sh APP PROBE PRESET.json
. "$(dirname "$0")/gui_test.sh"
probe=$2
preset=$3
size=1280x800
heads_saved() {  # heads_saved FILE: Ctrl+S, then the file's head count
  save "$(basename "$1")" >&2
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("num_heads", 1))' "$1"
}

doc="$HOME/heads.json"
cp "$preset" "$doc"
layout "$doc" --size $size
plus=$(control "heads +"); field=$(control "heads field")
[ -n "$plus" ] && [ -n "$field" ] || fail "no heads controls in the layout dump"
start "$doc" --size $size
click $(centre $plus)
[ "$(heads_saved "$doc")" = 2 ] || fail "+ from 1 head: $(heads_saved "$doc") heads, expected 2"
click $(centre $plus)
[ "$(heads_saved "$doc")" = 4 ] || fail "+ from 2 heads: $(heads_saved "$doc") heads, expected 4"
click $(centre $plus)
[ "$(heads_saved "$doc")" = 4 ] || fail "+ from 4 heads (the last count): $(heads_saved "$doc") heads"
echo "step 1: + gave 1 -> 2 -> 4, then stayed"

# The status bar is the window's last 24 px; refusals are drawn in the error colour.
error_pixels() { probe 0 $(($(echo $size | cut -dx -f2) - 24)) $(echo $size | cut -dx -f1) $(echo $size | cut -dx -f2) 240,100,96,30 | cut -d' ' -f6; }
[ "$(error_pixels)" -lt 10 ] || fail "a refusal shows before anything was refused"
click $(centre $field)
type_text 3
press Return
[ "$(error_pixels)" -ge 10 ] || fail "typed 3: no refusal in the status bar"
[ "$(heads_saved "$doc")" = 4 ] || fail "typed 3: the document has $(heads_saved "$doc") heads, expected 4 kept"
quit_and_wait
echo "step 2: typed 3 refused in the status bar, 4 heads kept"

wide="$HOME/wide.json"
python3 "$(dirname "$0")/random_scenario.py" "$wide" --seed 7 --base "$preset" \
  --matrix 'X=*x16:1' --matrix W_q=16x16:1 --matrix W_k=16x16:1 --matrix W_v=16x16:1 --set num_heads=2
layout "$wide" --size $size
field=$(control "heads field")
start "$wide" --size $size
click $(centre $field)
type_text 16
press Return
[ "$(heads_saved "$wide")" = 16 ] || fail "typed 16: $(heads_saved "$wide") heads"
press ctrl z
[ "$(heads_saved "$wide")" = 2 ] || fail "typed 16, Ctrl+Z: $(heads_saved "$wide") heads, expected 2 (one undo step)"
quit_and_wait
echo "step 3: typed 16 was one edit, Ctrl+Z gave 2 heads back"
echo "PASS"
