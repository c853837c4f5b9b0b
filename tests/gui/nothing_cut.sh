#!/bin/sh
# Nothing cut at 1280x800 in normal mode (issue 26.8), from the layout dumps of --screenshot runs:
# the Mask panel's controls with the sliding window on (Mistral's preset: Causal, Window and its
# width, Clear, Bake; also at 1024x640) all lie inside the Mask window, wrapping to a next line rather than
# running past its edge ("Cle", no Bake, before); the Heads grids of five presets end inside
# the Heads panel's clip rectangle, the selected head's frame with them (Vaswani Q2's one head
# filled the panel's width and its frame's right side was cut); a formula on its own line (RoPE's
# Q_rot/K_rot) ends inside its panel, wrapped. Then, with real input, the Pipeline of the RoPE
# preset scrolled by the wheel to its Q_rot and a cell of it hovered: the Inspector's turn of that
# pair ("57 degrees past whole turns") ends inside the Inspector, its lines wrapped; a paused sweep's
# value ends inside the Sweep panel. Last, in lecture mode with real input: the Inspector shows
# enough of the hovered cell's arithmetic (below).
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
capture_layout rope
# cell_of MATRIX [last]: the centre of the Pipeline's cell (0, 0) of MATRIX (with "last": of its
# last row, a weight's whole row of keys) when the Pipeline shows it, else how many wheel notches
# (5 lines each; up when negative) bring it into view
cell_of() {
  /usr/bin/python3 - "$work/layout.png.json" "$1" "${2:-}" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
h = next(h for h in d["heatmaps"] if h["window"].startswith("Pipeline/") and h["matrix"] == sys.argv[2])
y = h["y0"] + ((h["rows"] if sys.argv[3] else 1) - 0.5) * h["cell"]
top, bottom = h["clip"][1] + h["cell"] / 2, h["clip"][3] - h["cell"] / 2
if top < y < bottom:
    print("cell", int(h["x0"] + h["cell"] / 2), int(y))
else:
    notches = (y - (top + bottom) / 2) / (5 * d["window_arrangement"]["font_size"])
    print("notches", max(1, math.ceil(notches)) if notches > 0 else min(-1, math.floor(notches)))
PY
}
# ends_inside SHOT MARK WHAT: the control MARK was drawn in SHOT and ends inside its window's right
# edge (4 px to spare); WHAT names it in the messages.
ends_inside() {
  /usr/bin/python3 - "$@" <<'PY' || fail "$3 cut at 1280x800"
import json, sys
d = json.load(open(sys.argv[1]))
mark = [c for c in d["controls"] if c["id"] == sys.argv[2]]
assert mark, "no %s drawn" % sys.argv[3]
rect, window = mark[0]["rect"], mark[0]["window"].split("/")[0]
box = next(w["box"] for w in d["window_arrangement"]["windows"] if w["name"] == window)
print("%s spans x=%g..%g, its window (%s) ends at x=%g" % (sys.argv[3], rect[0], rect[2], window, box[0] + box[2]))
assert rect[2] <= box[0] + box[2] - 4
PY
}
set -- $(cell_of Q_rot)
[ "$1" = notches ] || fail "Q_rot in view without scrolling: the test would not scroll"
set -- $(control "panel tab Pipeline") "$2"
move "$1" $(($4 + 200))
scroll "$7"
capture_layout rope_scrolled
set -- $(cell_of Q_rot)
[ "$1" = cell ] || fail "Q_rot still out of view after the wheel"
move "$2" "$3"
frames 2
capture_layout rope_hovered
ends_inside "$work/rope_hovered.png.json" "inspector rope turn" "the Inspector's RoPE turn"
# The Sweep panel, its tab in front of the Inspector's by the Sweep button beside the scale: the
# value of a paused sweep ("scale = 1.593  (T = 0.6277)") goes to a wrapped line of its own where
# it does not fit beside Pause and Record GIF (it ran past the panel's edge).
click $(centre $(control "sweep scale"))
capture_layout sweep_panel
[ -n "$(control "sweep play")" ] || fail "the Sweep button beside the scale did not bring the Sweep panel to the front"
version=$(seen_field version)
click $(centre $(control "sweep play"))
until_seen "three frames of the sweep" field_at_least version $((version + 3))
click $(centre $(control "sweep play"))  # Pause
capture_layout sweep_paused
ends_inside "$work/sweep_paused.png.json" "sweep value" "the paused sweep's value"
press ctrl z  # the whole sweep, one undo step: nothing unsaved to ask about when quitting
# Lecture mode (Ctrl+L) on a projector: the Inspector shows the arithmetic of the hovered cell, at
# least 6 of its lines (all of them when shorter), none cut at the panel's right edge; at 1280x800
# it showed a line and a half, its slot a sliver under the Setup and Heads panels, and a weight's
# table of terms ran past its edge. On Vaswani Q2 (the longest token, "translation", in the table):
# a Q cell, a score and a weight of the last query (a whole row of keys) at 1280x800; the weight at
# 1024x640 and 1920x1080 (the window resized). Read from the marks of the Inspector's arithmetic
# and of its view, in lines of the dump's line height.
inspector_shows() {  # inspector_shows NAME: the capture NAME's Inspector, checked
  /usr/bin/python3 - "$work/$1.png.json" "$1" <<'PY' || fail "the Inspector's arithmetic cut in lecture mode ($1)"
import json, sys
d = json.load(open(sys.argv[1]))
marks = {c["id"]: c["rect"] for c in d["controls"] if c["id"].startswith("inspector ")}
assert "inspector arithmetic" in marks, "%s: no arithmetic in the Inspector (hover missed?)" % sys.argv[2]
a, v = marks["inspector arithmetic"], marks["inspector view"]
pitch = d["window_arrangement"]["line_height"]
whole = (a[3] - a[1]) / pitch
shown = (min(a[3], v[3]) - max(a[1], v[1])) / pitch
print("%s: %.1f of %.1f lines of arithmetic shown, the Inspector's view %gx%g px, its text ends at x=%g of %g"
      % (sys.argv[2], shown, whole, v[2] - v[0], v[3] - v[1], a[2], v[2]))
assert shown >= min(6, whole) - 0.05, "fewer than 6 lines shown"
assert a[2] <= v[2] + 0.5, "the arithmetic runs past the Inspector's right edge"
PY
}
# hover_cell NAME MATRIX [last]: the Pipeline scrolled until the cell is in view, the mouse moved
# onto it, the frame captured as NAME
hover_cell() {
  name=$1; shift
  capture_layout "$name"
  for _ in 1 2 3; do
    where=$(cell_of "$@")
    [ "${where%% *}" = cell ] && break
    set -- $(control "panel tab Pipeline") "$@"
    move "$1" $(($4 + 200))
    shift 6
    scroll "${where#* }"
    capture_layout "$name"
  done
  [ "${where%% *}" = cell ] || fail "$1 out of view after three scrolls of the Pipeline"
  set -- $where
  move "$2" "$3"
  frames 2
  capture_layout "$name"
}
# resized_to WxH: a capture shows the window at that size
resized_to() {
  capture_layout resized
  [ "$(python3 -c 'import json,sys; print("%dx%d" % tuple(json.load(open(sys.argv[1]))["window_arrangement"]["display"]))' "$work/resized.png.json")" = "$1" ]
}
quit_and_wait
start "$presets/vaswani-q2-is-attends.json" --size 1280x800 --capture-on "$work/cap"
press ctrl l
hover_cell lecture_q Q
inspector_shows lecture_q
hover_cell lecture_score scores last
inspector_shows lecture_score
hover_cell lecture_weight weights last
inspector_shows lecture_weight
for size in 1024x640 1920x1080; do
  xdotool windowsize "$window" "${size%x*}" "${size#*x}"
  wait_for "$wait_limit" resized_to "$size" || fail "the window never resized to $size"
  hover_cell "lecture_weight_$size" weights last
  inspector_shows "lecture_weight_$size"
done
quit_and_wait
echo "PASS: nothing cut at 1280x800, the Inspector's arithmetic readable in lecture mode"
