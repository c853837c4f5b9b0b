#!/bin/sh
# Crash recovery of a document above the off-thread threshold (1 MiB, app/document_io.h), driven
# with real keys under Xvfb. The window reads the orphaned autosave, and then the file the work
# belongs to, off the UI thread; what it restores must be the same as for a small document:
#  1. open big.json, edit it (scale 0.5), wait for the autosave, kill -9;
#  2. restart with no file; Enter answers "Recover unsaved work?": the window title turns to
#     "big.json *" (restored, unsaved); Ctrl+Shift+S saves it as copy.json, which holds the edit
#     and big.json's matrices; the autosave is gone;
#  3. Ctrl+Z undoes the restore back to big.json as read from disk; Ctrl+S writes that to copy.json.
# usage: large_recovery.sh APP MAKE_SCENARIO
. "$(dirname "$0")/gui_test.sh"
make_scenario=$2
big="$HOME/big.json"
"$make_scenario" 1024x128x4 "$big" --seed 4 >/dev/null
[ "$(stat -c %s "$big")" -gt 1048576 ] || fail "big.json is not above the 1 MiB threshold"
# same_except_scale A B: the two scenarios are equal but for their scale
same_except_scale() {
  python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    d.pop("scale", None)
    d.pop("view", None)
sys.exit(0 if a == b else 1)
PY
}

# 1. edit, autosave, kill -9
start "$big" --test-edit scale=0.5
wait_for "$wait_limit" autosave_exists || fail "no autosave in $state_dir after $wait_limit s"
[ "$(json_scale "$(ls "$state_dir"/autosave-*.json)" autosave)" = "0.5" ] || fail "the autosave does not hold the edit"
kill9
echo "step 1: autosaved a $(stat -c %s "$big")-byte document, killed with -9"

# 2. restart, restore with Enter once the autosave has been read, save a copy
start
until_seen "the offer to recover" field_is popup "Recover unsaved work?###recovery"
press Return
wait_for 30 xdotool search --name "big.json \*" >/dev/null || fail "the work was not restored (title)"
press ctrl shift s
type_text copy.json
press Return
copy="$HOME/copy.json"
wait_for "$wait_limit" test -f "$copy" || fail "Ctrl+Shift+S, copy.json, Enter did not save $copy"
[ "$(json_scale "$copy")" = "0.5" ] || fail "the copy does not hold the restored edit"
same_except_scale "$copy" "$big" || fail "the copy's matrices differ from big.json's"
wait_for "$wait_limit" no_autosave || fail "the autosave was not removed after saving"
echo "step 2: restored with Enter, saved as copy.json (the edit, big.json's matrices)"

# 3. undo goes back to big.json as read from disk
press ctrl z
press ctrl s
wait_for "$wait_limit" sh -c "[ \"\$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"scale\"])' '$copy')\" = \"$(json_scale "$big")\" ]" ||
  fail "Ctrl+Z, Ctrl+S: copy.json does not have big.json's scale $(json_scale "$big")"
same_except_scale "$copy" "$big" || fail "after undo the matrices differ from big.json's"
quit_and_wait
echo "step 3: Ctrl+Z went back to big.json; Ctrl+S saved it; Ctrl+Q quit"
echo "PASS"
