#!/bin/sh
# Which input moves output[0][0] most? The Sensitivity panel under Xvfb, on a copy of the UDL 12.2
# preset: the d/dX heatmap's most intense cell is the one `attnlab-cli sensitivity` finds largest
# in X; a click on the first cell of the list (the largest over every input) hands it to the Sweep
# panel, and Play then Pause there changes exactly that number of the scenario (saved with Ctrl+S).
# usage: sensitivity.sh APP CLI PRESET
. "$(dirname "$0")/gui_test.sh"
cli=$2
preset=$3
size=1920x1080
doc="$HOME/sens.json"
cp "$preset" "$doc"
"$cli" sensitivity "$doc" --of "output[0][0]" > "$work/grad.json" || fail "attnlab-cli sensitivity"
start "$doc" --size $size --show-panel Sensitivity --capture-on "$work/cap"
capture first
/usr/bin/python3 - "$work/first.png" "$work/grad.json" <<'PY' || fail "d/dX is not drawn as the core computes it"
import json, sys
from PIL import Image
shot, grad = sys.argv[1:]
layout = json.load(open(shot + ".json"))
img = Image.open(shot).convert("RGB")
gx = json.load(open(grad))["grad"]["X"]
want = max(((r, c) for r in range(len(gx)) for c in range(len(gx[0]))), key=lambda rc: abs(gx[rc[0]][rc[1]]))
h = next(h for h in layout["heatmaps"] if h["id"] == "sens/X")
assert (h["rows"], h["cols"]) == (len(gx), len(gx[0])), "d/dX has X's shape"
cells = {(r, c): img.getpixel((int(h["x0"] + c * h["cell"] + 2), int(h["y0"] + r * h["cell"] + 2)))
         for r in range(h["rows"]) for c in range(h["cols"])}
pale = max(cells.values(), key=sum)
far = max(cells, key=lambda rc: sum((a - b) ** 2 for a, b in zip(cells[rc], pale)))
print("d output[0][0] / dX: most intense cell drawn", far, ", largest |gradient| by the CLI", want)
assert far == want
PY
click $(centre $(control "sensitivity top 0"))
capture_layout sweep
[ -n "$(control "sweep play")" ] || fail "a click on the largest cell did not bring the Sweep panel"
click $(centre $(control "sweep play"))
sleep 0.8  # the sweep plays for a while (its clock is the wall clock): not a wait for a state
click $(centre $(control "sweep play"))
save sens.json
/usr/bin/python3 - "$preset" "$doc" "$work/grad.json" <<'PY' || fail "the sweep did not move the cell the list named first"
import json, sys
before, after, grad = (json.load(open(p)) for p in sys.argv[1:])
def numbers(node, path=()):
    if isinstance(node, (int, float)) and not isinstance(node, bool):
        yield path, float(node)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from numbers(v, path + (i,))
    elif isinstance(node, dict):
        for k, v in node.items():
            yield from numbers(v, path + (k,))
g = dict(numbers(grad["grad"]))
largest = max(g, key=lambda p: abs(g[p]))
a, b = dict(numbers(before)), dict(numbers(after))
changed = [p for p in b if p in a and a[p] != b[p] and p[0] not in ("scale",)]
print("largest |gradient| at", largest, "(%+.4g); the sweep changed" % g[largest], changed)
assert changed == [largest]
PY
quit_and_wait
echo "PASS: the gradient heatmap follows the core; the cell that moves output[0][0] most is the one swept"
