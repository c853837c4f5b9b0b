# Sourced by the window test scripts that drive a real window with xdotool (after
# isolated_home.sh, which gives $work). Sets $pid to the running window; `fail` shows its log.
pid=
trap 'test -n "$pid" && kill -9 "$pid" 2>/dev/null; rm -rf "$work"' EXIT

fail() {
  echo "FAIL: $*"
  tail -5 "$work/app.log" 2>/dev/null
  if [ -n "$pid" ] && [ -n "${ATTNLAB_TEST_SHOTS:-}" ]; then  # keep what the window showed
    xdotool key F12; sleep 1; cp "$XDG_PICTURES_DIR"/*.png "$ATTNLAB_TEST_SHOTS"/ 2>/dev/null
  fi
  exit 1
}
# ImGui 1.86 misses a key pressed and released within one frame: hold keys for a moment.
press() {
  for k in "$@"; do xdotool keydown "$k"; done
  sleep 0.15
  for k in "$@"; do xdotool keyup "$k"; done
  sleep 0.4
}
wait_for() {  # wait_for SECONDS COMMAND...: poll until COMMAND succeeds
  limit=$1; shift
  i=0
  while ! "$@"; do
    i=$((i + 1))
    [ "$i" -le $((limit * 10)) ] || return 1
    sleep 0.1
  done
}
start() {  # start ARGS...: interactive window, focused
  "$app" "$@" >"$work/app.log" 2>&1 &
  pid=$!
  wait_for 15 xdotool search --name attnlab >/dev/null || fail "no window"
  sleep 1
  xdotool windowfocus "$(xdotool search --name attnlab | head -1)"
}
kill9() { kill -9 "$pid"; wait "$pid" 2>/dev/null || true; pid=; }
quit_and_wait() {  # Ctrl+Q with nothing unsaved: the window quits at once
  press ctrl q
  wait_for 5 sh -c "! kill -0 $pid 2>/dev/null" || fail "Ctrl+Q with nothing unsaved did not quit"
  pid=
}
state_dir="$XDG_STATE_HOME/attnlab"
autosave_exists() { ls "$state_dir"/autosave-*.json >/dev/null 2>&1; }
no_autosave() { ! autosave_exists; }
# json_scale FILE [autosave]: the scenario's "scale" (an autosave wraps the scenario)
json_scale() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print((d["scenario"] if sys.argv[2:] else d)["scale"])' "$@"
}
