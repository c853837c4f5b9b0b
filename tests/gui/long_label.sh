#!/bin/sh
# A 100,000-character token label draws at about the cost of a short one (issue 22): labels are
# fitted by doubling and bisection, measuring little of them. The same preset with a short and with
# a long first label, 60 frames each: CPU time per frame compared as a ratio, never a wall-clock
# limit (the window costs about 1 s a frame at 5,000 characters when fitted one character at a time).
# usage: long_label.sh APP PRESET.json
set -eu
app=$1
preset=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$preset" "$work" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for name, label in (("short", "This"), ("long", "start_" + "w" * 100000 + "_end")):
    doc["tokens"][0] = label
    json.dump(doc, open(f"{sys.argv[2]}/{name}.json", "w"))
PY
cpu_per_frame() {  # the bench's CPU milliseconds per frame for scenario $1
  XDG_CONFIG_HOME="$work/config" "$app" "$work/$1.json" --bench-frames 60 --size 1280x800 | tail -1 |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["cpu_ms_per_frame"])'
}
short=$(cpu_per_frame short)
long=$(cpu_per_frame long)
echo "CPU per frame: short label ${short} ms, 100,000-character label ${long} ms"
awk -v s="$short" -v l="$long" 'BEGIN { r = l / s; printf "ratio %.2f (bound 3)\n", r; exit !(r < 3) }'
