#!/bin/sh
# No character is drawn without a glyph (issue 38, point 3): a font lacking one draws "?", as the
# Tiles tab did for every minus sign (U+2212) in its large cells. Each capture's dump counts such
# characters window by window (app/instruments/glyph_check.h); every count must be zero:
#  1. the Vaswani preset's Tiles tab at 1920x1080, and in lecture mode at 1280x800;
#  2. the FlashAttention preset, real keys: lecture mode on and off again (F11 twice), the Tiles tab,
#     then lecture mode on, the Tiles tab.
# (Every preset's Pipeline is checked the same way by gui_pixels_*.)
# usage: glyphs.sh APP PRESETS_DIR
. "$(dirname "$0")/gui_test.sh"
presets=$2
no_fallbacks() {  # no_fallbacks DUMP WHAT
  python3 - "$1" <<'PY' || fail "$2: characters drawn without a glyph"
import json, sys
counts = json.load(open(sys.argv[1]))["fallback_glyphs"]
print("fallback glyphs: %s" % counts)
sys.exit(1 if counts else 0)
PY
}
"$app" "$presets/vaswani-q2-is-attends.json" --size 1920x1080 --show-panel Tiles --screenshot "$work/tiles.png" \
  >"$work/app.log" 2>&1 || fail "the Tiles screenshot"
no_fallbacks "$work/tiles.png.json" "Vaswani, Tiles, 1920x1080"
"$app" "$presets/vaswani-q2-is-attends.json" --size 1280x800 --lecture --show-panel Tiles \
  --screenshot "$work/tiles-lecture.png" >"$work/app.log" 2>&1 || fail "the Tiles screenshot in lecture mode"
no_fallbacks "$work/tiles-lecture.png.json" "Vaswani, Tiles, lecture mode, 1280x800"
echo "step 1: the Tiles tab draws every character, in both modes"

start "$presets/modern-flashattention-tiles.json" --size 1920x1080 --show-panel Tiles --capture-on "$work/cap" \
  --layout-log "$work/layout.log"
lecture_is() { python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["lecture"] != (sys.argv[2] == "on"))' "$work/layout.log" "$1" 2>/dev/null; }
press F11
wait_for "$wait_limit" lecture_is on || fail "F11 did not turn lecture mode on"
press F11
wait_for "$wait_limit" lecture_is off || fail "F11 did not turn lecture mode off"
capture off-again
no_fallbacks "$work/off-again.png.json" "FlashAttention, lecture mode on and off"
press F11
wait_for "$wait_limit" lecture_is on || fail "F11 did not turn lecture mode on again"
capture lecture
no_fallbacks "$work/lecture.png.json" "FlashAttention, lecture mode"
echo "step 2: lecture mode on, off and on again: every character drawn"
kill9
echo "PASS"
