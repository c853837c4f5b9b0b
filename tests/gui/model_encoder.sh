#!/bin/sh
# An encoder in the window (issue 40, section 3), one launch, real keys and clicks under Xvfb, on the
# tiny BERT folder:
#  1. a sentence and its pair typed in the Model view's two fields: the ids and token types are
#     `attnlab-cli model --text T --pair P`'s, and with no [MASK] the Masked word view says in one
#     line how to choose a word;
#  2. a click on "mat" in the token strip hides it behind [MASK]: the grid's maps equal the weights
#     `attnlab-cli model --text "... [MASK]." --pair P --attention` computes (no causal triangle),
#     and the Masked word view's top 5 are its "masked" words with their p;
#  3. a click on the map of layer 1 head 0 opens that layer; its head 0 switched off in the Heads
#     panel: the masked word's prediction changes as `--heads-off 1.0` says.
# The views are read from the layout log (--layout-log: "model"), the maps from a capture.
# usage: model_encoder.sh APP CLI MODEL_CHECK FIXTURES_DIR
. "$(dirname "$0")/gui_test.sh"
cli=$2
model_check=$3
model="$4/bert-f32"
text="the cat sat on the mat."
masked="the cat sat on the [MASK]."
pair="it was happy."
log="$work/layout.log"
"$cli" model "$model" --text "$masked" --pair "$pair" --attention >"$work/attn.json" || fail "attnlab-cli model --pair"
"$cli" model "$model" --text "$masked" --pair "$pair" --heads-off 1.0 --attention >"$work/off.json" ||
  fail "attnlab-cli model --heads-off 1.0"
"$cli" tokenize "$model" --text "$text" --pair "$pair" >"$work/plain.json" || fail "attnlab-cli tokenize --pair"

# model_is EXPR: the layout log's "model" (m) satisfies the Python expression; attn and off are the
# CLI's JSON, plain its tokenize of the unmasked pair, top() the 5 masked words, same() equal ids
# and p within 1e-4.
model_is() {
  /usr/bin/python3 - "$log" "$1" "$work" <<'PY' 2>/dev/null
import json, sys
m = json.load(open(sys.argv[1]))["model"]
attn, off, plain = (json.load(open(sys.argv[3] + "/" + f)) for f in ("attn.json", "off.json", "plain.json"))
def top(j): return [[p["id"], p["p"]] for p in j["masked"][0]["top"][:5]]
def same(a, b): return len(a) == len(b) == 5 and all(x[0] == y[0] and abs(x[1] - y[1]) < 1e-4 for x, y in zip(a, b))
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}
wait_model() {  # wait_model EXPR WHAT
  wait_for "$wait_limit" model_is "$1" ||
    fail "$2; the layout log's model: $(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["model"])' "$log" 2>&1)"
}

start "$model" --size 1280x800 --layout-log "$log" --capture-on "$work/cap"
wait_model 'm.get("name") == "bert-f32" and not m["loading"]' "the model folder did not open"
type_text "$text"  # the text field takes the keyboard once the model is open
move 640 5
capture_layout fields
click $(centre $(control "model pair"))
type_text "$pair"
wait_model 'm["pair"] == "it was happy." and m["ids"] == plain["ids"] and not m["run_stale"] and m["next"]["masked_word"] and m["next"]["position"] == -1 and m["next"]["note"].startswith("No word to predict: click a word")' \
  "the pair did not run as attnlab-cli tokenize --pair, or the view does not say how to choose a word"
echo "step 1: the pair ran as attnlab-cli's; the Masked word view says how to choose a word"

move 640 5
capture_layout tokens
word=$(control "model token 6")
[ -n "$word" ] || fail "no token 6 (mat) in the token strip"
click $(centre $word)
wait_model 'm["ids"] == attn["ids"] and m["hidden"] == 6 and not m["run_stale"] and m["next"]["position"] == 6 and same(m["next"]["model"], top(attn))' \
  "the click on mat did not hide it and predict attnlab-cli's masked words"
move 640 5
capture grid
"$model_check" "$work/grid.png" "$work/attn.json" || fail "the grid's maps are not the encoder's weights"
echo "step 2: mat clicked: [MASK] in its place, the top 5 and every map equal attnlab-cli --attention"

click $(map_centre "$work/grid.png.json" model/1/0)
wait_for "$wait_limit" title_is "bert-f32-layer-1" || fail "the click did not open layer 1 as the document"
wait_model 'm["document_layer"] == 1 and m["next"]["state"] == "edited" and not m["next"]["stale"] and same(m["next"]["edited"], top(attn))' \
  "layer 1 as the document: its unedited masked word is not the model's"
move 640 5
capture_layout layer
click $(centre $(control "head on 0"))
wait_model 'm["next"]["state"] == "edited" and not m["next"]["stale"] and m["next"]["version"] == m["next"]["document_version"] and same(m["next"]["edited"], top(off)) and same(m["next"]["model"], top(attn))' \
  "head 0 off: the masked word is not attnlab-cli --heads-off 1.0's"
echo "step 3: layer 1 opened, its head 0 off: the masked word as attnlab-cli --heads-off 1.0 predicts"
kill9
echo "PASS"
