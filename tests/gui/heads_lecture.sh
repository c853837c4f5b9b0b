#!/bin/sh
# Lecture mode on a 1280x800 projector, up to 4 heads of up to 8 tokens: numbers are drawn at the
# lecture font or not at all (checked on every heatmap of each capture read); the selected head's
# weights are read as numbers after one gesture, a double-click on the Heads tab (the group takes
# its column): the selected head is drawn large with its numbers and its token labels, queries left
# of the rows and keys above the columns, beside small multiples of every head (or a page of them,
# with arrows to the others); a click on a multiple selects its head. The numbers are read back from
# the pixels (read_cell_values.py) and compared with the weights `attnlab-cli compute` prints, for
# head 1 and then head 3 of modern-alibi-slopes (4 heads, 6 tokens), and for FlashAttention's 8
# tokens after one gesture (a double-click on the Heads tab: the Inspector keeps its six lines); the
# labels drawn are the tokens' own, and the large head (title, labels, grid) lies inside the Heads
# panel. At 1920x1080 head 1's numbers show at once and a click on head 4's multiple (paging to it
# if need be) shows its numbers, read too. Presenting the lesson's every-head step at 1280x800 shows
# all four heads, none cut. A hovered weight's tooltip covers neither its row nor the head's first
# row, in and out of lecture mode. At 1920x1080 every tab of the Pipeline is in view, one click
# away.
# usage: heads_lecture.sh APP CLI PRESET.json
. "$(dirname "$0")/gui_test.sh"
cli=$2
preset=$3
"$cli" compute "$preset" > "$work/trace.json" || fail "compute"
# numbers SHOT HEAD [TRACE PRESET [unlabelled]]: the large head of SHOT is HEAD (0-based), prints its
# weights to 2 decimals at the lecture font, and names its rows and columns with the tokens' labels
# (whole, or shortened in the middle; unlabelled: or none at all) inside the Heads panel.
numbers() {
  /usr/bin/python3 - "$1" "$2" "${3:-$work/trace.json}" "$(dirname "$0")" "${4:-$preset}" "${5:-}" <<'PY' || fail "the numbers of head $(($2 + 1)) in $1"
import json, sys
sys.path.insert(0, sys.argv[4])
from read_cell_values import read
shot, head, trace = sys.argv[1], int(sys.argv[2]), sys.argv[3]
layout = json.load(open(shot + ".json"))
heads = [h for h in layout["heatmaps"] if h["window"].startswith("Heads")]
small = [h for h in heads if h["id"].startswith("overview/")]
assert len(heads) == 1 or (small and min(h["cell"] for h in small) >= 6), "multiples: %s" % [(h["id"], h["cell"]) for h in small]
large = [h for h in heads if h["values_drawn"]]
assert len(large) == 1, "one head with numbers, got %s" % [(h["id"], h["cell"]) for h in large]
assert large[0]["head"] == head, "the large head is %d, not %d" % (large[0]["head"], head)
# Lecture mode's rule: numbers at least the lecture font, or none (every heatmap, every panel).
font = layout["mono_font_size"]
small_numbers = [(h["window"], h["id"], h["value_px"]) for h in layout["heatmaps"] if h["values_drawn"] and h["value_px"] < font]
print("numbers at %g px, the lecture mono font %g px" % (large[0]["value_px"], font))
assert not small_numbers, "numbers below the lecture font: %s" % small_numbers
hm, got = read(shot, large[0]["id"])
doc = json.load(open(trace))
want = doc["heads"][head]["weights"]
bad = [(r, c, got[r][c], w) for r, row in enumerate(want) for c, w in enumerate(row)
       if got[r][c] is None or abs(got[r][c] - w) > 0.005 + 1e-9]
print("head %d: %d numbers read at %d px cells; %d multiples; wrong: %s" % (head + 1, len(want) * len(want[0]), hm["cell"], len(small), bad))
assert not bad
# The labels: every query and every key named, by its own token (shortened in the middle: "t…n").
tokens = json.load(open(sys.argv[5]))["tokens"]
rows = [t for _, t in hm["row_labels"]]
cols = [t for _, t in hm["col_labels"]]
print("labels: queries %s, keys %s" % (rows, cols))
if sys.argv[6] == "unlabelled" and not rows and not cols:
    print("no labels: no room beside numbers at the lecture font")
    sys.exit(0)
assert len(rows) == len(want) and len(cols) == len(want[0]), "a token without its label"
def names(label, token):
    if "\u2026" not in label:
        return label == token
    a, b = label.split("\u2026")
    return token.startswith(a) and token.endswith(b) and len(a) + len(b) < len(token)
assert all(names(l, t) for l, t in zip(rows, tokens)) and all(names(l, t) for l, t in zip(cols, tokens)), "labels not the tokens %s" % tokens
box = next(w["box"] for w in layout["window_arrangement"]["windows"] if w["name"] == "Heads")
rect = next(c["rect"] for c in layout["controls"] if c["id"] == "heads large head")
print("large head %s in the Heads panel %s" % (rect, box))
assert box[0] <= rect[0] and rect[2] <= box[0] + box[2] and box[1] <= rect[1] and rect[3] <= box[1] + box[3], "the large head leaves its panel"
assert hm["clip"][0] <= rect[0] and hm["clip"][1] <= rect[1] and rect[2] <= hm["clip"][2] and rect[3] <= hm["clip"][3], "the large head is cut"
PY
}
# clear_tooltip NAME ID ROW: the mouse on row ROW (0-based) of the Heads heatmap ID in the last
# capture, its middle column, then capture NAME: the cell's tooltip (the dump's "heads cell
# tooltip") covers neither that row nor the head's first row, and stays on the screen.
clear_tooltip() {
  at=$(/usr/bin/python3 - "$work/layout.png.json" "$2" "$3" <<'PY'
import json, sys
h = next(h for h in json.load(open(sys.argv[1]))["heatmaps"] if h["window"].startswith("Heads") and h["id"] == sys.argv[2])
print(int(h["x0"] + h["cell"] * (h["cols"] // 2 + 0.5)), int(h["y0"] + h["cell"] * (int(sys.argv[3]) + 0.5)))
PY
)
  [ -n "$at" ] || fail "no heatmap $2 in the Heads panel"
  move $at
  frames 2  # the tooltip is placed by its size on the frame before
  capture "$1"
  /usr/bin/python3 - "$work/$1.png.json" "$2" "$3" <<'PY' || fail "the tooltip of $2's row $3 ($1)"
import json, sys
d = json.load(open(sys.argv[1]))
h = next(h for h in d["heatmaps"] if h["window"].startswith("Heads") and h["id"] == sys.argv[2])
tip = next((c["rect"] for c in d["controls"] if c["id"] == "heads cell tooltip"), None)
assert tip, "no tooltip drawn"
x1 = h["x0"] + h["cell"] * h["cols"]
def band(r):
    return [h["x0"], h["y0"] + h["cell"] * r, x1, h["y0"] + h["cell"] * (r + 1)]
def overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
row = int(sys.argv[3])
print("tooltip %s; head %s rows 0 %s and %d %s" % (tip, h["id"], band(0), row, band(row)))
assert not overlap(tip, band(0)), "it covers the head's first row"
assert not overlap(tip, band(row)), "it covers the hovered row"
w, hh = d["framebuffer"][0] / d["framebuffer_scale"], d["framebuffer"][1] / d["framebuffer_scale"]
assert 0 <= tip[0] and 0 <= tip[1] and tip[2] <= w and tip[3] <= hh, "it leaves the screen"
PY
}
start "$preset" --size 1280x800 --lecture --capture-on "$work/cap"
move 1270 790  # no hover outline or tooltip in the captures
capture short
# No gesture: the short Heads slot draws no number smaller than the lecture font (the multiples
# and the large head in colours, and the hint); the double-click on the Heads tab gives the group
# its column, and head 1's numbers at the lecture font with its labels.
/usr/bin/python3 - "$work/short.png.json" <<'PY' || fail "numbers below the lecture font without a gesture"
import json, sys
d = json.load(open(sys.argv[1]))
small = [(h["window"], h["id"], h["value_px"]) for h in d["heatmaps"] if h["values_drawn"] and h["value_px"] < d["mono_font_size"]]
print("no gesture: numbers below %g px: %s" % (d["mono_font_size"], small))
assert not small
PY
set -- $(control "panel tab Heads")
double_click $(centre "$1" "$2" "$3" "$4")
move 1270 790
capture short
numbers "$work/short.png" 0
# A click on head 3's multiple, on its page (the arrow steps there if it is not shown).
multiple() {  # multiple SHOT H: the centre of head H's multiple (0-based) in SHOT, or nothing
  /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
h = next((h for h in json.load(open(sys.argv[1]))["heatmaps"] if h["id"] == "overview/" + sys.argv[2]), None)
if h:
    print(int(h["x0"] + h["cell"] * h["cols"] / 2), int(h["y0"] + h["cell"] * h["rows"] / 2))
PY
}
target=$(multiple "$work/short.png.json" 2)
if [ -z "$target" ]; then
  [ -n "$(control "heads page on")" ] || fail "head 3's multiple is on no page"
  click $(centre $(control "heads page on"))
  move 1270 790
  capture_layout paged3
  target=$(multiple "$work/paged3.png.json" 2)
fi
[ -n "$target" ] || fail "the arrow did not page to head 3's multiple"
click $target
move 1270 790
capture head3
numbers "$work/head3.png" 2
# Hovering a weight of the large head: its tooltip leaves the row read and the first row uncovered
# (it opened above the mouse, over them, for want of room below in the short slot); out of lecture
# mode (Ctrl+L), the last row of head 1's multiple likewise.
clear_tooltip tip3 focus 3
press ctrl l
move 1270 790
capture normal
clear_tooltip tipnormal overview/0 5
quit_and_wait
# At 1920x1080 the Heads slot prints head 1's numbers at once, with the multiples beside them (or
# a page of them, the arrow showing the others): a click on head 4's selects that head.
start "$preset" --size 1920x1080 --lecture --capture-on "$work/cap"
move 1910 1070
capture wide
numbers "$work/wide.png" 0
target=$(multiple "$work/wide.png.json" 3)
if [ -z "$target" ]; then
  [ -n "$(control "heads page on")" ] || fail "head 4's multiple is on no page"
  click $(centre $(control "heads page on"))
  move 1910 1070
  capture_layout paged
  target=$(multiple "$work/paged.png.json" 3)
fi
[ -n "$target" ] || fail "the arrow did not page to head 4's multiple"
click $target
move 1910 1070
capture head4
numbers "$work/head4.png" 3
clear_tooltip tip4 focus 0
# Every tab of the Pipeline in view, inside its window: two rows where one scrolled (Tiles and
# Decode hid behind its arrows); a click on Tiles, in the other row, brings that panel to the front.
pipeline_tabs() {  # pipeline_tabs SHOT FRONT
  /usr/bin/python3 - "$work/$1.png.json" "$2" <<'PY' || fail "the Pipeline's tabs ($1)"
import json, sys
d = json.load(open(sys.argv[1]))
w = next(w for w in d["window_arrangement"]["windows"] if w["name"] == "Pipeline")
box = w["box"]
tabs = {c["id"][len("panel tab "):]: c["rect"] for c in d["controls"]
        if c["id"].startswith("panel tab ") and c["window"] == "Pipeline"}
print("Pipeline %s, %s in front; tabs %s" % (box, w["front"], tabs))
assert all(p in tabs for p in w["panels"]), "tabs out of view: %s" % [p for p in w["panels"] if p not in tabs]
out = [p for p, r in tabs.items()
       if not (box[0] <= r[0] and r[2] <= box[0] + box[2] and box[1] <= r[1] and r[3] <= box[1] + box[3])]
assert not out, "tabs outside the Pipeline's window: %s" % out
assert w["front"] == sys.argv[2], "%s in front, not %s" % (w["front"], sys.argv[2])
PY
}
pipeline_tabs tip4 Pipeline
click $(centre $(control "panel tab Tiles"))
move 1910 1070
capture tiles
pipeline_tabs tiles Tiles
quit_and_wait
# Presenting the lesson's last step, every head's weights, at 1280x800 (P, then End): the four
# heads in a grid inside the presenter, none cut at its right edge or lost beyond it.
start "$preset" --size 1280x800 --capture-on "$work/cap"
move 1270 790
press p
press End
capture_layout present
/usr/bin/python3 - "$work/present.png.json" <<'PY' || fail "the presenter's every-head step"
import json, sys
d = json.load(open(sys.argv[1]))
box = next(w["box"] for w in d["window_arrangement"]["windows"] if "Presenter" in w["panels"])
heads = [h for h in d["heatmaps"] if h["id"].startswith("presenter/")]
right = [(h["id"], h["x0"] + h["cell"] * h["cols"], h["y0"] + h["cell"] * h["rows"]) for h in heads]
print("presenter box %s; maps (id, right, bottom): %s" % (box, right))
assert len(heads) == 4, "%d of 4 heads drawn" % len(heads)
assert all(r <= box[0] + box[2] and b <= box[1] + box[3] for _, r, b in right), "a head leaves the presenter"
PY
quit_and_wait
# 12 tokens (modern-kv-cache-window-sinks) are too many for numbers in the Heads column at
# 1280x800: the short slot still holds its row of multiples whole, and the column (double-click)
# draws the selected head large, without numbers, beside the multiples; nothing leaves the panel.
# One head (Vaswani Q2) shows its numbers large at once, with no multiple.
start "$(dirname "$preset")/modern-kv-cache-window-sinks.json" --size 1280x800 --lecture --capture-on "$work/cap"
move 1270 790
capture_layout many
inside() {  # inside SHOT [tall]: every Heads grid within the Heads group's box; tall: a large head
  /usr/bin/python3 - "$@" <<'PY' || fail "12 tokens in the Heads panel ($1)"
import json, sys
d = json.load(open(sys.argv[1]))
box = next(w["box"] for w in d["window_arrangement"]["windows"] if w["name"] == "Heads")
heads = [h for h in d["heatmaps"] if h["window"].startswith("Heads")]
grids = [(h["id"], h["y0"] + h["cell"] * h["rows"], h["x0"] + h["cell"] * h["cols"]) for h in heads]
print("Heads group %s; grids (id, bottom, right): %s" % (box, grids))
assert heads and all(b <= box[1] + box[3] and r <= box[0] + box[2] for _, b, r in grids), "a grid leaves the panel"
if len(sys.argv) > 2:
    large = [h for h in heads if h["id"] == "focus"]
    small = [h for h in heads if h["id"].startswith("overview/")]
    assert large and small and large[0]["cell"] >= 2 * max(h["cell"] for h in small), "no large head"
PY
}
inside "$work/many.png.json"
set -- $(control "panel tab Heads")
double_click $(centre "$1" "$2" "$3" "$4")
move 1270 790
capture_layout manytall
inside "$work/manytall.png.json" tall
quit_and_wait
# One head in the short slot at 1280x800, with no gesture: drawn large with its numbers and its
# labels at once, no redundant multiple beside it (Vaswani Q2's 3 tokens, "translation" named whole
# left of its row, "tra…" above its column).
one=vaswani-q2-is-attends
file="$(dirname "$preset")/$one.json"
"$cli" compute "$file" > "$work/$one.json" || fail "compute $one"
"$app" "$file" --size 1280x800 --lecture --screenshot "$work/$one.png" >/dev/null || fail "screenshot of $one"
/usr/bin/python3 -c 'import json, sys; sys.exit([h["id"] for h in json.load(open(sys.argv[1]))["heatmaps"] if h["window"].startswith("Heads")] != ["focus"])' \
  "$work/$one.png.json" || fail "$one: one large head, no multiple"
numbers "$work/$one.png" 0 "$work/$one.json" "$file"
# The keys' labels above narrow columns keep each word's start ("tra…"; it was "t…n").
/usr/bin/python3 - "$work/$one.png.json" <<'PY' || fail "$one: the keys' labels lost their words"
import json, sys
h = next(h for h in json.load(open(sys.argv[1]))["heatmaps"] if h["id"] == "focus")
cols = [t for _, t in h["col_labels"]]
print("keys: %s" % cols)
assert all("\u2026" not in t or len(t.split("\u2026")[0]) >= 3 for t in cols), "a label keeps fewer than 3 letters of its word's start"
PY
# FlashAttention's 8 tokens: the slot cannot grow to them at 1280x800 and still leave the Inspector
# its six lines (gui_nothing_cut), so one gesture, a double-click on the Heads tab, gives the head
# the column: its 64 numbers read back at the lecture font (it held a 6 px thumbnail there before),
# without the labels, which the column's width has no room for beside them (the Pipeline has them).
one=modern-flashattention-tiles
file="$(dirname "$preset")/$one.json"
"$cli" compute "$file" > "$work/$one.json" || fail "compute $one"
start "$file" --size 1280x800 --lecture --capture-on "$work/cap"
move 1270 790
capture_layout flashshort
set -- $(control "panel tab Heads")
double_click $(centre "$1" "$2" "$3" "$4")
move 1270 790
capture flashtall
numbers "$work/flashtall.png" 0 "$work/$one.json" "$file" unlabelled
quit_and_wait
echo "PASS: in lecture mode at 1280x800 no number below the lecture font; the selected head's numbers and labels show after one gesture (4 heads of 6 tokens), a head of 8 tokens' numbers too, and the multiples page"
