#!/bin/sh
# The whole model grid at any length (issue 38, point 1), with real keys under Xvfb: a GPT-2-small-
# shaped grid (12 layers x 12 heads, made tiny by make_wide_model.py) and a sentence of 56 tokens.
#  1. lecture mode at 1280x800: all 144 maps entirely in view, each pooled pixel the largest weight
#     of its block as `attnlab-cli model DIR --text T --attention` computes it (attnlab_gui_model_check);
#  2. hovering a map: its tooltip shows that map at full resolution (a pixel a cell or more), every
#     cell the CLI's weight;
#  3. F11 (lecture mode off, same window): the grid grows and still shows all 144 maps, checked again.
# usage: model_grid_wide.sh APP CLI MODEL_CHECK FIXTURES_DIR
. "$(dirname "$0")/gui_test.sh"
cli=$2
model_check=$3
fixtures=$4
model="$work/gpt2-12x12"
text="The teacher wrote a long sentence on the board so the class could see every head."
log="$work/layout.log"

python3 "$(dirname "$0")/make_wide_model.py" "$fixtures/gpt2-f32" "$model" || fail "make_wide_model.py"
"$cli" model "$model" --text "$text" --attention >"$work/attn.json" || fail "attnlab-cli model --attention"

# model_is EXPR: the layout log's "model" (m) satisfies the Python expression; attn is the CLI's JSON.
model_is() {
  python3 - "$log" "$1" "$work/attn.json" <<'PY' 2>/dev/null
import json, sys
m = json.load(open(sys.argv[1]))["model"]
attn = json.load(open(sys.argv[3]))
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}
lecture_is() { python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["lecture"] != (sys.argv[2] == "on"))' "$log" "$1" 2>/dev/null; }

start "$model" --size 1280x800 --lecture --layout-log "$log" --capture-on "$work/cap"
wait_for "$wait_limit" model_is 'm.get("name") == "gpt2-12x12" and not m["loading"]' || fail "the model folder did not open"
type_text "$text"
wait_for "$wait_limit" model_is 'm["ids"] == attn["ids"] and len(m["ids"]) > 50 and not m["run_stale"]' ||
  fail "the typed text did not run as attnlab-cli's"
move 640 5  # off the maps
capture lecture
"$model_check" "$work/lecture.png" "$work/attn.json" || fail "lecture mode, 1280x800: not every map in view as the model's weights"
echo "step 1: lecture mode at 1280x800, all 144 maps in view, pooled as the model's weights"

map=$(map_centre "$work/lecture.png.json" model/4/6)
[ -n "$map" ] || fail "no map of layer 5, head 7 in the capture"
move $map
capture hover
"$model_check" "$work/hover.png" "$work/attn.json" --tooltip || fail "the hovered map's tooltip is not the full map"
python3 -c 'import json,sys; sys.exit(not any(h["id"] == "model/tooltip/4/6" for h in json.load(open(sys.argv[1]))["heatmaps"]))' \
  "$work/hover.png.json" || fail "the tooltip does not show the hovered map (layer 5, head 7)"
echo "step 2: hovering layer 5, head 7 shows its full-resolution map"

move 640 5
press F11
wait_for "$wait_limit" lecture_is off || fail "F11 did not turn lecture mode off"
capture plain
"$model_check" "$work/plain.png" "$work/attn.json" || fail "1280x800 without lecture mode: not every map in view"
echo "step 3: lecture mode off, all 144 maps in view"
kill9
echo "PASS"
