#!/bin/sh
# Short key taps act exactly once (issue 26.7), under Xvfb. Each tap holds its keys 5 ms, as
# xdotool and presentation clickers send them, so the press and the release come between two
# frames, which ImGui 1.86 alone never saw. Taps come in bursts, several between two frames.
#  1. Ctrl+L tapped 6 times: lecture mode changed 6 times, no more;
#  2. three edits undone, Ctrl+Shift+Z tapped 3 times: three redos (the version moved by 3);
#  3. Ctrl+Shift+S tapped: the Save As dialog opens; "x" typed over the proposed name, Ctrl+A
#     tapped, "taps.json" typed, Enter: the file is saved as taps.json (not xtaps.json).
# usage: key_taps.sh APP PRESET
. "$(dirname "$0")/gui_test.sh"
preset=$2
tap() { xdotool keydown "$1" sleep 0.005 keyup "$1"; }  # one tap of a chord (ctrl+l), held 5 ms

start "$preset" --size 1280x800 --test-edit "scale=0.5,scale=0.7,scale=0.9,undo,undo,undo"
until_seen "three edits undone" field_is redo 3
frames 2

for _ in 1 2 3 4 5 6; do tap ctrl+l; done
until_seen "six lecture mode changes" field_is lecture_toggles 6
frames 4
field_is lecture_toggles 6 || fail "Ctrl+L tapped 6 times changed lecture mode $(seen_field lecture_toggles) times"

version=$(seen_field version)
for _ in 1 2 3; do tap ctrl+shift+z; done
until_seen "three redos" field_is redo 0
frames 4
[ "$(seen_field version)" -eq $((version + 3)) ] ||
  fail "Ctrl+Shift+Z tapped 3 times moved the version from $version to $(seen_field version), not by 3"

tap ctrl+shift+s
until_seen "the Save As dialog" popup_open
frames 2
type_text x
tap ctrl+a
type_text taps.json
press Return
wait_for "$wait_limit" title_is " taps.json( \\*)?\$" || fail "Save As did not save taps.json: $(xdotool getwindowname "$window")"
[ -z "$(find "$work" -name xtaps.json)" ] || fail "Ctrl+A was lost: the name typed after it was appended (xtaps.json)"
quit_and_wait
echo "PASS: Ctrl+L x6, Ctrl+Shift+Z x3, Ctrl+Shift+S and Ctrl+A, each tapped for 5 ms, each acted once"
