#!/bin/sh
# A folder without a tokenizer is no dead end in the window (issue 38, point 8): the Model view
# takes token ids, typed with real keys as `attnlab-cli model DIR --ids` takes them, and its grid
# shows every layer's and head's weights of those ids (attnlab_gui_model_check against the CLI).
# usage: model_ids.sh APP CLI MODEL_CHECK FIXTURES_DIR
. "$(dirname "$0")/gui_test.sh"
cli=$2
model_check=$3
model="$work/gpt2-no-tokenizer"
cp -r "$4/gpt2-f32" "$model"
rm "$model/vocab.json" "$model/merges.txt"
log="$work/layout.log"
"$cli" model "$model" --ids 83,9,40,7 --attention >"$work/attn.json" || fail "attnlab-cli model --ids --attention"
model_is() {
  python3 - "$log" "$1" "$work/attn.json" <<'PY' 2>/dev/null
import json, sys
m = json.load(open(sys.argv[1]))["model"]
attn = json.load(open(sys.argv[3]))
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}
start "$model" --size 1280x800 --layout-log "$log" --capture-on "$work/cap"
wait_for "$wait_limit" model_is 'm.get("name") == "gpt2-no-tokenizer" and not m["loading"]' ||
  fail "the folder without a tokenizer did not open"
type_text "83, 9, 40, 7"
wait_for "$wait_limit" model_is 'm["ids"] == attn["ids"] and not m["run_stale"]' ||
  fail "the typed ids did not run: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["model"])' "$log")"
move 640 5
capture grid
"$model_check" "$work/grid.png" "$work/attn.json" || fail "the grid's maps are not the weights of attnlab-cli --ids"
echo "step 1: typed ids ran; every layer's and head's map equals attnlab-cli --ids --attention"
kill9
echo "PASS"
