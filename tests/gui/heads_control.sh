#!/bin/sh
# The Scenario panel's Heads control with real clicks and keys, under Xvfb, on copies of a preset
# whose projections are 4 wide (H must divide 4):
#  1. "+" from 1 head gives 2, then 4 (never the refused 3), then nothing more;
#  2. typing 3 and Enter is refused with one line in the status bar, the document keeps 4 heads;
#  3. on a 16-wide copy with 2 heads, typing 16 and Enter is one edit: Ctrl+Z gives 2 back.
# Each count is read from the file Ctrl+S writes.
# usage: heads_control.sh APP PROBE PRESET.json
set -eu
app=$1
probe=$2
preset=$3
. "$(dirname "$0")/isolated_home.sh"
. "$(dirname "$0")/window_driver.sh"
size=1280x800
heads_saved() {  # heads_saved FILE: Ctrl+S, then the file's head count
  press ctrl s; sleep 0.8
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("num_heads", 1))' "$1"
}

doc="$HOME/heads.json"
cp "$preset" "$doc"
layout "$doc" --size $size
plus=$(control "heads +"); field=$(control "heads field")
[ -n "$plus" ] && [ -n "$field" ] || fail "no heads controls in the layout dump"
start "$doc" --size $size
click $(centre $plus)
[ "$(heads_saved "$doc")" = 2 ] || fail "+ from 1 head: $(heads_saved "$doc") heads, expected 2"
click $(centre $plus)
[ "$(heads_saved "$doc")" = 4 ] || fail "+ from 2 heads: $(heads_saved "$doc") heads, expected 4"
click $(centre $plus)
[ "$(heads_saved "$doc")" = 4 ] || fail "+ from 4 heads (the last count): $(heads_saved "$doc") heads"
echo "step 1: + gave 1 -> 2 -> 4, then stayed"

# The status bar is the window's last 24 px; refusals are drawn in the error colour.
error_pixels() { probe 0 $(($(echo $size | cut -dx -f2) - 24)) $(echo $size | cut -dx -f1) $(echo $size | cut -dx -f2) 240,100,96,30 | cut -d' ' -f6; }
[ "$(error_pixels)" -lt 10 ] || fail "a refusal shows before anything was refused"
click $(centre $field)
xdotool type --delay 80 "3"; sleep 0.3
press Return
[ "$(error_pixels)" -ge 10 ] || fail "typed 3: no refusal in the status bar"
[ "$(heads_saved "$doc")" = 4 ] || fail "typed 3: the document has $(heads_saved "$doc") heads, expected 4 kept"
quit_and_wait
echo "step 2: typed 3 refused in the status bar, 4 heads kept"

wide="$HOME/wide.json"
python3 - "$preset" "$wide" <<'PY'
import json, random, sys
d = json.load(open(sys.argv[1]))
rnd = random.Random(7)
d["X"] = [[round(rnd.uniform(-1, 1), 2) for _ in range(16)] for _ in d["X"]]
for w in ("W_q", "W_k", "W_v"):
    d[w] = [[round(rnd.uniform(-1, 1), 2) for _ in range(16)] for _ in range(16)]
d["num_heads"] = 2
json.dump(d, open(sys.argv[2], "w"))
PY
layout "$wide" --size $size
field=$(control "heads field")
start "$wide" --size $size
click $(centre $field)
xdotool type --delay 120 "16"; sleep 0.3
press Return
[ "$(heads_saved "$wide")" = 16 ] || fail "typed 16: $(heads_saved "$wide") heads"
press ctrl z
[ "$(heads_saved "$wide")" = 2 ] || fail "typed 16, Ctrl+Z: $(heads_saved "$wide") heads, expected 2 (one undo step)"
quit_and_wait
echo "step 3: typed 16 was one edit, Ctrl+Z gave 2 heads back"
echo "PASS"
