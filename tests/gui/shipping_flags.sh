#!/bin/sh
# attnlab, the binary users run, accepts only the user's flags; the test and benchmark flags belong
# to attnlab-harness. Each instrument flag given to attnlab is bad usage: exit status 2, one line
# on stderr naming it and a pointer to --help, nothing on stdout, no file written. DISPLAY is unset, so
# a window could not open anyway: the message must be the bad-usage one, not a display error.
# Then attnlab --help lists exactly the flags it accepts, and those work: a screenshot through
# attnlab writes the PNG only (the harness adds OUT.png.json), with the harness's pixels.
# usage: shipping_flags.sh ATTNLAB HARNESS SCENARIO   (run under xvfb-run for the last part)
. "$(dirname "$0")/gui_test.sh"
harness=$2
scenario=$3
failed=0
fail() { echo "FAIL: $*"; failed=1; }
user_flags="--frames --head --help --lecture --screenshot --size --version"
instrument_flags="--bench-edit --bench-frames --bench-model-typing --bench-open --bench-save --bench-startup --capture-on
--capture-stale --check-open --edit-cell --edit-every --edit-what --first-run-hint --head-first --hold-patching --input-log
--layout-log --model-heads-off --model-layer --model-pair --model-text --print-scenario --print-view
--restore-autosave --show-panel --smoke --test-edit --test-edit-next --trace-stats --type-every-ms --wake-on"
flags_in() { grep -o -- '--[a-z][a-z-]*' | sort -u | tr '\n' ' ' | sed 's/ $//'; }

# The harness's own flags minus attnlab's are exactly the instrument flags checked here.
extra=$("$harness" --help | flags_in | tr ' ' '\n' | grep -vxF -e "$(echo "$user_flags" | tr ' ' '\n')" |
        tr '\n' ' ' | sed 's/ $//')
[ "$extra" = "$(echo $instrument_flags)" ] || fail "harness flags not covered here: '$extra'"

out=$work/out
mkdir -p "$out"
for flag in $instrument_flags; do
  for args in "$flag" "$flag 20" "$scenario --screenshot $out/shot.png $flag 1"; do
    status=0
    # shellcheck disable=SC2086  # the arguments are words on purpose
    env -u DISPLAY -u WAYLAND_DISPLAY "$app" $args >"$work/stdout" 2>"$work/stderr" || status=$?
    [ "$status" -eq 2 ] || fail "attnlab $args: exit status $status, expected 2"
    [ -s "$work/stdout" ] && fail "attnlab $args: printed on stdout: $(head -c 200 "$work/stdout")"
    [ "$(sed -n 1p "$work/stderr")" = "attnlab: unknown option $flag" ] ||
      fail "attnlab $args: first line on stderr: '$(sed -n 1p "$work/stderr")'"
    [ "$(sed -n 2p "$work/stderr")" = "Run 'attnlab --help' for the options." ] || fail "attnlab $args: no pointer to --help"
    [ "$(wc -l <"$work/stderr")" -eq 2 ] || fail "attnlab $args: $(wc -l <"$work/stderr") lines on stderr"
    [ -z "$(ls -A "$out")" ] || fail "attnlab $args: wrote $(ls "$out")"
  done
done
echo "attnlab refused $(echo $instrument_flags | wc -w) instrument flags"

help=$("$app" --help | flags_in)
[ "$help" = "$user_flags" ] || fail "attnlab --help lists '$help', expected '$user_flags'"

# The user's flags work, and attnlab's screenshot is the harness's (without the layout dump).
"$app" "$scenario" --screenshot "$out/attnlab.png" --frames 3 --size 1024x700 --head 0 --lecture ||
  fail "attnlab with every user flag: exit status $?"
"$harness" "$scenario" --screenshot "$out/harness.png" --frames 3 --size 1024x700 --head 0 --lecture ||
  fail "attnlab-harness: exit status $?"
[ -f "$out/attnlab.png" ] || fail "attnlab --screenshot wrote no PNG"
[ -e "$out/attnlab.png.json" ] && fail "attnlab --screenshot wrote a layout dump"
[ -f "$out/harness.png.json" ] || fail "attnlab-harness --screenshot wrote no layout dump"
cmp -s "$out/attnlab.png" "$out/harness.png" || fail "attnlab's and the harness's screenshots differ"
[ "$failed" -eq 0 ] && echo "attnlab --help: $help; screenshots equal"
exit "$failed"
