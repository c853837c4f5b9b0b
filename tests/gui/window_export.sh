#!/bin/sh
# Export from the window with real input (issue 4), under Xvfb:
#  - F12 writes a PNG of the framebuffer's size, Shift+F12 one twice that size (offscreen);
#  - right-click the Q heatmap > Export PNG > 2x, Enter in the file browser: the file is byte for
#    byte the one `attnlab-cli export --what Q --head 0 --scale 2` writes; the same for Export SVG
#    and Export CSV.
# The heatmap is found in the layout dump of a --screenshot run at the same window size; the menu
# rows sit 22 px apart (16 px font + 6 px spacing) below the pointer, and for this preset's Q the
# menu is about 260 px wide, so its "Export PNG" submenu opens 262 px right of the pointer.
# usage: window_export.sh APP CLI PRESET.json
. "$(dirname "$0")/gui_test.sh"
cli=$2
preset=$3
png_size() { python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(24); print("%dx%d" % struct.unpack(">II", d[16:24]))' "$1"; }
newest() { ls -t "$1" 2>/dev/null | head -1; }

# Where the queries Q of head 0 are drawn (window coordinates = screen: no window manager).
layout "$preset"
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

start "$preset"

# F12 and Shift+F12
press F12
wait_for "$wait_limit" sh -c "ls '$XDG_PICTURES_DIR'/*.png" >/dev/null 2>&1 || fail "F12 wrote nothing into $XDG_PICTURES_DIR"
shot=$XDG_PICTURES_DIR/$(newest "$XDG_PICTURES_DIR")
wait_for "$wait_limit" png_done "$shot" || fail "F12: the PNG was never finished"
[ "$(png_size "$shot")" = "1280x800" ] || fail "F12: $(png_size "$shot"), expected 1280x800"
press shift F12
wait_for "$wait_limit" sh -c "ls '$XDG_PICTURES_DIR' | grep -q '@2x'" || fail "Shift+F12 wrote nothing"
shot2=$XDG_PICTURES_DIR/$(ls "$XDG_PICTURES_DIR" | grep '@2x' | head -1)
wait_for "$wait_limit" png_done "$shot2" || fail "Shift+F12: the PNG was never finished"
[ "$(png_size "$shot2")" = "2560x1600" ] || fail "Shift+F12: $(png_size "$shot2"), expected 2560x1600"
echo "F12: $(png_size "$shot"), Shift+F12: $(png_size "$shot2")"

# Right-click menu rows, below the pointer: title (+18), Export PNG (+46), Export SVG (+68),
# Export CSV (+90); the PNG submenu's rows 1x, 2x, 4x are level with Export PNG and below it.
menu() {  # menu ROW [SUBMENU_ROW]
  right_click "$cx" "$cy"
  move $((cx + 30)) $((cy + $1))
  if [ $# -gt 1 ]; then
    until_seen "the submenu of the row $1 px down" popup_changed "$menu"
    frames 1  # a popup's first frame only measures it
    move $((cx + 200)) $((cy + $1))   # along the row into the submenu
    move $((cx + 320)) $((cy + $1))
    move $((cx + 320)) $((cy + $2))
  fi
  button 1 1
  # the file browser proposes the CLI's file name in the home folder, its name field in front
  until_seen "the file browser" field_is text_input 1
  press Return
}
"$cli" export "$preset" --out "$work/cli" --what Q --head 0 --format png,svg,csv --scale 2 >/dev/null
same() {  # same WINDOW_FILE CLI_FILE
  wait_for "$wait_limit" test -f "$1" || fail "nothing written to $1"
  cmp -s "$1" "$2" || fail "$(basename "$1") differs from the CLI's $(basename "$2")"
  echo "$(basename "$1") == attnlab-cli's $(basename "$2")"
}
menu 46 68
same "$HOME/head0_Q@2x.png" "$work/cli/head0_Q.png"
[ "$(png_size "$HOME/head0_Q@2x.png")" = "964x648" ] || fail "2x PNG: $(png_size "$HOME/head0_Q@2x.png")"
menu 68
same "$HOME/head0_Q.svg" "$work/cli/head0_Q.svg"
menu 90
same "$HOME/head0_Q.csv" "$work/cli/head0_Q.csv"
echo "PASS"
