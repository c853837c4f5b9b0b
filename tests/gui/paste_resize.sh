#!/bin/sh
# A paste that has another number of tokens asks first (issue 26, "paste can resize"), under Xvfb:
# a 5x4 matrix copied to the X clipboard (as from NumPy) and Ctrl+V over the 3x4 X of Vaswani Q2
# asks "Paste a 5x4 X into a 3x4 X: resize the tokens to 5?"; Enter resizes and pastes: the saved
# file has 5 tokens and exactly the pasted X. One Ctrl+Z brings back the 3 tokens and their X.
# usage: paste_resize.sh APP PRESET
. "$(dirname "$0")/gui_test.sh"
doc="$HOME/paste.json"
cp "$2" "$doc"
cp "$2" "$work/before.json"
start "$doc" --size 1920x1080 --capture-on "$work/cap"
capture_layout first
click $(centre $(control "panel tab Inputs"))
capture_layout inputs
[ -z "$(control "inputs tab X")" ] || { click $(centre $(control "inputs tab X")); capture_layout x_tab; }
grid=$(control "grid:X")
[ -n "$grid" ] || fail "no editor of X on screen"
printf '[[1, 2, 3, 4],\n [5, 6, 7, 8],\n [9, 10, 11, 12],\n [13, 14, 15, 16],\n [17, 18, 19, 20]]\n' |
  xclip -selection clipboard -i
move $(centre $grid)
press ctrl v
until_seen "the question before resizing" popup_open
[ "$(seen_popup)" = "Resize the tokens?" ] || fail "Ctrl+V opened $(seen_popup), not the resize question"
frames 2
press Return
save paste.json
python3 - "$doc" <<'PY' || fail "the saved file does not have the 5 pasted tokens"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["X"] == [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16], [17, 18, 19, 20]], d["X"]
assert len(d["tokens"]) == 5 and d["tokens"][3:] == ["new", "new2"], d["tokens"]
PY
press ctrl z
save paste.json
python3 - "$doc" "$work/before.json" <<'PY' || fail "one Ctrl+Z did not bring back the 3 tokens and their X"
import json, sys
d, before = (json.load(open(f)) for f in sys.argv[1:])
assert d["X"] == before["X"] and d["tokens"] == before["tokens"], (d["X"], d["tokens"])
PY
quit_and_wait
echo "PASS: a 5x4 paste into a 3x4 X asked, resized the tokens and pasted in one undoable edit"
