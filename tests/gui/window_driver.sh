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

# Named controls from a --screenshot run's layout dump (app/widgets/control_marks.h), for the
# scripts that click them. layout ARGS...: writes $work/layout.png(.json) at the test's size.
layout() { "$app" "$@" --screenshot "$work/layout.png" >/dev/null || fail "layout run: $*"; }
# control ID: "X0 Y0 X1 Y1 ROWS COLS" of control ID in that dump (integers, window coordinates)
control() {
  python3 - "$work/layout.png.json" "$1" <<'PY'
import json, sys
for c in json.load(open(sys.argv[1]))["controls"]:
    if c["id"] == sys.argv[2]:
        print(*[int(round(v)) for v in c["rect"]], c["rows"], c["cols"]); break
PY
}
click() {  # click X Y: a real left click, held for a frame
  xdotool mousemove "$1" "$2"; sleep 0.2
  xdotool mousedown 1; sleep 0.12; xdotool mouseup 1; sleep 0.5
}
double_click() { xdotool mousemove "$1" "$2"; sleep 0.2; xdotool click --repeat 2 --delay 90 1; sleep 0.6; }
# probe X0 Y0 X1 Y1 [R,G,B,TOL]: "R G B SHARE HASH COUNT" of the window's pixels there ($probe:
# attnlab_gui_probe), read back from the X server.
probe() { "$probe" "$(xdotool search --onlyvisible --pid "$pid" --name attnlab | head -1)" "$@"; }
centre() { echo $((($1 + $3) / 2)) $((($2 + $4) / 2)); }  # centre X0 Y0 X1 Y1: the middle
# capture NAME: in a window started with --capture-on "$work/cap", the next frame as
# $work/NAME.png(.json); its dump becomes the layout `control` reads.
capture() {
  rm -f "$work/cap.png" "$work/cap.png.json"
  touch "$work/cap"
  wait_for 10 test -f "$work/cap.png.json" || fail "no capture ($1)"
  sleep 0.3
  cp "$work/cap.png" "$work/$1.png"; cp "$work/cap.png.json" "$work/$1.png.json"
  cp "$work/$1.png.json" "$work/layout.png.json"
}
