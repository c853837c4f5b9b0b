#!/bin/sh
# Before and after with real input, under Xvfb: Compare > "Keep as reference", then W_q[0][1]
# typed into the Inputs (a double-click, "2.25", Enter). The Compare panel then draws a difference
# exactly for the stages `attnlab-cli compare` finds changed between the file before and the file
# saved after (head 1's Q and what follows it, concat, output; never K, V or head 2), and in each
# drawn difference the cell farthest from the map's zero colour is the one compare names.
# usage: compare.sh APP CLI
. "$(dirname "$0")/gui_test.sh"
cli=$2
size=1920x1080
doc="$HOME/compare.json"
python3 "$(dirname "$0")/random_scenario.py" "$doc" --seed 17 --title compare --tokens a,b,c,d \
  --matrix X=4x4:1.5 --matrix W_q=4x4:1.5 --matrix W_k=4x4:1.5 --matrix W_v=4x4:1.5 --matrix W_o=4x4:1.5 \
  --set num_heads=2
cp "$doc" "$work/before.json"
start "$doc" --size $size --show-panel Compare --capture-on "$work/cap"
capture_layout start
[ -n "$(control "keep reference")" ] || fail "no Keep as reference button"
click $(centre $(control "keep reference"))
click $(centre $(control "panel tab Inputs"))
capture_layout inputs
click $(centre $(control "inputs tab W_q"))
capture_layout wq
type_cell W_q 0 1 2.25
move 700 40
save compare.json
python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["W_q"][0][1] == 2.25 else 1)' "$doc" ||
  fail "the typed W_q[0][1] = 2.25 was not saved"
capture after
[ -n "${ATTNLAB_TEST_SHOTS:-}" ] && cp "$work/after.png" "$ATTNLAB_TEST_SHOTS/compare.png"
"$cli" compare "$work/before.json" "$doc" > "$work/compare.json" || fail "attnlab-cli compare"
: > "$work/checked"
# check SHOT: the differences drawn in SHOT against compare; the stages checked go to $work/checked.
check() {
/usr/bin/python3 - "$1" "$work/compare.json" "$work/checked" <<'PY' || fail "the Compare panel does not show what compare finds"
import json, sys
from PIL import Image
shot, compare, checked_file = sys.argv[1:]
layout = json.load(open(shot + ".json"))
img = Image.open(shot).convert("RGB")
scale = layout.get("framebuffer_scale", 1)
# What compare finds changed, for head 0 (head 0 in the window too) and the shared stages.
want = {}
for s in json.load(open(compare))["stages"]:
    if s["head"] in (0, None) and s["max_abs_diff"] != 0:
        want[(s["stage"], -1 if s["head"] is None else 0)] = tuple(s["at"])
names = {"head_output": "output"}
drawn = {}
for h in layout["heatmaps"]:
    if not h["id"].startswith("cmp-diff/"):
        continue
    per_head = h["matrix"] not in ("concat", "output")
    drawn[(names.get(h["matrix"], h["matrix"]), 0 if per_head else -1)] = h
print("compare finds:", sorted(want))
assert {"Q", "weights", "concat", "output"} <= {s for s, _ in want}, "the edit changed nothing?"
print("window draws: ", sorted(drawn))
assert set(drawn) == set(want), "differences drawn for other stages than those that changed"
assert not any(s in ("K", "V") for s, _ in drawn), "K and V cannot change with W_q"
def corner(h, r, c):  # a pixel near the cell's corner: away from the printed value
    return img.getpixel((int((h["x0"] + c * h["cell"] + 2) * scale), int((h["y0"] + r * h["cell"] + 2) * scale)))
checked = []
for key, h in drawn.items():
    x1, y1 = h["x0"] + h["cols"] * h["cell"], h["y0"] + h["rows"] * h["cell"]
    if h["x0"] < h["clip"][0] or h["y0"] < h["clip"][1] or x1 > h["clip"][2] or y1 > h["clip"][3]:
        continue  # scrolled out of view
    checked.append("%s/%d" % key)
    # The zero colour: the legend is not in the dump, so take the cell closest to the map's middle,
    # i.e. the palest; the largest difference is the cell farthest from it.
    cells = {(r, c): corner(h, r, c) for r in range(h["rows"]) for c in range(h["cols"])}
    pale = max(cells.values(), key=lambda p: sum(p))
    far = max(cells, key=lambda rc: sum((a - b) ** 2 for a, b in zip(cells[rc], pale)))
    print(key, "largest difference drawn at", far, "compare says", want[key])
    assert far == want[key], "largest difference not where compare finds it"
assert checked, "no difference in view"
open(checked_file, "a").write("".join(c + "\n" for c in checked))
PY
}
check "$work/after.png"
# Scroll the stages (the mouse wheel over them) and check those that came into view.
set -- $(control "compare stages")
move $((($1 + $3) / 2)) $((($2 + $4) / 2))
scroll 8
move 700 40
capture scrolled
check "$work/scrolled.png"
n=$(sort -u "$work/checked" | wc -l)
[ "$n" -ge 4 ] || fail "only $n stages' differences were in view to check"
echo "checked $n stages' largest differences: $(sort -u "$work/checked" | tr '\n' ' ')"
quit_and_wait
echo "PASS: keep a reference, type one W_q cell: exactly the downstream stages differ, largest where compare says"
