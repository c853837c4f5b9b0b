#!/bin/sh
# Lecture mode on a 1280x800 projector, 4 heads of 6 tokens (modern-alibi-slopes): every head's
# weights can be read as numbers in one gesture. A double-click on the Heads tab gives the panel
# its column: the selected head is drawn large with its numbers beside small multiples of every
# head (or a page of them, with arrows to the others); a click on a multiple selects its head.
# Before it, the short slot shows all four multiples at a readable cell (6 px or more), never
# 2-pixel dots. The numbers are read back from the pixels (read_cell_values.py) and compared with the weights
# `attnlab-cli compute` prints, for head 1 and then head 3; at 1920x1080, where only a page of
# multiples fits beside head 1's numbers, the arrow pages to head 4, whose numbers are read too.
# Presenting the lesson's every-head step at 1280x800 shows all four heads, none cut.
# usage: heads_lecture.sh APP CLI PRESET.json
. "$(dirname "$0")/gui_test.sh"
cli=$2
preset=$3
"$cli" compute "$preset" > "$work/trace.json" || fail "compute"
# numbers SHOT HEAD: the large head of SHOT is HEAD (0-based) and prints its weights to 2 decimals
numbers() {
  /usr/bin/python3 - "$1" "$2" "$work/trace.json" "$(dirname "$0")" <<'PY' || fail "the numbers of head $(($2 + 1)) in $1"
import json, sys
sys.path.insert(0, sys.argv[4])
from read_cell_values import read
shot, head, trace = sys.argv[1], int(sys.argv[2]), sys.argv[3]
layout = json.load(open(shot + ".json"))
heads = [h for h in layout["heatmaps"] if h["window"].startswith("Heads")]
small = [h for h in heads if h["id"].startswith("overview/")]
assert small and min(h["cell"] for h in small) >= 6, "multiples: %s" % [(h["id"], h["cell"]) for h in small]
large = [h for h in heads if h["values_drawn"]]
assert len(large) == 1, "one head with numbers, got %s" % [(h["id"], h["cell"]) for h in large]
assert large[0]["head"] == head, "the large head is %d, not %d" % (large[0]["head"], head)
hm, got = read(shot, large[0]["id"])
want = json.load(open(trace))["heads"][head]["weights"]
bad = [(r, c, got[r][c], w) for r, row in enumerate(want) for c, w in enumerate(row)
       if got[r][c] is None or abs(got[r][c] - w) > 0.005 + 1e-9]
print("head %d: %d numbers read at %d px cells; %d multiples; wrong: %s" % (head + 1, len(want) * len(want[0]), hm["cell"], len(small), bad))
assert not bad
PY
}
start "$preset" --size 1280x800 --lecture --capture-on "$work/cap"
capture short
# Before the gesture, the short slot keeps every head as a multiple a class can still read.
/usr/bin/python3 - "$work/short.png.json" <<'PY' || fail "the short Heads slot's multiples"
import json, sys
heads = [h for h in json.load(open(sys.argv[1]))["heatmaps"] if h["window"].startswith("Heads")]
print("short slot: multiples of %s px" % sorted({h["cell"] for h in heads}))
assert len(heads) == 4 and min(h["cell"] for h in heads) >= 6
PY
set -- $(control "panel tab Heads")
double_click $(centre "$1" "$2" "$3" "$4")
move 1270 790  # no hover outline or tooltip in the captures
capture tall
numbers "$work/tall.png" 0
# A click on head 3's multiple (on its page: the arrows step there if it is not shown).
target=$(/usr/bin/python3 - "$work/tall.png.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
h = next((h for h in d["heatmaps"] if h["id"] == "overview/2"), None)
if h:
    print(int(h["x0"] + h["cell"] * h["cols"] / 2), int(h["y0"] + h["cell"] * h["rows"] / 2))
PY
)
[ -n "$target" ] || fail "head 3's multiple is not on the first page"
click $target
move 1270 790
capture head3
numbers "$work/head3.png" 2
quit_and_wait
# At 1920x1080 the Heads slot prints head 1's numbers at once, with a page of multiples: the
# arrow beside them shows the others (head 4), a click on it selects that head.
start "$preset" --size 1920x1080 --lecture --capture-on "$work/cap"
move 1910 1070
capture wide
numbers "$work/wide.png" 0
/usr/bin/python3 -c 'import json, sys; sys.exit(any(h["id"] == "overview/3" for h in json.load(open(sys.argv[1]))["heatmaps"]))' \
  "$work/wide.png.json" && [ -n "$(control "heads page on")" ] || fail "no page of multiples with an arrow to the next"
click $(centre $(control "heads page on"))
move 1910 1070
capture paged
target=$(/usr/bin/python3 - "$work/paged.png.json" <<'PY'
import json, sys
h = next((h for h in json.load(open(sys.argv[1]))["heatmaps"] if h["id"] == "overview/3"), None)
if h:
    print(int(h["x0"] + h["cell"] * h["cols"] / 2), int(h["y0"] + h["cell"] * h["rows"] / 2))
PY
)
[ -n "$target" ] || fail "the arrow did not page to head 4's multiple"
click $target
move 1910 1070
capture head4
numbers "$work/head4.png" 3
quit_and_wait
# Presenting the lesson's last step, every head's weights, at 1280x800 (P, then End): the four
# heads in a grid inside the presenter, none cut at its right edge or lost beyond it.
start "$preset" --size 1280x800 --capture-on "$work/cap"
move 1270 790
press p
press End
capture present
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
capture many
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
capture manytall
inside "$work/manytall.png.json" tall
quit_and_wait
# One head (Vaswani Q2, 3 tokens) in the short slot at 1280x800: drawn large with its numbers at
# once, no redundant multiple beside it (it was a 58 px thumbnail and "Double-click the Heads tab").
one="$(dirname "$preset")/vaswani-q2-is-attends.json"
"$cli" compute "$one" > "$work/one.json" || fail "compute $one"
"$app" "$one" --size 1280x800 --lecture --screenshot "$work/one.png" >/dev/null || fail "screenshot of $one"
/usr/bin/python3 - "$work/one.png" "$work/one.json" "$(dirname "$0")" <<'PY' || fail "one head in lecture mode"
import json, sys
sys.path.insert(0, sys.argv[3])
from read_cell_values import read
shot = sys.argv[1]
heads = [h for h in json.load(open(shot + ".json"))["heatmaps"] if h["window"].startswith("Heads")]
print("one head: %s" % [(h["id"], h["cell"], h["values_drawn"]) for h in heads])
assert [h["id"] for h in heads] == ["focus"] and heads[0]["values_drawn"], "one large head with numbers, no multiple"
hm, got = read(shot, "focus")
want = json.load(open(sys.argv[2]))["heads"][0]["weights"]
bad = [(r, c, got[r][c], w) for r, row in enumerate(want) for c, w in enumerate(row)
       if got[r][c] is None or abs(got[r][c] - w) > 0.005 + 1e-9]
print("its %d numbers read at %d px cells; wrong: %s" % (len(want) * len(want[0]), hm["cell"], bad))
assert not bad
PY
echo "PASS: in lecture mode at 1280x800 each head's numbers are one gesture away, and the multiples page; one head shows its numbers at once"
