#!/bin/sh
# The Plane panel under Xvfb, with real input. (1) The preset "dot products in the plane" (copied
# to $HOME, so it is not a preset) with the Plane tab in front: a press on the point of token
# 'west', a drag in steps, a release; Ctrl+S. The saved X moved that token by the drag's pixels
# over the plot's pixels per unit (read from the "plane unit" mark), and no other; the point's mark
# moved with the mouse; the weights heatmap pixels follow the core for the saved file and no longer
# match the file before. Ctrl+Z once undoes the whole drag. (2) A d_k > 2 preset draws the plot
# (query and key colours inside it) with the principal axes' shares written above it.
# (3) Hovering a query drops every key's shadow onto it, coloured by the key's weight.
# usage: plane.sh APP PIXEL_CHECK PRESETS_DIR CLI
. "$(dirname "$0")/gui_test.sh"
check=$2
presets=$3
cli=$4
size=1920x1080
doc="$HOME/plane.json"
cp "$presets/plane-dot-products.json" "$doc"
cp "$doc" "$work/before.json"
token=3  # 'west', at (-1.5, 0)
dx=120 dy=-60  # pixels: right and up

layout "$doc" --size $size --show-panel Plane
[ -n "$(control "plane query $token")" ] || fail "no 'plane query $token' in the layout dump"
set -- $(control "plane unit")
unit=$(($3 - $1))
[ "$unit" -gt 10 ] || fail "plane unit is $unit px"
set -- $(centre $(control "plane query $token"))
x0=$1 y0=$2
echo "point of token $token at ($x0, $y0), $unit px per unit"

start "$doc" --size $size --show-panel Plane --capture-on "$work/cap"
move "$x0" "$y0"
xdotool mousedown 1
until_seen "the button down on token $token" field_is buttons 1
for i in 1 2 3 4 5 6 7 8 9 10; do
  move $((x0 + dx * i / 10)) $((y0 + dy * i / 10))
done
xdotool mouseup 1
until_seen "the button up after the drag" field_is buttons 0
move 5 5  # away from the plot: no tooltip over the capture
save plane.json

# expect_x FILE WANT_ROW3_X WANT_ROW3_Y TOL: row $token of X is (x, y) within TOL, the others as before
expect_x() {
  python3 - "$1" "$work/before.json" "$token" "$2" "$3" "$4" <<'PY'
import json, sys
got, before = (json.load(open(p))["X"] for p in sys.argv[1:3])
t, wx, wy, tol = int(sys.argv[3]), *map(float, sys.argv[4:])
print("X[%d] = %s, expected (%.3f, %.3f) +- %.3f" % (t, got[t], wx, wy, tol))
assert abs(got[t][0] - wx) <= tol and abs(got[t][1] - wy) <= tol, "the dragged token's embedding"
assert all(got[i] == before[i] for i in range(len(got)) if i != t), "other tokens unchanged"
PY
}
want=$(python3 -c "import sys; u=$unit; print(-1.5 + $dx / u, 0 - ($dy) / u, 0.011 + 1.5 / u)")
expect_x "$doc" $want || fail "the saved X does not follow the drag"

capture dragged
"$check" --shot "$doc" "$work/dragged.png" || fail "weights pixels differ from the core after the drag"
if "$check" --shot "$work/before.json" "$work/dragged.png" >/dev/null; then
  fail "the weights pixels still match the file before the drag"
fi
set -- $(centre $(control "plane query $token"))
echo "point now at ($1, $2)"
[ $(( ($1 - x0 - dx) * ($1 - x0 - dx) + ($2 - y0 - dy) * ($2 - y0 - dy) )) -le 9 ] ||
  fail "the point is at ($1, $2), not under the mouse's release ($((x0 + dx)), $((y0 + dy)))"

press ctrl z
save plane.json
expect_x "$doc" -1.5 0 0 || fail "one Ctrl+Z did not undo the whole drag"
quit_and_wait
echo "drag: the file, the point and the weights pixels follow; one undo step"

# (2) d_k > 2: the principal axes, their shares written, both colours drawn in the plot.
multi="$presets/udl-12-2-multihead.json"
"$app" "$multi" --size $size --show-panel Plane --screenshot "$work/multi.png" >/dev/null || fail "screenshot"
/usr/bin/python3 - "$work/multi.png" <<'PY' || fail "the plot of a d_k > 2 head"
import json, sys
from PIL import Image
shot = sys.argv[1]
controls = json.load(open(shot + ".json"))["controls"]
axes = [c["id"] for c in controls if c["id"].startswith("plane axes:")]
print(axes)
assert axes and "PC1" in axes[0] and "%" in axes[0], "the principal axes' shares are written"
x0, y0, x1, y1 = [int(round(v)) for v in next(c["rect"] for c in controls if c["id"] == "plane plot")]
assert x1 - x0 > 200 and abs((x1 - x0) - (y1 - y0)) <= 1, "a square plot"
img = Image.open(shot).convert("RGB").crop((x0, y0, x1, y1))
near = lambda p, c: sum(abs(a - b) for a, b in zip(p, c)) < 40
pixels = list(img.getdata())
queries = sum(near(p, (86, 180, 233)) for p in pixels)
keys = sum(near(p, (240, 110, 50)) for p in pixels)
print("query-coloured pixels %d, key-coloured %d of %d" % (queries, keys, len(pixels)))
assert queries > 50 and keys > 50, "queries and keys drawn"
PY
"$check" --shot "$multi" "$work/multi.png" || fail "weights pixels of the d_k > 2 preset"

# (3) Hovering the query 'long' (3, 1) drops every key onto its direction: each shadow's foot is
# drawn at q.k / |q| along it (read from the "plane unit" mark) in its weight's colour, so of two
# feet the brighter (viridis: luminance rises with the value) is the key with the larger weight.
cp "$presets/plane-dot-products.json" "$doc"
"$cli" compute "$doc" --format json > "$work/trace.json" || fail "attnlab-cli compute"
start "$doc" --size $size --show-panel Plane --capture-on "$work/cap"
capture plain
query=2
set -- $(centre $(control "plane query $query"))
move "$1" "$2"
capture hover
/usr/bin/python3 - "$work/hover.png" "$work/trace.json" "$query" <<'PY' || fail "the shadows of the hovered query"
import json, sys
from PIL import Image
shot, trace, i = sys.argv[1], sys.argv[2], int(sys.argv[3])
controls = {c["id"]: c["rect"] for c in json.load(open(shot + ".json"))["controls"]}
img = Image.open(shot).convert("RGB")
head = json.load(open(trace))["heads"][0]
q, keys, weights = head["Q"][i], head["K"], head["weights"][i]
x0, y1, x1, y0 = controls["plane unit"]  # from the origin to (1, 1)
ox, oy, unit = x0, y0, x1 - x0
qx0, qy0, qx1, qy1 = controls["plane query %d" % i]
mouse = ((qx0 + qx1) / 2, (qy0 + qy1) / 2)
norm = (q[0] ** 2 + q[1] ** 2) ** 0.5
lum = lambda p: 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]
plain = Image.open(shot.replace("hover", "plain")).convert("RGB")
feet = []  # (weight, brightness, key, drawn before the hover)
for j, k in enumerate(keys):
    t = (k[0] * q[0] + k[1] * q[1]) / norm
    at = (round(ox + t * q[0] / norm * unit), round(oy - t * q[1] / norm * unit))
    if at[0] > mouse[0] + 8 and at[1] > mouse[1] - 8:
        continue  # where the tooltip opens, to the right of the mouse
    colour = img.getpixel(at)
    feet.append((weights[j], lum(colour), j, plain.getpixel(at) != colour))
    print("key %d: weight %.4f, foot at %s drawn %s" % (j, weights[j], at, colour))
pairs = [(a, b) for a in feet for b in feet if a[0] > b[0] + 0.03]
assert len(pairs) >= 3, "at least three pairs of feet clear of the tooltip with clearly different weights"
for a, b in pairs:
    assert a[1] > b[1], "key %d (weight %.4f) is drawn darker than key %d (%.4f)" % (a[2], a[0], b[2], b[0])
assert all(new for *_, new in feet), "the feet appear with the hover, not before it"
PY
quit_and_wait
echo "hover: every key's shadow on the query, its foot where q.k / |q| puts it, as bright as its weight"
echo "PASS: Plane: a drag edits one embedding by the pixels moved, one undo step; d_k > 2 draws its principal plane; a hovered query shows each key's dot product in its weight's colour"
