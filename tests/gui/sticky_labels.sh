#!/bin/sh
# Token labels stay put while an editor's cells scroll (issue 38, point 7): the ALiBi preset at
# 1280x800, Inputs > Tokens (a real click on the Inputs tab), Shift+wheel over X.
# The grid scrolls sideways; the strip left of the grid where X's row labels were drawn before the
# scroll shows the same pixels after it (the tokens' names, not the cells that scrolled there), and
# so do X's title above the grid and its Copy/Paste row under it. Then a real double-click on a
# row label: the hidden cell under it does not open its text field (the strip keeps its pixels).
# Then a 500-token scenario, whose Pipeline heatmaps (2 pixels a cell) are wider than the panel:
# Shift+wheel over the scores map keeps its title and row labels where they were, and hovering a
# shifted row label shows its token's tooltip.
# usage: sticky_labels.sh APP PRESET.json MAKE_SCENARIO
. "$(dirname "$0")/gui_test.sh"
preset=$2 make_scenario=$3
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

"$make_scenario" 500x8x2 "$work/wide.json" >/dev/null || fail "no 500-token scenario"
start "$work/wide.json" --size 1280x800 --capture-on "$work/cap"
move 600 400
scroll 26  # the Pipeline down to the scores map
move 600 300
capture map_before
hold shift
scroll 5
release shift
move 1270 790
capture map_after
/usr/bin/python3 - "$work/map_before.png" "$work/map_after.png" <<'PY' || fail "the scores map's title or row labels moved"
import json, sys
from PIL import Image, ImageChops
before, after = sys.argv[1:]
def scores(shot):
    return next(h for h in json.load(open(shot + ".json"))["heatmaps"] if h["id"] == "scores/0")
h0, h1 = scores(before), scores(after)
print("scores before x0 %s, after %s; clip %s" % (h0["x0"], h1["x0"], h0["clip"]))
assert h1["x0"] < h0["x0"] - 10, "Shift+wheel did not scroll the Pipeline sideways"
left, top, _, bottom = [int(v) for v in h0["clip"]]
x0, y0 = int(h0["x0"]), int(h0["y0"])
shots = [Image.open(s).convert("L") for s in (before, after)]
# The title's line: the white text rows at the map's left, between the section header and the grid.
bright = [y for y in range(max(top, y0 - 100), y0 - 40)
          if any(shots[0].getpixel((x, y)) > 200 for x in range(left + 2, left + 60))]
assert bright, "no title above the scores map"
strips = {"title": (left, min(bright), left + 200, max(bright) + 1),
          "row labels": (left, y0, x0 - 1, bottom)}
bad = []
for name, strip in strips.items():
    diff = ImageChops.difference(shots[0].crop(strip), shots[1].crop(strip)).getbbox()
    print("%s %s: changed %s" % (name, strip, diff))
    bad += [name] if diff else []
assert not bad, "moved: %s" % bad
PY
set -- $(python3 -c "import json; h = next(h for h in json.load(open('$work/map_after.png.json'))['heatmaps'] if h['id'] == 'scores/0'); print(int(h['clip'][0]) + 30, int(h['y0']) + 17)")
move "$1" "$2"  # on the shifted name of token 8
capture map_label
/usr/bin/python3 - "$work/map_after.png" "$work/map_label.png" "$1" "$2" <<'PY' || fail "no tooltip over a shifted row label"
import sys
from PIL import Image, ImageChops
after, label, x, y = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
around = (x, y, x + 200, y + 60)  # where a tooltip opens, right of and under the mouse
diff = ImageChops.difference(Image.open(after).convert("RGB").crop(around),
                             Image.open(label).convert("RGB").crop(around)).getbbox()
print("over the shifted label at %d,%d: %s changed %s" % (x, y, around, diff))
assert diff and diff[2] - diff[0] > 40, "no tooltip naming the token"
PY
quit_and_wait
echo "PASS: X's row labels, title and Paste row stay put while Shift+wheel scrolls its cells; a double-click on a label opens no hidden cell; the scores map's title and row labels stay put too, and name their token when hovered"
