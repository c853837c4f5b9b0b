#!/bin/sh
# Export from the window with real input (issue 4), under Xvfb:
#  - F12 writes a PNG of the framebuffer's size, Shift+F12 one twice that size (offscreen);
#  - right-click the Q heatmap > Export PNG > 2x, Enter in the file browser: the file is byte for
#    byte the one `attnlab-cli export --what Q --head 1 --scale 2` writes; the same for Export SVG
#    and Export CSV.
# The heatmap is found in the layout dump of a --screenshot run at the same window size; the menu
# rows sit 22 px apart (16 px font + 6 px spacing) below the pointer, and for this preset's Q the
# menu is about 260 px wide, so its "Export PNG" submenu opens 262 px right of the pointer.
# usage: window_export.sh APP CLI PRESET.json
set -eu
app=$1
cli=$2
preset=$3
. "$(dirname "$0")/isolated_home.sh"
pid=
trap 'test -n "$pid" && kill -9 "$pid" 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
press() {  # ImGui 1.86 misses a key pressed and released within one frame: hold it a moment
  for k in "$@"; do xdotool keydown "$k"; done
  sleep 0.15
  for k in "$@"; do xdotool keyup "$k"; done
  sleep 0.4
}
wait_for() {
  limit=$1; shift
  i=0
  while ! "$@"; do
    i=$((i + 1)); [ "$i" -le $((limit * 10)) ] || return 1; sleep 0.1
  done
}
png_size() { python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(24); print("%dx%d" % struct.unpack(">II", d[16:24]))' "$1"; }
newest() { ls -t "$1" 2>/dev/null | head -1; }

# Where the weights of head 1 are drawn (window coordinates = screen: no window manager).
"$app" "$preset" --screenshot "$work/layout.png" >/dev/null
cell=$(python3 - "$work/layout.png.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for h in doc["heatmaps"]:
    if h["matrix"] != "Q" or h["head"] != 0: continue
    x = h["x0"] + h["cell"] * 0.5; y = h["y0"] + h["cell"] * 0.5
    c = h["clip"]
    if c[0] <= x < c[2] and c[1] <= y < c[3]:
        print(int(x), int(y)); break
PY
)
[ -n "$cell" ] || fail "no visible Q heatmap in the layout dump"
set -- $cell
cx=$1; cy=$2

"$app" "$preset" >"$work/app.log" 2>&1 &
pid=$!
wait_for 15 xdotool search --name attnlab >/dev/null || fail "no window"
sleep 1
xdotool windowfocus "$(xdotool search --name attnlab | head -1)"

# F12 and Shift+F12
press F12
wait_for 5 test -n "$(newest "$XDG_PICTURES_DIR")" || fail "F12 wrote nothing into $XDG_PICTURES_DIR"
shot=$XDG_PICTURES_DIR/$(newest "$XDG_PICTURES_DIR")
[ "$(png_size "$shot")" = "1280x800" ] || fail "F12: $(png_size "$shot"), expected 1280x800"
press shift F12
wait_for 10 sh -c "ls '$XDG_PICTURES_DIR' | grep -q '@2x'" || fail "Shift+F12 wrote nothing"
shot2=$XDG_PICTURES_DIR/$(ls "$XDG_PICTURES_DIR" | grep '@2x' | head -1)
[ "$(png_size "$shot2")" = "2560x1600" ] || fail "Shift+F12: $(png_size "$shot2"), expected 2560x1600"
echo "F12: $(png_size "$shot"), Shift+F12: $(png_size "$shot2")"

# Right-click menu rows, below the pointer: title (+18), Export PNG (+46), Export SVG (+68),
# Export CSV (+90); the PNG submenu's rows 1x, 2x, 4x are level with Export PNG and below it.
menu() {  # menu ROW [SUBMENU_ROW]
  xdotool mousemove "$cx" "$cy"; sleep 0.3
  xdotool mousedown 3; sleep 0.15; xdotool mouseup 3; sleep 0.5
  xdotool mousemove $((cx + 30)) $((cy + $1)); sleep 0.6
  if [ $# -gt 1 ]; then
    xdotool mousemove $((cx + 200)) $((cy + $1)); sleep 0.2   # along the row into the submenu
    xdotool mousemove $((cx + 320)) $((cy + $1)); sleep 0.4
    xdotool mousemove $((cx + 320)) $((cy + $2)); sleep 0.4
  fi
  xdotool mousedown 1; sleep 0.15; xdotool mouseup 1; sleep 0.6
  press Return   # the file browser proposes the CLI's file name in the home folder
  sleep 0.5
}
"$cli" export "$preset" --out "$work/cli" --what Q --head 1 --format png,svg,csv --scale 2 >/dev/null
same() {  # same WINDOW_FILE CLI_FILE
  wait_for 5 test -f "$1" || fail "nothing written to $1"
  cmp -s "$1" "$2" || fail "$(basename "$1") differs from the CLI's $(basename "$2")"
  echo "$(basename "$1") == attnlab-cli's $(basename "$2")"
}
menu 46 68
same "$HOME/head1_Q@2x.png" "$work/cli/head1_Q.png"
[ "$(png_size "$HOME/head1_Q@2x.png")" = "964x648" ] || fail "2x PNG: $(png_size "$HOME/head1_Q@2x.png")"
menu 68
same "$HOME/head1_Q.svg" "$work/cli/head1_Q.svg"
menu 90
same "$HOME/head1_Q.csv" "$work/cli/head1_Q.csv"
echo "PASS"
