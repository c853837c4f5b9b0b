#!/bin/sh
# Lecture mode on a 1280x800 projector: the Pipeline's cells are narrower than a value at the
# lecture font, yet the class still reads the numbers (written smaller, never below 70% of the
# font). Every Pipeline heatmap in view of UDL 12.2 says its values are drawn, and each cell of Q
# holds text: pixels far from its fill, in the middle of the cell, and only there.
# usage: lecture_values.sh APP PRESET.json
. "$(dirname "$0")/gui_test.sh"
preset=$2
"$app" "$preset" --size 1280x800 --lecture --screenshot "$work/lecture.png" >/dev/null || { echo "FAIL: screenshot"; exit 1; }
/usr/bin/python3 - "$work/lecture.png" <<'PY'
import json, sys
from PIL import Image
shot = sys.argv[1]
maps = [h for h in json.load(open(shot + ".json"))["heatmaps"] if h["window"].startswith("Pipeline/")]
img = Image.open(shot).convert("RGB")
in_view = [h for h in maps if h["y0"] + h["cell"] <= h["clip"][3]]
assert in_view, "no Pipeline heatmap in view"
for h in in_view:
    assert h["values_drawn"], "%s: %.0f px cells, values not drawn" % (h["id"], h["cell"])
q = next(h for h in maps if h["id"] == "Q/0")
cell = int(q["cell"])
far = lambda a, b: sum(abs(x - y) for x, y in zip(a, b)) > 150
for r in range(q["rows"]):
    for c in range(q["cols"]):
        x0, y0 = int(q["x0"] + c * cell), int(q["y0"] + r * cell)
        fill = img.getpixel((x0 + 2, y0 + 2))
        middle = [img.getpixel((x, y)) for x in range(x0 + 3, x0 + cell - 4) for y in range(y0 + cell // 3, y0 + 2 * cell // 3)]
        rim = [img.getpixel((x, y)) for x in range(x0 + 3, x0 + cell - 4) for y in (y0 + 3, y0 + cell - 5)]
        ink = sum(far(p, fill) for p in middle)
        assert ink > 20, "Q cell (%d, %d): no digits drawn (%d ink pixels)" % (r, c, ink)
        assert not any(far(p, fill) for p in rim), "Q cell (%d, %d): ink outside the middle" % (r, c)
print("%d Pipeline heatmaps in view with values; Q's %d cells of %d px each hold their digits" % (len(in_view), q["rows"] * q["cols"], cell))
PY
echo "PASS: the values are written in lecture mode's narrow cells"
