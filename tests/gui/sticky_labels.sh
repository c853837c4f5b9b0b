#!/bin/sh
# Token labels stay put while an editor's cells scroll (issue 38, point 7): the ALiBi preset at
# 1280x800, Inputs > Tokens (a real click on the Inputs tab), Shift+wheel over X.
# The grid scrolls sideways; the strip left of the grid where X's row labels were drawn before the
# scroll shows the same pixels after it (the tokens' names, not the cells that scrolled there).
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
/usr/bin/python3 - "$work/before.png" "$work/after.png" <<'PY' || fail "X's row labels did not stay put"
import json, sys
from PIL import Image, ImageChops
before, after = sys.argv[1:]
def grid(shot):
    d = json.load(open(shot + ".json"))
    c = next(c for c in d["controls"] if c["id"] == "grid:X")
    box = next(w["box"] for w in d["window_arrangement"]["windows"] if "Inputs" in w["panels"])
    return c["rect"], box
(g0, box), (g1, _) = grid(before), grid(after)
print("X's grid before %s, after %s; Inputs window %s" % (g0, g1, box))
assert g1[0] < g0[0] - 10, "Shift+wheel did not scroll X sideways"
bottom = min(g0[3], box[1] + box[3] - 2 * json.load(open(before + ".json"))["window_arrangement"]["line_height"])  # above the scroll bar
labels = (int(box[0]) + 2, int(g0[1]), int(g0[0]) - 1, int(bottom))  # left of the grid, its rows in view
assert labels[2] - labels[0] > 10, "no room for row labels: %s" % (labels,)
diff = ImageChops.difference(Image.open(before).convert("RGB").crop(labels),
                             Image.open(after).convert("RGB").crop(labels)).getbbox()
print("row labels %s: changed %s" % (labels, diff))
assert diff is None
PY
quit_and_wait
echo "PASS: X's row labels stay put while Shift+wheel scrolls its cells"
