#!/bin/sh
# The presenter's fallback (issue 23): a view.lesson that cannot be read (--test-edit lesson=broken
# writes one; the loader refuses such files, an edit can still leave one) presents the scenario's
# default lesson, the same steps and matrices as the same scenario without a lesson, rather than
# ending the window.
# usage: presenter_fallback.sh APP PRESET.json (a preset whose own lesson is not its default one)
. "$(dirname "$0")/gui_test.sh"
preset=$2
log="$work/layout.json"
get() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$log" "$1"; }
is() { [ "$(get "$1")" = "$2" ]; }
ids='sorted(h["id"] for h in d["heatmaps"] if h["id"].startswith("presenter/"))'
# present NAME ARGS...: P, then End; writes $work/NAME: the first and the last step's matrices
# and the last step's index.
present() {
  name=$1; shift
  start "$@" --layout-log "$log"
  press p
  wait_for "$wait_limit" is 'd["presenting"] and d["presenter_step"] == 0' True || fail "$name: P did not present"
  wait_for "$wait_limit" is "len($ids) > 0" True || fail "$name: no matrices on the first step"
  get "$ids" >"$work/$name"
  press End
  wait_for "$wait_limit" is '0 < d["presenter_step"] < 1000' True || fail "$name: End did not go to the last step"
  frames 2
  get 'd["presenter_step"]' >>"$work/$name"
  get "$ids" >>"$work/$name"
  window_running || fail "$name: the window ended"
  kill9
  rm -rf "$XDG_STATE_HOME"  # the edited run's autosave: no offer to restore it in the next run
}
python3 - "$preset" "$work/plain.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
del s["view"]["lesson"]
json.dump(s, open(sys.argv[2], "w"))
PY
present own "$preset"
present broken "$preset" --test-edit lesson=broken
present plain "$work/plain.json"
cat "$work/broken"
cmp -s "$work/broken" "$work/plain" || fail "the broken lesson's run did not present the default lesson: $(cat "$work/plain")"
cmp -s "$work/broken" "$work/own" && fail "the preset's own lesson is its default one: the test cannot tell them apart"
echo PASS
