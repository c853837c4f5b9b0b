#!/bin/sh
# Issue 26, point 5: the selected head first, with real input under Xvfb, on a generated scenario
# computed off the UI thread (600 tokens, 4 heads). With --head-first hold, once the selected
# head of an edited trace is out, the rest of that trace waits for the next edit: what is checked
# never depends on timing.
#  1. the first trace drawn: every head's weights current (not dimmed);
#  2. a click on the Mask panel's "Window" (a sliding-window mask: every query row changes): the
#     selected head's weights in the Heads panel show the edit (their pixels change, not dimmed)
#     while every other head's weights are still dimmed;
#  3. a second click (the window off again, as the next step of a drag would): the selected head
#     changes again, the others are still dimmed (the held rest of step 2 was dropped for it).
# Without the selected head computed first, step 2 never sees it undimmed: the test fails.
# usage: head_first.sh APP MAKE_SCENARIO
. "$(dirname "$0")/gui_test.sh"
make_scenario=$2
doc="$work/large.json"
"$make_scenario" 600x32x4 "$doc" --seed 5 >/dev/null
# weights SHOT current|ahead [BEFORE]: the weights heatmaps of SHOT: all current, or the
# selected head's (head 0) current and the others' dimmed; with BEFORE, head 0's pixels in the Heads panel differ.
weights() {
  /usr/bin/python3 - "$@" <<'PY'
import json, sys
from PIL import Image
shot, mode, before = sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None
heat = [h for h in json.load(open(shot + ".json"))["heatmaps"] if h["matrix"] == "weights"]
sel = [h for h in heat if h["head"] == 0]
others = [h for h in heat if h["head"] != 0]
def pixels(path, h):
    x0, y0, x1, y1 = (int(v) for v in h["clip"])
    return Image.open(path).convert("RGB").crop((x0, y0, x1, y1)).tobytes()
ok = bool(sel) and not any(h["stale"] for h in sel)
ok = ok and (all(not h["stale"] for h in others) if mode == "current" else bool(others) and all(h["stale"] for h in others))
if ok and before:
    now = [h for h in sel if h["window"].startswith("Heads")]
    old = [h for h in json.load(open(before + ".json"))["heatmaps"] if now and h["id"] == now[0]["id"]]
    ok = bool(old) and pixels(shot, now[0]) != pixels(before, old[0])
print("%s: head 1 %s, others %s" % (shot.split("/")[-1], [h["stale"] for h in sel], [h["stale"] for h in others]))
sys.exit(0 if ok else 1)
PY
}
# until_weights NAME MODE [BEFORE]: captures NAME until `weights` holds (a bounded number of frames)
until_weights() {
  n=0
  until capture "$1" && weights "$work/$1.png" "$2" ${3:+"$work/$3.png"} >"$work/weights.log"; do
    n=$((n + 1))
    [ $n -lt 200 ] || fail "$1: $(cat "$work/weights.log")"
  done
  cat "$work/weights.log"
}

start "$doc" --size 1280x800 --head-first hold --capture-on "$work/cap"
move 700 40
until_weights first current
echo "step 1: the first trace drawn, every head current"
set -- $(control "mask window")
[ $# -eq 6 ] || fail "no Window checkbox in the capture's dump"
window="$(centre "$1" "$2" "$3" "$4")"
click $window
move 700 40
until_weights edited ahead first
echo "step 2: the sliding window shows in head 1 while the other heads are dimmed"
click $window
move 700 40
until_weights again ahead edited
echo "step 3: the window off again shows in head 1, the other heads still dimmed"
kill9
echo "PASS"
