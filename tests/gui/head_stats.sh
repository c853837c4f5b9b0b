#!/bin/sh
# The Head stats panel against the core, under Xvfb: the bars' lengths (read from the window's
# pixels) are in the ratio of the heads' mean entropies that `attnlab-cli compute` prints, the
# longest first; switching the measure with real input re-ranks the heads; a click on a bar
# selects that head. Then the Lines tab beside it (tests/gui/check_lines.py): the lines of every
# head, a hovered query's lines alone, a head's lines hidden by a click on its swatch.
# usage: head_stats.sh APP CLI
. "$(dirname "$0")/gui_test.sh"
cli=$2
size=1920x1080
doc="$HOME/stats.json"
# Three heads of very different sharpness: W_q's bands scaled 0.2, 1 and 3.
python3 "$(dirname "$0")/random_scenario.py" "$doc" --seed 16 --title stats --tokens a,b,c,d,e,f,g \
  --matrix W_q=6x6:1 --matrix X=7x6:2 --matrix W_k=6x6:1 --matrix W_v=6x6:1 \
  --scale-columns W_q=0.2,0.2,1,1,3,3 --set num_heads=3
"$cli" compute "$doc" > "$work/trace.json" || fail "compute"
# bars SHOT MEASURE: checks the bars of SHOT against the trace's mean MEASURE per head.
bars() {
  /usr/bin/python3 - "$1" "$work/trace.json" "$2" <<'PY' || fail "bars of $2 do not follow the core"
import json, sys
from PIL import Image
shot, trace, measure = sys.argv[1:]
layout = json.load(open(shot + ".json"))
img = Image.open(shot).convert("RGB")
heads = json.load(open(trace))["heads"]
want = [sum(h["stats"][measure]) / len(h["stats"][measure]) for h in heads]
got, tops = [], []
for h in range(len(heads)):
    rect = next(c["rect"] for c in layout["controls"] if c["id"] == "stats bar %d" % h)
    x0, y0, x1, y1 = [int(round(v)) for v in rect]
    y = (y0 + y1) // 2
    best = run = 0
    prev = None
    for x in range(x0, x1):  # the longest run of one saturated colour is the bar
        p = img.getpixel((x, y))
        sat = max(p) - min(p) > 80
        run = run + 1 if sat and p == prev else (1 if sat else 0)
        prev = p
        best = max(best, run)
    got.append(best)
    tops.append(y0)
top = max(want)
expect = [got[want.index(top)] * w / top for w in want]
for h in range(len(heads)):
    print("head %d: mean %s %.4f, bar %d px (expected %.1f)" % (h + 1, measure, want[h], got[h], expect[h]))
assert all(abs(g - e) <= 3 for g, e in zip(got, expect)), "bar lengths"
order = sorted(range(len(heads)), key=lambda h: -want[h])
assert [tops[h] for h in order] == sorted(tops), "heads ranked by the measure, largest on top"
PY
}
start "$doc" --size $size --show-panel "Head stats" --capture-on "$work/cap"
capture entropy
bars "$work/entropy.png" entropy
# The measure by real input: a click on "peak" (the largest weight).
click $(python3 -c "import sys; r=[int(v) for v in sys.argv[1:5]]; print((r[0]+r[2])//2, (r[1]+r[3])//2)" $(control "stats measure 1"))
capture peak
bars "$work/peak.png" max_weight
# A click on the bottom bar selects its head.
last=$(python3 - "$work/peak.png.json" <<'PY'
import json, sys
bars = [c for c in json.load(open(sys.argv[1]))["controls"] if c["id"].startswith("stats bar ")]
b = max(bars, key=lambda c: c["rect"][1])
print(int(b["id"].split()[-1]), int((b["rect"][0] + b["rect"][2]) / 2), int((b["rect"][1] + b["rect"][3]) / 2))
PY
)
set -- $last
click "$2" "$3"
capture_layout selected
python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["selected_head"] == int(sys.argv[2]) else 1)' \
  "$work/selected.png.json" "$1" || fail "a click on head $(($1 + 1))'s bar did not select it"
# The Lines tab beside it, in the same window: every head's lines drawn from the core's weights;
# hovering a query keeps its lines alone; a click on a head's swatch hides that head's lines.
lines() {  # lines MODE ARGS...: tests/gui/check_lines.py, its lines shown, failing the test if it fails
  /usr/bin/python3 "$(dirname "$0")/check_lines.py" "$@" >"$work/lines.out" || { cat "$work/lines.out"; fail "lines $1"; }
  cat "$work/lines.out"
}
click $(centre $(control "panel tab Lines"))
capture lines_all
lines plan "$work/trace.json" "$work/lines_all.png" "$work/lines_plan.json"
set -- $(tail -1 "$work/lines.out")
move "$1" "$2"
capture lines_hover
lines hover "$work/lines_plan.json" "$work/lines_hover.png"
click "$3" "$4"
capture lines_toggled
lines toggled "$work/lines_plan.json" "$work/lines_toggled.png"
quit_and_wait
echo "PASS: bars follow the core's statistics, re-rank with the measure, select with a click;"
echo "lines drawn from the weights, a hovered query's alone, a head hidden by its swatch"
