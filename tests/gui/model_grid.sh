#!/bin/sh
# A real model folder in the window (issue 24), with real keys and clicks under Xvfb:
#  1. `attnlab FOLDER`, a typed sentence: every layer's and head's map of the Model panel shows the
#     weights `attnlab-cli model FOLDER --text T --attention` computes (attnlab_gui_model_check);
#  2. layers and heads count from 0 as in the CLI (issue 38, point 10): the grid's captions say
#     layer 0, layer 1, head 0, head 1, the hover over layer 1's head 1 says "head 1.1"; a click on it:
#     that layer is the document (the title, head 1 selected, the Heads panel's weights equal the
#     core's for `attnlab-cli model ... --layer 1 --out`);
#  3. unchecking head 0's "on" in the Heads panel: the Next token view shows what
#     `attnlab-cli model ... --heads-off 1.0` predicts; Ctrl+Z gives the model's own back; keys 0
#     and 1 select heads 0 and 1;
#  4. File > Open model (Ctrl+Shift+O) and a typed folder: another model (grouped keys and values,
#     RoPE) runs the same text and its grid follows.
# Throughout (issue 38, point 11), the Heads panel says which document it shows while a model is
# open: the preset the window started with is "not gpt2-f32's", with a button that opens the layer
# last hovered in the grid; the clicked layer is named "gpt2-f32 · layer 1"; once llama is open
# that layer is not llama's, and the button opens llama's layer 1.
# The Next token view is read from the layout log (--layout-log: "model"), the maps from captures.
# usage: model_grid.sh APP CLI MODEL_CHECK PIXEL_CHECK FIXTURES_DIR
. "$(dirname "$0")/gui_test.sh"
cli=$2
model_check=$3
pixel_check=$4
fixtures=$5
model="$fixtures/gpt2-f32"
other="$fixtures/llama-gqa-bf16"
text="The cat sat on the mat."
log="$work/layout.log"

"$cli" model "$model" --text "$text" --attention >"$work/attn.json" || fail "attnlab-cli model --attention"
"$cli" model "$model" --text "$text" --layer 1 --out "$work/layer1.json" || fail "attnlab-cli model --layer 1"
"$cli" model "$model" --text "$text" --heads-off 1.0 --attention >"$work/off.json" || fail "attnlab-cli --heads-off"
"$cli" model "$other" --text "$text" --attention >"$work/other.json" || fail "attnlab-cli model (llama)"

# model_is EXPR: the layout log's "model" (m) satisfies the Python expression; attn, off, other are
# the CLI's JSON, top() its 5 next tokens, same() equal ids and p within 1e-4.
model_is() {
  python3 - "$log" "$1" "$work" <<'PY' 2>/dev/null
import json, sys
m = json.load(open(sys.argv[1]))["model"]
attn, off, other = (json.load(open(sys.argv[3] + "/" + f)) for f in ("attn.json", "off.json", "other.json"))
def top(j): return [[p["id"], p["p"]] for p in j["next"][:5]]
def same(a, b): return len(a) == len(b) == 5 and all(x[0] == y[0] and abs(x[1] - y[1]) < 1e-4 for x, y in zip(a, b))
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}
wait_model() {  # wait_model EXPR WHAT
  wait_for "$wait_limit" model_is "$1" ||
    fail "$2; the layout log's model: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["model"])' "$log" 2>&1)"
}

start "$model" --size 1280x800 --layout-log "$log" --capture-on "$work/cap"
wait_model 'm.get("name") == "gpt2-f32" and not m["loading"]' "the model folder did not open"
type_text "$text"  # the text field takes the keyboard once the model is open
wait_model 'm["ids"] == attn["ids"] and not m["run_stale"] and same(m["next"]["model"], top(attn))' \
  "the typed text did not run as attnlab-cli's"
move 640 5  # off the maps: a hovered map shows a tooltip over the others
capture grid
"$model_check" "$work/grid.png" "$work/attn.json" || fail "the grid's maps are not the model's weights"
echo "step 1: every layer's and head's map equals attnlab-cli --attention"

# banner SHOT: the Heads panel's line naming the document, and its button's layer ("-": none).
banner() {
  python3 - "$work/$1.png.json" <<'PY'
import json, sys
ids = [c["id"] for c in json.load(open(sys.argv[1]))["controls"]]
line = [i[len("document banner Heads: "):] for i in ids if i.startswith("document banner Heads: ")]
button = [i[len("open model layer Heads: "):] for i in ids if i.startswith("open model layer Heads: ")]
print((line or ["-"])[0] + "|" + (button or ["-"])[0])
PY
}
[ "$(banner grid)" = "not the model's|0" ] ||
  fail "with gpt2-f32 open, the Heads panel does not say its preset is not the model's: $(banner grid)"
echo "step 1: the Heads panel says its preset is not gpt2-f32's, with a button for layer 0"

captions() { python3 -c 'import json,sys; print(" ".join(sorted(c["id"][14:].replace(" ", "_") for c in json.load(open(sys.argv[1]))["controls"] if c["id"].startswith("model caption "))))' "$1"; }
[ "$(captions "$work/grid.png.json")" = "head_0 head_1 layer_0 layer_1" ] ||
  fail "the grid's captions do not count from 0: $(captions "$work/grid.png.json")"
map=$(map_centre "$work/grid.png.json" model/1/1)
[ -n "$map" ] || fail "no map of head 1.1 in the capture"
move $map
capture_layout hover
[ -n "$(control "model tooltip head 1.1")" ] ||
  fail "the hover over layer 1's head 1 does not say head 1.1: $(grep -o '"model tooltip[^"]*"' "$work/hover.png.json")"
[ "$(banner hover)" = "not the model's|1" ] || fail "hovering layer 1: the Heads panel's button does not offer it: $(banner hover)"
click $map
move 640 5  # off the maps: no tooltip over the panels captured next
wait_for "$wait_limit" title_is "gpt2-f32-layer-1" || fail "the click did not open layer 1 as the document"
wait_model 'm["document_layer"] == 1 and m["next"]["state"] == "edited" and not m["next"]["stale"] and same(m["next"]["edited"], top(attn))' \
  "layer 2 as the document: its unedited prediction is not the model's"
capture layer
python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["selected_head"] != 1)' "$work/layer.png.json" ||
  fail "the clicked head (1) is not selected"
"$pixel_check" --shot "$work/layer1.json" "$work/layer.png" || fail "the document's weights are not attnlab-cli's layer 1"
[ "$(banner layer)" = "gpt2-f32 · layer 1|-" ] || fail "the Heads panel does not name the layer it shows: $(banner layer)"
echo "step 2: captions from 0, the hover says head 1.1; the click opened layer 1 (head 1 selected), its weights equal attnlab-cli --layer 1"

box=$(control "head on 0")
[ -n "$box" ] || fail "no 'on' checkbox of head 0 in the capture"
click $(centre $box)
wait_model 'm["next"]["state"] == "edited" and not m["next"]["stale"] and m["next"]["version"] == m["next"]["document_version"] and same(m["next"]["edited"], top(off)) and same(m["next"]["model"], top(attn))' \
  "head 0 off: the Next token view is not attnlab-cli --heads-off 1.0's"
echo "step 3: head 0 of layer 1 off, the next token as attnlab-cli --heads-off 1.0 predicts"
press ctrl z
wait_model 'not m["next"]["stale"] and m["next"]["version"] == m["next"]["document_version"] and same(m["next"]["edited"], top(attn))' \
  "Ctrl+Z: the Next token view did not return to the model's own"
echo "step 3: Ctrl+Z, the model's own prediction again"
selected() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["selected_head"])' "$work/$1.png.json"; }
press 0  # the number keys count heads from 0 too
capture_layout key0
[ "$(selected key0)" = 0 ] || fail "key 0 did not select head 0: selected $(selected key0)"
press 1
capture_layout key1
[ "$(selected key1)" = 1 ] || fail "key 1 did not select head 1: selected $(selected key1)"
echo "step 3: keys 0 and 1 select heads 0 and 1"

press ctrl shift o
until_seen "the folder chooser's path field holding the keyboard" field_is text_input 1
press ctrl a
type_text "$other"
press Return
wait_model 'm.get("name") == "llama-gqa-bf16" and m["ids"] == other["ids"] and not m["run_stale"]' \
  "File > Open model: the llama folder did not open and run the text"
move 640 5  # no tooltip (the Heads panel's checkbox was the last thing pointed at) over the grid
capture other
"$model_check" "$work/other.png" "$work/other.json" || fail "the llama grid's maps are not its weights"
echo "step 4: File > Open model opened llama-gqa-bf16; every map equals attnlab-cli --attention"
[ "$(banner other)" = "not the model's|1" ] || fail "gpt2-f32's layer 1 is not said to be another model's: $(banner other)"
click $(centre $(control "open model layer Heads: 1"))
wait_for "$wait_limit" title_is "llama-gqa-bf16-layer-1" || fail "the Heads panel's button did not open llama's layer 1"
move 640 5
capture_layout llama_layer
[ "$(banner llama_layer)" = "llama-gqa-bf16 · layer 1|-" ] || fail "llama's layer 1 is not named: $(banner llama_layer)"
echo "step 4: the Heads panel said gpt2-f32's layer is not llama's; its button opened llama's layer 1"
kill9
echo "PASS"
