#!/bin/sh
# The Single query panel never wraps a number inside it: in a narrow window (its column about
# 300 px), every line it writes (recorded in the layout dump as "text:" controls) ends between
# numbers, never after a number's point or amid its digits.
# usage: single_query_wrap.sh APP PRESET.json
. "$(dirname "$0")/gui_test.sh"
preset=$2
for size in 1000x800 1280x800; do
  layout "$preset" --size $size --show-panel "Single query"
  python3 - "$work/layout.png.json" $size <<'PY' || fail "$size: a number is cut across lines"
import json, sys
lines = [c["id"][5:] for c in json.load(open(sys.argv[1]))["controls"] if c["id"].startswith("text:")]
print("%s: %d lines" % (sys.argv[2], len(lines)))
ok = len(lines) >= 4
for a, b in zip(lines, lines[1:]):
    cut = a.endswith(".") or (a[-1:].isdigit() and (b[:1].isdigit() or b[:1] == "."))
    if cut:
        print("FAIL: %r | %r" % (a, b)); ok = False
sys.exit(0 if ok else 1)
PY
done
echo "PASS"
