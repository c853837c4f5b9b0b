#!/bin/sh
# Large documents are read and written off the UI thread (app/document_io.h), under Xvfb, on a
# generated scenario above both thresholds. Counters and contents, never wall clock:
#  1. --bench-open (File > Open's path): loaded off the UI thread, frames drawn meanwhile, nothing
#     loaded on the UI thread, and the document opened equals the file (as the start-up reads it);
#  2. --test-edit, then --bench-save (Ctrl+S's path): written off the UI thread, marked saved, and
#     the file loads back equal to the edited document;
#  3. the real window with real keys: the file given on the command line opens (off the UI
#     thread); an edit, then Ctrl+S and Ctrl+Q at once: the window waits for the save and quits
#     without asking, and the file holds the edit.
# usage: large_io.sh APP MAKE_SCENARIO
. "$(dirname "$0")/gui_test.sh"
make_scenario=$2
big="$work/big.json"
"$make_scenario" 1024x256x8 "$big" --seed 3 >/dev/null
# field FILE EXPR: a value from the last line of FILE (the bench's JSON)
field() { python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).read().splitlines()[-1]); print(eval(sys.argv[2], {}, {"d": d}))' "$@"; }
# scenario FILE: the --print-scenario part of FILE (everything before a last JSON line, if any)
same_scenario() {
  python3 - "$1" "$2" <<'PY'
import json, sys
def scenario(path):
    lines = open(path).read().splitlines()
    if lines and lines[-1].startswith('{"open"'):
        lines = lines[:-1]
    return json.loads("\n".join(lines))
sys.exit(0 if scenario(sys.argv[1]) == scenario(sys.argv[2]) else 1)
PY
}
# The file as the start-up reads it (scripted runs read it before the first frame).
"$app" "$big" --screenshot "$work/ref.png" --capture-stale --frames 1 --print-scenario >"$work/ref.txt"

# 1. open
"$app" --bench-open "$big" --print-scenario >"$work/open.txt"
tail -1 "$work/open.txt"
[ "$(field "$work/open.txt" 'd["open"]["opened"]')" = True ] || fail "--bench-open did not open $big"
[ "$(field "$work/open.txt" 'd["open"]["async"]')" = True ] || fail "the large file was not read off the UI thread"
[ "$(field "$work/open.txt" 'd["sync_loads"]')" = 0 ] || fail "a file was read on the UI thread"
[ "$(field "$work/open.txt" 'd["open"]["frames_busy"] > 0')" = True ] || fail "no frame was drawn while the file was read"
same_scenario "$work/open.txt" "$work/ref.txt" || fail "the document opened differs from the file"
echo "step 1: opened off the UI thread, frames drawn meanwhile, equal to the file"

# 2. save
cp "$big" "$work/save.json"
"$app" "$work/save.json" --test-edit scale=0.5 --bench-save --print-scenario >"$work/save.txt"
tail -1 "$work/save.txt"
[ "$(field "$work/save.txt" 'd["save"]["saved"]')" = True ] || fail "--bench-save did not save"
[ "$(field "$work/save.txt" 'd["save"]["async"]')" = True ] || fail "the large document was not written off the UI thread"
[ "$(field "$work/save.txt" 'd["sync_saves"]')" = 0 ] || fail "a document was written on the UI thread"
"$app" "$work/save.json" --screenshot "$work/back.png" --capture-stale --frames 1 --print-scenario >"$work/back.txt"
same_scenario "$work/back.txt" "$work/save.txt" || fail "the saved file does not load back equal"
[ "$(json_scale "$work/save.json")" = 0.5 ] ||
  fail "the saved file does not hold the edit"
echo "step 2: saved off the UI thread, loads back equal, holds the edit"

# 3. the real window: the command-line file opens off the UI thread; Ctrl+S then Ctrl+Q at once
cp "$big" "$work/keys.json"
start "$work/keys.json"
wait_for 30 xdotool search --name "keys.json" >/dev/null || fail "keys.json never opened (title)"
quit_and_wait
! grep -q "Cannot open" "$work/app.log" || fail "$(cat "$work/app.log")"
echo "step 3a: the command-line file opened in the interactive window, Ctrl+Q quit"
# --test-edit edits the file itself: it is read before the first frame (app.cpp). Ctrl+Q comes a
# few milliseconds after Ctrl+S, while the save of a file this size usually still runs (saved, quit
# either way). 2048 x 512 x 8 made the race surer but cost 25 s of the suite under ASan.
start "$work/keys.json" --test-edit scale=0.25
wait_for 30 xdotool search --name "keys.json \*" >/dev/null || fail "no edited keys.json window (title)"
hold ctrl s
release s
hold q
release q ctrl
window_quits "Ctrl+S, Ctrl+Q"
[ "$(json_scale "$work/keys.json")" = 0.25 ] ||
  fail "Ctrl+S then Ctrl+Q lost the edit"
echo "step 3b: Ctrl+S then Ctrl+Q: saved, then quit"
echo "PASS"
