#!/bin/sh
# Every save dialog proposes a name, selected, so that a typed name replaces it (with real keys
# and clicks under Xvfb): right-click the Q heatmap > Export SVG, type "mine", Enter writes
# exactly mine.svg; Export CSV, "table.csv", Enter writes table.csv; Ctrl+Shift+S, "lesson",
# Enter writes lesson.json. Nothing else is written.
# The right-click menu's rows sit as window_export.sh describes: Export SVG 68 px and Export CSV
# 90 px below the pointer.
# usage: save_name.sh APP PRESET.json
. "$(dirname "$0")/gui_test.sh"
preset=$2
layout "$preset"
cell=$(python3 - "$work/layout.png.json" <<'PY'
import json, sys
for h in json.load(open(sys.argv[1]))["heatmaps"]:
    if h["matrix"] == "Q" and h["head"] == 0:
        print(int(h["x0"] + h["cell"] * 0.5), int(h["y0"] + h["cell"] * 0.5)); break
PY
)
[ -n "$cell" ] || fail "no Q heatmap in the layout dump"
set -- $cell
cx=$1; cy=$2
export_as() {  # export_as ROW NAME: right-click Q, the menu row ROW px down, type NAME, Enter
  right_click "$cx" "$cy"
  click $((cx + 30)) $((cy + $1))
  type_text "$2"
  press Return
}
written() { ls "$HOME" | tr '\n' ' '; }
start "$preset"
export_as 68 mine
wait_for "$wait_limit" test -f "$HOME/mine.svg" || fail "Export SVG, typed mine: no mine.svg (home holds: $(written))"
export_as 90 table.csv
wait_for "$wait_limit" test -f "$HOME/table.csv" || fail "Export CSV, typed table.csv: no table.csv (home holds: $(written))"
press ctrl shift s
type_text lesson
press Return
wait_for "$wait_limit" test -f "$HOME/lesson.json" || fail "Save As, typed lesson: no lesson.json (home holds: $(written))"
[ "$(written)" = "lesson.json mine.svg table.csv " ] || fail "more was written: $(written)"
quit_and_wait
echo "typed names replaced the proposed ones: $(written)"
echo "PASS"
