#!/bin/sh
# Crash recovery and the unsaved-changes guard, driven like a user (issue 6). Under Xvfb, on a
# copy of a preset (the test never writes into the source tree):
#  1. open it, make an edit, wait for the autosave, kill -9 the window;
#  2. restart with --restore-autosave yes --print-scenario: the edit comes back;
#  3. kill -9 again, restart with no flag: the "Recover unsaved work?" modal is answered with
#     Enter (xdotool); Ctrl+Shift+S, a new name and Enter save it: the file has the edit, the
#     autosave is gone, the original is untouched; Ctrl+Q then quits at once (nothing unsaved);
#  4. a new edit, Ctrl+Q: the window stays and asks; Enter saves in place and it quits.
# usage: recovery.sh APP PRESET.json
. "$(dirname "$0")/gui_test.sh"
preset=$2
doc="$HOME/lecture.json"
cp "$preset" "$doc"

# 1. edit, autosave, kill -9
start "$doc" --test-edit scale=0.5
wait_for "$wait_limit" autosave_exists || fail "no autosave in $state_dir after $wait_limit s"
autosaved=$(ls "$state_dir"/autosave-*.json)
[ "$(json_scale "$autosaved" autosave)" = "0.5" ] || fail "the autosave does not hold the edit"
kill9
echo "step 1: autosaved $(basename "$autosaved"), killed with -9"

# 2. scripted restart: the edit is restored
"$app" --screenshot "$work/restored.png" --restore-autosave yes --print-scenario >"$work/restored.json"
[ "$(json_scale "$work/restored.json")" = "0.5" ] || fail "restore did not bring back scale 0.5"
ls "$state_dir"/autosave-*.json >/dev/null || fail "a scripted restore must leave the autosave"
echo "step 2: --restore-autosave yes brought back scale 0.5"

# 3. real input: Enter restores, Ctrl+Shift+S + a name + Enter saves a copy, Ctrl+Q quits
start "$doc"
until_seen "the offer to recover" field_is popup "Recover unsaved work?###recovery"
press Return
press ctrl shift s
type_text copy.json
press Return
saved="$HOME/copy.json"
wait_for "$wait_limit" test -f "$saved" || fail "Ctrl+Shift+S, copy.json, Enter did not save $saved"
[ "$(json_scale "$saved")" = "0.5" ] || fail "the saved file does not hold the restored edit"
cmp -s "$doc" "$preset" || fail "Save As changed the original file"
wait_for "$wait_limit" no_autosave || fail "the autosave was not removed after saving"
quit_and_wait
echo "step 3: restored with Enter, saved as copy.json, autosave removed, quit"

# 4. unsaved changes: Ctrl+Q asks first
start "$saved" --test-edit scale=0.25
wait_for "$wait_limit" title_is " copy.json \\*\$" || fail "the --test-edit edit never showed in the title"
press ctrl q
until_seen "the question about unsaved changes" field_is popup "Unsaved changes###save_changes"
window_running || fail "Ctrl+Q quit without asking about unsaved changes"
press Return  # Save (the document has a file now: saved in place)
window_quits "Save in the guard"
[ "$(json_scale "$saved")" = "0.25" ] || fail "the guard's Save did not write the edit"
! ls "$state_dir"/autosave-*.json >/dev/null 2>&1 || fail "a clean exit left an autosave"
echo "step 4: Ctrl+Q asked, Enter saved and quit"
echo "PASS"
