#!/bin/sh
# Token labels stay put while an editor's cells scroll (issue 38, point 7): the ALiBi preset at
# 1280x800, Inputs > Tokens (a real click on the Inputs tab), Shift+wheel over X.
# The grid scrolls sideways; the strip left of the grid where X's row labels were drawn before the
# scroll shows the same pixels after it (the tokens' names, not the cells that scrolled there), and
# so do X's title above the grid and its Copy/Paste row under it. Then a real double-click on a
# row label: the hidden cell under it does not open its text field (the strip keeps its pixels).
# usage: sticky_labels.sh APP PRESET.json
. "$(dirname "$0")/gui_test.sh"
preset=$2
start "$preset" --size 1280x800 --capture-on "$work/cap"
capture_layout start
click $(centre $(control "panel tab Inputs"))
set -- $(control "panel tab Inputs")
move "$1" $(($4 + 150))
scroll 4  # X's grid up into view
move 1270 790
capture before
set -- $(control "grid:X")
[ -n "${1:-}" ] || fail "no grid of X in the Inputs panel"
move $(($1 + 20)) $(($2 + 10))  # its first cell: the window shows the grid's top left
hold shift
scroll 3
release shift
move 1270 790
capture after
check_still() {  # check_still SHOT: X's row labels, title and Paste row as in "before"
/usr/bin/python3 - "$work/before.png" "$work/$1.png" <<'PY' || fail "X's labels, title or Paste row moved ($1)"
import json, sys
from PIL import Image, ImageChops
before, after = sys.argv[1:]
def layout(shot):
    d = json.load(open(shot + ".json"))
    rect = lambda id: next(c["rect"] for c in d["controls"] if c["id"] == id)
    box = next(w["box"] for w in d["window_arrangement"]["windows"] if "Inputs" in w["panels"])
    return rect("grid:X"), rect("paste X"), box, d["window_arrangement"]["line_height"]
(g0, p0, box, lh), (g1, p1, _, _) = layout(before), layout(after)
print("X's grid before %s, after %s; Paste before %s, after %s; Inputs window %s" % (g0, g1, p0, p1, box))
assert g1[0] < g0[0] - 10, "Shift+wheel did not scroll X sideways"
left, right = int(box[0]) + 2, int(box[0] + box[2]) - 2 * lh  # short of the vertical scroll bar
bottom = min(g0[3], box[1] + box[3] - 2 * lh)  # above the scroll bar
strips = {"row labels": (left, int(g0[1]), int(g0[0]) - 1, int(bottom)),  # left of the grid, its rows in view
          "title": (left, int(g0[1] - 3.3 * lh), right, int(g0[1] - 1.5 * lh)),  # the two lines above the column labels
          "Paste row": (left, int(p0[1]), int(p0[2]) + 2, int(p0[3]))}
bad = []
for name, strip in strips.items():
    assert strip[2] - strip[0] > 10 and strip[3] - strip[1] > 5, "no room for %s: %s" % (name, strip)
    diff = ImageChops.difference(Image.open(before).convert("RGB").crop(strip),
                                 Image.open(after).convert("RGB").crop(strip)).getbbox()
    print("%s %s: changed %s" % (name, strip, diff))
    bad += [name] if diff else []
assert not bad, "moved: %s" % bad
PY
}
check_still after
set -- $(control "row labels:X")
[ -n "${1:-}" ] || fail "no row labels of X"
double_click $(($1 + 8)) $(($2 + 8))  # on the first token's name, over a cell scrolled under it
move 1270 790
capture clicked
check_still clicked
quit_and_wait
echo "PASS: X's row labels, title and Paste row stay put while Shift+wheel scrolls its cells; a double-click on a label opens no hidden cell"
