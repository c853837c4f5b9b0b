#!/bin/sh
# The gradient painted over the Inputs editors: on a copy of the UDL 12.2 preset (per-head weights,
# tokens as columns), "Colour the Inputs by it" in the Sensitivity panel recolours the editor of
# heads[0].W_q so that its most intense cell is the one `attnlab-cli sensitivity` finds largest and
# every cell with a clear gradient is red when positive, blue when negative; "Colour by value"
# brings back exactly the colours it had. The cells keep showing the values throughout.
# usage: sensitivity_inputs.sh APP CLI PRESET
. "$(dirname "$0")/gui_test.sh"
cli=$2
preset=$3
doc="$HOME/sens.json"
cp "$preset" "$doc"
"$cli" sensitivity "$doc" --of "output[0][0]" > "$work/grad.json" || fail "attnlab-cli sensitivity"
start "$doc" --size 1920x1080 --show-panel Sensitivity --capture-on "$work/cap"
capture first
click $(centre $(control "panel tab Inputs"))
capture inputs
tab=$(control "inputs tab W_q")
[ -n "$tab" ] || fail "no W_q tab in the Inputs"
click $(centre $tab)
capture values
[ -n "$(control "grid:heads[0].W_q")" ] || fail "the W_q tab shows no editor of heads[0].W_q"
click $(centre $(control "sensitivity on inputs"))
capture gradients
click $(centre $(control "inputs colour by value"))
capture values_again
/usr/bin/python3 - "$work" "$work/grad.json" <<'PY' || fail "the Inputs are not coloured by the core's gradient"
import json, sys
from PIL import Image
work, grad = sys.argv[1:]
g = json.load(open(grad))["grad"]["heads"][0]["W_q"]

def cells(name):
    layout = json.load(open(f"{work}/{name}.png.json"))
    c = next(c for c in layout["controls"] if c["id"] == "grid:heads[0].W_q")
    x0, y0, x1, y1 = c["rect"]
    rows, cols = c["rows"], c["cols"]
    assert (rows, cols) == (len(g), len(g[0])), "the editor has the gradient's shape"
    img = Image.open(f"{work}/{name}.png").convert("RGB")
    w, h = (x1 - x0) / cols, (y1 - y0) / rows
    # A cell's corner: its fill, clear of the number written in its middle.
    return {(r, col): img.getpixel((int(x0 + col * w + 3), int(y0 + r * h + 3))) for r in range(rows) for col in range(cols)}

def dist(a, b):
    return sum((p - q) ** 2 for p, q in zip(a, b))

values, grads, again = cells("values"), cells("gradients"), cells("values_again")
assert values == again, "Colour by value brings back the values' colours"
assert grads != values, "the toggle changed no cell's colour"
flat = {rc: g[rc[0]][rc[1]] for rc in grads}
largest = max(flat, key=lambda rc: abs(flat[rc]))
pale = max(grads.values(), key=sum)
far = max(grads, key=lambda rc: dist(grads[rc], pale))
print("heads[0].W_q: most intense cell drawn", far, "; largest |d output[0][0] / d cell| by the CLI", largest)
assert far == largest
top = max(abs(v) for v in flat.values())
assert min(flat.values()) < 0 < max(flat.values()), "the preset's gradient has both signs"
# With the default colormap signed values are "blue < 0 < red" (the Scenario panel says so).
for rc, v in flat.items():
    if abs(v) > 0.3 * top:
        red, _, blue = grads[rc]
        assert (red > blue) == (v > 0), (rc, v, grads[rc])
print("every cell with |gradient| > 30% of the largest is red when positive, blue when negative")
PY
quit_and_wait
echo "PASS: the Inputs are coloured by the gradient the core computes, and by value again on request"
