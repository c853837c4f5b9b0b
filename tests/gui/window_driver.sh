# Sourced by the window test scripts (through gui_test.sh, after isolated_home.sh, which gives
# $work) to drive a real window with xdotool. Sets $pid to the running window; `fail` shows its log.
# Nothing here sleeps a fixed time: each step waits, up to $wait_limit seconds, for the state the
# next one needs, above all for a frame to have seen an input (the harness's --input-log, one line
# rewritten after every frame: app/instruments/input_log.h). A timeout is a failure. (The one sleep
# left, in after_last_click, is for a time ImGui measures by the wall clock.)
pid=
trap 'test -n "$pid" && kill -9 "$pid" 2>/dev/null; rm -rf "$work"' EXIT
# Generous: under AddressSanitizer on a 2-core machine without a GPU a frame can take long.
wait_limit=${ATTNLAB_TEST_WAIT_SECONDS:-30}
input_log="$work/input.log"
wake="$work/wake"

fail() {
  echo "FAIL: $*"
  tail -5 "$work/app.log" 2>/dev/null
  [ -n "$pid" ] && seen_line && [ -n "$line" ] && echo "the last frame saw: $line"
  if [ -n "$pid" ] && [ -n "${ATTNLAB_TEST_SHOTS:-}" ]; then  # keep what the window showed
    xdotool key F12
    wait_for 10 sh -c "ls '$XDG_PICTURES_DIR'/*.png" >/dev/null 2>&1 || true
    cp "$XDG_PICTURES_DIR"/*.png "$ATTNLAB_TEST_SHOTS"/ 2>/dev/null
  fi
  exit 1
}
wait_for() {  # wait_for SECONDS COMMAND...: poll until COMMAND succeeds; false after SECONDS
  deadline=$(($(date +%s) + $1)); shift
  while ! "$@"; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.05
  done
}
window_running() { [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; }
window_gone() { ! kill -0 "$pid" 2>/dev/null; }

# The input log: `seen_line` reads it into $line; `seen_field NAME` prints one field's value.
seen_line() { line=; IFS= read -r line <"$input_log" 2>/dev/null || true; }
seen_field() { seen_line; v=" $line"; v=${v#* "$1"=}; echo "${v%% *}"; }
# until_seen WHAT TEST [ARGS...]: poll the input log (builtins only: fast) until TEST succeeds.
# Fails after $wait_limit s, or at once if the window exits (unless $exit_ok is set: then returns).
until_seen() {
  what=$1; shift
  n=0
  deadline=$(($(date +%s) + wait_limit))
  until "$@"; do
    if ! window_running; then
      [ -n "${exit_ok:-}" ] && return 0
      fail "the window exited while waiting for a frame to see $what"
    fi
    n=$((n + 1))  # the clock read every 50th poll only: a poll is builtins but for the sleep
    [ $((n % 50)) -ne 0 ] || [ "$(date +%s)" -lt "$deadline" ] || fail "no frame saw $what within ${wait_limit} s"
    sleep 0.02
  done
}
# Tests on the last frame's line (fields: app/instruments/input_log.h).
field_is() { seen_line; case " $line " in *" $1=$2 "*) return 0 ;; esac; return 1; }
field_at_least() { seen_line; v=" $line"; v=${v#* "$1"=}; v=${v%% *}; [ -n "$v" ] && [ "$v" -ge "$2" ]; }
field_at_most() { seen_line; v=" $line"; v=${v#* "$1"=}; v=${v%% *}; [ -n "$v" ] && [ "$v" -le "$2" ]; }
window_drawn() { [ -s "$input_log" ]; }

# Keys. ImGui 1.86 reads the keys' state once a frame and misses a key pressed and released within
# one: hold KEY... down until a frame has seen them, release them until a frame has seen that.
# The log counts the keys held, so a press starts once a frame saw only the keys held on purpose
# (a key typed just before may not be released yet).
keys_down=0
hold() {  # hold KEY...: press KEYs (xdotool names) and keep them down
  until_seen "no other key held" field_is held "$keys_down"
  keys_down=$((keys_down + $#))
  xdotool keydown "$@"
  until_seen "$* held" field_at_least held "$keys_down"
}
release() {  # release KEY...: the keys may quit the window (Ctrl+Q): then nothing more is seen
  keys_down=$((keys_down - $#))
  xdotool keyup "$@"
  exit_ok=1
  until_seen "$* released" field_at_most held "$keys_down"
  exit_ok=
}
press() { hold "$@"; release "$@"; }  # press KEY...: one press of KEYs together (ctrl s)
# frames N: wait until N more frames were drawn (what the last input set off has settled). The
# window draws them one after another while $wake is there (--wake-on): an idle window would wait
# up to 0.5 s between frames, a test that counts frames need not.
frames() {
  target=$(($(seen_field frame) + $1))
  touch "$wake"
  until_seen "frame $target" field_at_least frame "$target"
  rm -f "$wake"
}
# type_text TEXT: typed into the text field that holds the keyboard, once it does; returns once a
# frame has seen every character.
type_text() {
  until_seen "a text field holding the keyboard" field_is text_input 1
  chars=$(seen_field chars)
  xdotool type --delay 20 "$1"
  until_seen "'$1' typed" field_at_least chars $((chars + ${#1}))
  until_seen "the keys of '$1' released" field_is held "$keys_down"
}

# The mouse, in window coordinates (= the screen's: no window manager, the window at 0,0).
move() {  # move X Y: once a frame has seen the mouse there
  xdotool mousemove "$1" "$2"
  until_seen "the mouse at $1,$2" field_is pos "$1,$2"
}
button() {  # button XDOTOOL_BUTTON BITS: press and release it, each seen by a frame
  xdotool mousedown "$1"
  until_seen "mouse button $1 down" field_is buttons "$2"
  xdotool mouseup "$1"
  until_seen "mouse button $1 up" field_is buttons 0
  last_click=$(date +%s%N)
}
# ImGui takes a click less than io.MouseDoubleClickTime (0.3 s, its clock is the wall clock) after
# the last one for the next of a multi-click: a double-click waits until it would start a new count.
last_click=0
after_last_click() {
  left=$((last_click + 350000000 - $(date +%s%N)))
  [ "$left" -le 0 ] || sleep "$(printf '0.%09d' "$left")"
}
click() { move "$1" "$2"; button 1 1; }        # click X Y: a real left click
# right_click X Y: a real right click, which opens a context menu: returns once it is drawn
right_click() {
  move "$1" "$2"
  button 3 2
  until_seen "a menu open after the right click at $1,$2" popup_open
  menu=$(seen_popup)
  frames 1  # a popup's first frame only measures it
}
seen_popup() { seen_line; echo "${line#* popup=}"; }
popup_open() { ! field_is popup -; }
# popup_changed FROM: another popup than FROM is in front (a submenu opened, a dialog)
popup_changed() { seen_line; [ "${line#* popup=}" != "$1" ]; }
# double_click X Y: two clicks, each seen by its own frame, which ImGui took for a double-click
# (within its 0.3 s: each click is sent whole, the second as soon as a frame saw the first end).
double_click() {
  move "$1" "$2"
  after_last_click
  doubles=$(seen_field double_clicks)
  for _ in 1 2; do
    clicks=$(seen_field clicks)
    xdotool click 1
    until_seen "a click at $1,$2" field_at_least clicks $((clicks + 1))
    until_seen "the button up at $1,$2" field_is buttons 0
  done
  last_click=$(date +%s%N)
  field_at_least double_clicks $((doubles + 1)) || fail "two clicks at $1,$2 were not seen as a double-click"
}
# type_cell GRID ROW COL TEXT: TEXT typed into cell (ROW, COL) of matrix editor GRID (the control
# "grid:GRID" of the last dump) with a real double-click, then Enter
type_cell() {
  grid=$1 row=$2 col=$3 text=$4
  set -- $(control "grid:$grid")
  [ $# -eq 6 ] || fail "no grid:$grid in the layout"
  double_click $(($1 + ($3 - $1) * (2 * col + 1) / (2 * $6))) $(($2 + ($4 - $2) * (2 * row + 1) / (2 * $5)))
  type_text "$text"
  press Return
}
scroll() {  # scroll N: N notches of the wheel where the mouse is, down (N < 0: up), all seen
  wheel=$(seen_field wheel)
  if [ "$1" -gt 0 ]; then xdotool click --repeat "$1" --delay 20 5; else xdotool click --repeat $((-$1)) --delay 20 4; fi
  until_seen "$1 wheel notches" field_is wheel $((wheel - $1))
}

start() {  # start ARGS...: the interactive window, its first frame drawn, focused
  rm -f "$input_log"
  "$app" "$@" --input-log "$input_log" --wake-on "$wake" >"$work/app.log" 2>&1 &
  pid=$!
  until_seen "a first frame" window_drawn
  window=$(xdotool search --pid "$pid" --name attnlab | head -1)
  [ -n "$window" ] || fail "no window of pid $pid"
  xdotool windowfocus "$window"
  wait_for "$wait_limit" sh -c "[ \"\$(xdotool getwindowfocus)\" = '$window' ]" || fail "the window did not take the focus"
}
kill9() { kill -9 "$pid"; wait "$pid" 2>/dev/null || true; pid=; }
window_quits() {  # window_quits WHAT: wait until the window has exited, with status 0
  wait_for "$wait_limit" window_gone || fail "$1: the window did not quit"
  status=0; wait "$pid" || status=$?
  pid=
  [ "$status" -eq 0 ] || fail "$1: the window exited with status $status"
}
quit_and_wait() {  # Ctrl+Q with nothing unsaved: the window quits at once
  press ctrl q
  window_quits "Ctrl+Q with nothing unsaved"
}
# title_is REGEX: the window's title (attnlab — NAME, " *" while unsaved) matches REGEX
title_is() { xdotool search --name "$1" >/dev/null 2>&1; }
# save NAME: Ctrl+S, then wait until the title says the document NAME is saved (no " *")
save() {
  press ctrl s
  wait_for "$wait_limit" title_is " $1\$" || fail "Ctrl+S: the title never showed $1 saved"
}
state_dir="$XDG_STATE_HOME/attnlab"
autosave_exists() { ls "$state_dir"/autosave-*.json >/dev/null 2>&1; }
no_autosave() { ! autosave_exists; }
# json_scale FILE [autosave]: the scenario's "scale" (an autosave wraps the scenario)
json_scale() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print((d["scenario"] if sys.argv[2:] else d)["scale"])' "$@"
}
# png_done FILE: the PNG is written to its end (F12 writes it in place; its last chunk is IEND)
png_done() { [ "$(tail -c 8 "$1" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 49454e44ae426082 ]; }

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
# probe X0 Y0 X1 Y1 [R,G,B,TOL]: "R G B SHARE HASH COUNT" of the window's pixels there ($probe:
# attnlab_gui_probe), read back from the X server.
probe() { "$probe" "$(xdotool search --onlyvisible --pid "$pid" --name attnlab | head -1)" "$@"; }
centre() { echo $((($1 + $3) / 2)) $((($2 + $4) / 2)); }  # centre X0 Y0 X1 Y1: the middle
# map_centre DUMP ID: "X Y" of the centre of heatmap ID in a capture's dump (a model map: model/L/H)
map_centre() {
  python3 - "$1" "$2" <<'PY'
import json, sys
for h in json.load(open(sys.argv[1]))["heatmaps"]:
    if h["id"] == sys.argv[2]:
        print(int(h["x0"] + h["cell"] * h["cols"] / 2), int(h["y0"] + h["cell"] * h["rows"] / 2)); break
PY
}
# capture NAME: in a window started with --capture-on "$work/cap", the next frame as
# $work/NAME.png(.json); its dump becomes the layout `control` reads. The harness wakes an idle
# window when the trigger appears and writes the dump (atomically) after the PNG.
capture() {
  rm -f "$work/cap.png" "$work/cap.png.json"
  touch "$work/cap"
  wait_for "$wait_limit" test -f "$work/cap.png.json" || fail "no capture ($1)"
  cp "$work/cap.png" "$work/$1.png"; cp "$work/cap.png.json" "$work/$1.png.json"
  cp "$work/$1.png.json" "$work/layout.png.json"
}
# capture_layout NAME: as capture, but only $work/NAME.png.json: no pixels read back, no PNG
# written (about 0.2 s of CPU less a capture at 1280x800), for a check that reads only the dump.
capture_layout() {
  rm -f "$work/cap.png" "$work/cap.png.json"
  echo layout >"$work/cap.next" && mv "$work/cap.next" "$work/cap"  # whole when the window reads it
  wait_for "$wait_limit" test -f "$work/cap.png.json" || fail "no capture ($1)"
  cp "$work/cap.png.json" "$work/$1.png.json"
  cp "$work/$1.png.json" "$work/layout.png.json"
}
