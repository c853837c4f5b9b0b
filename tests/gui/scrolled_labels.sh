#!/bin/sh
# Rotated column labels stay inside their panel (issue 26.2): Vaswani Q2's Pipeline at 1024x640,
# in normal and then in lecture mode (Ctrl+L), scrolled down by the wheel until its first
# heatmaps' labels have passed the top of the panel's content. Above the content (the panel's
# tab bar, the formula strip, the menu bar) not a pixel changes: a label drawn out of its clip
# rectangle would show there ("this / is / translation" over the tabs, before the fix).
# usage: scrolled_labels.sh APP PRESET.json
. "$(dirname "$0")/gui_test.sh"
preset=$2
start "$preset" --size 1024x640 --capture-on "$work/cap"
# unchanged TOP SCROLLED: the strip above the Pipeline's content is the same in both captures
unchanged() {
  /usr/bin/python3 - "$work/$1.png" "$work/$2.png" <<'PY' || fail "labels drawn outside the Pipeline in $2"
import json, sys
from PIL import Image, ImageChops
top, scrolled = sys.argv[1:]
layout = json.load(open(scrolled + ".json"))
maps = [h for h in layout["heatmaps"] if h["window"].startswith("Pipeline/")]
top_y = maps[0]["clip"][1]
rotated = [h for h in maps if h["id"].startswith("scores") and top_y - h["rows"] * h["cell"] < h["y0"] < top_y + 40]
assert rotated, "scores not just below the top: %s" % [(h["id"], h["y0"], top_y) for h in maps]
x0, y0, x1, _ = [int(v) for v in maps[0]["clip"]]
box = (x0, 0, x1, y0)
diff = ImageChops.difference(Image.open(top).convert("RGB").crop(box),
                             Image.open(scrolled).convert("RGB").crop(box)).getbbox()
print("%s: %d heatmaps scrolled past y=%d; changed above it: %s" % (scrolled.split("/")[-1], len(rotated), y0, diff))
assert diff is None
PY
}
# notches: the wheel notches (5 lines each, ImGui's step) that bring the first heatmap with token
# labels across its columns to just below the content's top: its turned labels then reach above it.
notches() {
  /usr/bin/python3 - "$work/layout.png.json" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
h = next(h for h in d["heatmaps"] if h["window"].startswith("Pipeline/") and h["id"].startswith("scores"))
step = 5 * d["window_arrangement"]["font_size"]
print(max(1, math.ceil((h["y0"] - h["clip"][1] - 30) / step)))
PY
}
for mode in normal lecture; do
  [ "$mode" = lecture ] && press ctrl+l
  move 5 630
  capture "$mode-top"
  down=$(notches) || fail "no scores heatmap in the Pipeline"
  set -- $(control "panel tab Pipeline")
  move "$1" $(($4 + 200))
  scroll "$down"
  move 5 630
  capture "$mode-scrolled"
  unchanged "$mode-top" "$mode-scrolled"
  move "$1" $(($4 + 200))
  scroll -40
done
quit_and_wait
echo "PASS: the Pipeline's labels stay inside it when scrolled, in normal and lecture mode"
