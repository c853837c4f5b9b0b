#!/bin/sh
# Nothing cut at 1280x800 in normal mode (issue 26.8), from the layout dumps of --screenshot runs:
# the Mask panel's controls with the sliding window on (Mistral's preset: Causal, Window and its
# width, Clear, Bake; also at 1024x640) all lie inside the Mask window, wrapping to a next line rather than
# running past its edge ("Cle", no Bake, before); the Heads grids of five presets end inside
# the Heads panel's clip rectangle, the selected head's frame with them (Vaswani Q2's one head
# filled the panel's width and its frame's right side was cut); a formula on its own line (RoPE's
# Q_rot/K_rot) ends inside its panel, wrapped. Then, with real input, the Pipeline of the RoPE
# preset scrolled by the wheel to its Q_rot and a cell of it hovered: the Inspector's turn of that
# pair ("57 degrees past whole turns") ends inside the Inspector, its lines wrapped.
# usage: nothing_cut.sh APP PRESETS_DIR
. "$(dirname "$0")/gui_test.sh"
presets=$2
# The window on; the most heads (4, 8 with GQA's K/V bar); the longest token labels.
for p in modern-mistral-sliding-window modern-alibi-slopes modern-llama-gqa-rope vaswani-q1-decoder-over-encoder vaswani-q2-is-attends; do
  "$app" "$presets/$p.json" --size 1280x800 --screenshot "$work/$p.png" >/dev/null || fail "screenshot of $p"
done
# Narrower still (since Sinks took a line of its own, the controls fit at 1280x800 without wrapping):
# at 1024x640 the window's width field wraps to the next line rather than being cut.
"$app" "$presets/modern-mistral-sliding-window.json" --size 1024x640 \
  --screenshot "$work/modern-mistral-sliding-window-1024.png" >/dev/null || fail "screenshot of Mistral at 1024x640"
/usr/bin/python3 - "$work" <<'PY' || fail "something cut (1280x800, Mistral also 1024x640)"
import glob, json, os, sys
failures = []
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.png.json"))):
    d, name = json.load(open(f)), os.path.basename(f)[:-9]
    for h in d["heatmaps"]:
        right = h["x0"] + h["cols"] * h["cell"] + 3.5  # the selected head's frame: 3 px, 2 px off the grid
        if h["window"].startswith("Heads") and right > h["clip"][2]:
            failures.append("%s: Heads %s ends at x=%g, past the panel's %g" % (name, h["id"], right, h["clip"][2]))
        if h["formula_right"] > h["clip"][2]:
            failures.append("%s: %s's formula ends at x=%g, past the panel's %g" % (name, h["id"], h["formula_right"], h["clip"][2]))
    if not name.startswith("modern-mistral-sliding-window"):
        continue
    box = next(w["box"] for w in d["window_arrangement"]["windows"] if w["name"] == "Mask")
    ids = {c["id"]: c["rect"] for c in d["controls"] if c["window"].startswith("Mask")}
    for want in ("mask window", "mask window width", "mask clear", "mask bake"):
        rect = ids.get(want)
        if rect is None or rect[2] > box[0] + box[2] - 4:
            failures.append("%s: %s at %s, the Mask window ends at x=%g" % (name, want, rect, box[0] + box[2]))
print("\n".join(failures) or "every Mask control and Heads grid inside its panel")
sys.exit(1 if failures else 0)
PY
start "$presets/modern-llama-gqa-rope.json" --size 1280x800 --capture-on "$work/cap"
capture rope
# q_rot_cell: the centre of Q_rot's cell (0, 0) when the Pipeline shows it, else how many wheel
# notches (5 lines each) bring it into view
q_rot_cell() {
  /usr/bin/python3 - "$work/layout.png.json" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
h = next(h for h in d["heatmaps"] if h["window"].startswith("Pipeline/") and h["matrix"] == "Q_rot")
y = h["y0"] + h["cell"] / 2
if h["clip"][1] < y < h["clip"][3]:
    print("cell", int(h["x0"] + h["cell"] / 2), int(y))
else:
    print("notches", max(1, math.ceil((y - (h["clip"][1] + h["clip"][3]) / 2) / (5 * d["window_arrangement"]["font_size"]))))
PY
}
set -- $(q_rot_cell)
[ "$1" = notches ] || fail "Q_rot in view without scrolling: the test would not scroll"
set -- $(control "panel tab Pipeline") "$2"
move "$1" $(($4 + 200))
scroll "$7"
capture rope_scrolled
set -- $(q_rot_cell)
[ "$1" = cell ] || fail "Q_rot still out of view after the wheel"
move "$2" "$3"
frames 2
capture rope_hovered
/usr/bin/python3 - "$work/rope_hovered.png.json" <<'PY' || fail "the Inspector's RoPE turn cut at 1280x800"
import json, sys
d = json.load(open(sys.argv[1]))
turn = [c for c in d["controls"] if c["id"] == "inspector rope turn"]
assert turn, "no RoPE turn in the Inspector while a Q_rot cell is hovered"
rect, window = turn[0]["rect"], turn[0]["window"].split("/")[0]
box = next(w["box"] for w in d["window_arrangement"]["windows"] if w["name"] == window)
print("the Inspector's RoPE turn spans x=%g..%g, its window (%s) ends at x=%g" % (rect[0], rect[2], window, box[0] + box[2]))
assert rect[2] <= box[0] + box[2] - 4
PY
quit_and_wait
echo "PASS: nothing cut at 1280x800"
