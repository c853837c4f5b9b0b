#!/bin/sh
# The heads' names over the concat stage's bands of columns never run together: with d_v = 1
# (one column a head: vaswani-q3 split into 4 heads) and with d_v = 2 (its own 2 heads), the
# label boxes the layout dump records are disjoint, one gap apart, each centred over its band.
# usage: band_labels.sh APP PRESET.json (a 4-wide, 2-head preset)
. "$(dirname "$0")/gui_test.sh"
preset=$2
check() {  # check HEADS EXPECTED_FIRST_LABEL
  "$app" "$preset" --size 1280x2400 --test-edit heads=$1 --frames 8 --screenshot "$work/h$1.png" \
    >/dev/null || fail "--test-edit heads=$1 run"
  python3 - "$work/h$1.png.json" "$1" "$2" <<'PY' || fail "heads=$1: labels collide"
import json, sys
heads, first = int(sys.argv[2]), sys.argv[3]
dump = json.load(open(sys.argv[1]))
concat = [h for h in dump["heatmaps"] if h["matrix"] == "concat"]
assert concat, "no concat heatmap in the dump"
h = concat[0]
labels = h["band_labels"]
band = h["cell"] * h["cols"] / heads
print("heads=%d: %s" % (heads, ", ".join("%s [%g, %g]" % (l["text"], l["rect"][0], l["rect"][2]) for l in labels)))
ok = len(labels) >= 1 and labels[0]["text"] == first
for a, b in zip(labels, labels[1:]):
    if a["rect"][2] + 2 > b["rect"][0]:
        print("FAIL: %s ends at %g, %s starts at %g" % (a["text"], a["rect"][2], b["text"], b["rect"][0])); ok = False
for l in labels:
    k = int("".join(c for c in l["text"] if c.isdigit()))  # counted from 0
    centre = (l["rect"][0] + l["rect"][2]) / 2
    if abs(centre - (h["x0"] + (k + 0.5) * band)) > 1:
        print("FAIL: %s is not centred over head %d's columns" % (l["text"], k)); ok = False
sys.exit(0 if ok else 1)
PY
}
check 4 h0
check 2 "head 0"
echo "PASS"
