#!/bin/sh
# The families beyond GPT-2, Llama and Qwen2 in the window (issue 37), with real keys and clicks:
#  1. `attnlab FOLDER` on a Gemma-3-shaped folder (local layers with a window of 4, QK-norm, no
#     tokenizer: typed ids, longer than the window): every layer's and head's map equals
#     `attnlab-cli model FOLDER --ids ... --attention`, keys beyond a local layer's window drawn
#     masked (attnlab_gui_model_check reads each layer's window from the CLI's JSON), and the grid's
#     captions name the local and global layers;
#  2. a click on local layer 1's head 2: that layer is the document, its heatmaps (the window in its
#     mask) equal the core's for `attnlab-cli model ... --layer 0 --out`;
#  3. File > Open model on a Pythia-shaped folder (parallel residual, a quarter of each head
#     rotated, its tokenizer): a typed sentence runs as attnlab-cli's and every map equals its weights.
# usage: model_families.sh APP CLI MODEL_CHECK PIXEL_CHECK FIXTURES_DIR
. "$(dirname "$0")/gui_test.sh"
cli=$2
model_check=$3
pixel_check=$4
gemma="$5/gemma3-text-bf16"
pythia="$5/pythia-f16"
ids="2, 45, 230, 17, 99, 5, 200, 106"
text="Hello there, my friend."
log="$work/layout.log"

"$cli" model "$gemma" --ids "$ids" --attention >"$work/gemma.json" || fail "attnlab-cli model (gemma) --attention"
"$cli" model "$gemma" --ids "$ids" --layer 0 --out "$work/layer0.json" || fail "attnlab-cli model (gemma) --layer 0"
"$cli" model "$pythia" --text "$text" --attention >"$work/pythia.json" || fail "attnlab-cli model (pythia) --attention"
python3 -c 'import json,sys; l=json.load(open(sys.argv[1]))["layers"]; sys.exit(not (l[0].get("window") == 4 and l[0]["caption"] == "local 4" and l[2]["caption"] == "global"))' \
  "$work/gemma.json" || fail "attnlab-cli's JSON does not give layer 1 its window and captions"

model_is() {
  python3 - "$log" "$1" "$work" <<'PY' 2>/dev/null
import json, sys
m = json.load(open(sys.argv[1]))["model"]
gemma, pythia = (json.load(open(sys.argv[3] + "/" + f)) for f in ("gemma.json", "pythia.json"))
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}
wait_model() {  # wait_model EXPR WHAT
  wait_for "$wait_limit" model_is "$1" ||
    fail "$2; the layout log's model: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["model"])' "$log" 2>&1)"
}

start "$gemma" --size 1280x800 --layout-log "$log" --capture-on "$work/cap"
wait_model 'm.get("name") == "gemma3-text-bf16" and not m["loading"]' "the Gemma 3 folder did not open"
type_text "$ids"
wait_model 'm["ids"] == gemma["ids"] and not m["run_stale"]' "the typed ids did not run as attnlab-cli's"
move 640 5  # off the maps: a hovered map shows a tooltip over the others
capture grid
"$model_check" "$work/grid.png" "$work/gemma.json" || fail "the Gemma 3 grid's maps are not the model's weights"
model_is 'm["layer_captions"] == ["local 4", "local 4", "global"]' || fail "the grid's captions do not name the local and global layers"
echo "step 1: every map of the Gemma 3 folder equals attnlab-cli --attention, beyond the window masked"

map=$(map_centre "$work/grid.png.json" model/0/1)
[ -n "$map" ] || fail "no map of head 0.1 in the capture"
click $map
move 640 5
wait_for "$wait_limit" title_is "gemma3-text-bf16-layer-0" || fail "the click did not open layer 0 as the document"
capture layer
"$pixel_check" --shot "$work/layer0.json" "$work/layer.png" || fail "the document's heatmaps are not attnlab-cli's layer 0"
echo "step 2: the click opened local layer 1; its heatmaps, window included, equal attnlab-cli --layer 0"

press ctrl shift o
until_seen "the folder chooser's path field holding the keyboard" field_is text_input 1
press ctrl a
type_text "$pythia"
press Return
wait_model 'm.get("name") == "pythia-f16" and not m["loading"]' "File > Open model: the Pythia folder did not open"
type_text "$text"
wait_model 'm["ids"] == pythia["ids"] and not m["run_stale"]' "the typed sentence did not run as attnlab-cli's on Pythia"
move 640 5
capture pythia
"$model_check" "$work/pythia.png" "$work/pythia.json" || fail "the Pythia grid's maps are not its weights"
echo "step 3: File > Open model opened pythia-f16; every map equals attnlab-cli --attention"
kill9
echo "PASS"
