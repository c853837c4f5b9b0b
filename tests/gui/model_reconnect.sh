#!/bin/sh
# A saved layer reconnects to its model (issue 38, point 2), with real keys and clicks: a typed
# sentence, a click on head 1.1 (layer 1's head 1), head 0 switched off, Ctrl+Shift+S, quit; then
# `attnlab saved.json` in a new window reopens the model folder with the sentence (the grid runs
# it again) and Next token predicts after the saved edit, as `attnlab-cli model --heads-off 1.0` does.
# In the same window, a copy whose recorded folder is gone: Next token, the Model tab and the
# status bar say so, Next token and the Model tab beside Locate…; a folder of other weights chosen
# there is refused in one line, the folder of its weights reconnects it (Next token after the edit
# again) and Save records where the folder is now.
# usage: model_reconnect.sh APP CLI FIXTURES_DIR
. "$(dirname "$0")/gui_test.sh"
cli=$2
model="$3/gpt2-f32"
text="The cat sat on the mat."
log="$work/layout.log"
"$cli" model "$model" --text "$text" --attention >"$work/attn.json" || fail "attnlab-cli model --attention"
"$cli" model "$model" --text "$text" --heads-off 1.0 --attention >"$work/off.json" || fail "attnlab-cli --heads-off"
model_is() {
  python3 - "$log" "$1" "$work" <<'PY' 2>/dev/null
import json, sys
m = json.load(open(sys.argv[1]))["model"]
attn, off = (json.load(open(sys.argv[3] + "/" + f)) for f in ("attn.json", "off.json"))
def top(j): return [[p["id"], p["p"]] for p in j["next"][:5]]
def same(a, b): return len(a) == len(b) == 5 and all(x[0] == y[0] and abs(x[1] - y[1]) < 1e-4 for x, y in zip(a, b))
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}
model_state() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["model"])' "$log" 2>&1; }

# A text longer than the model's 32 positions: the grid of its first 32 tokens, and a line with the
# count and the limit (the grid was hidden behind "text: more than 32 tokens"); the harness given
# it as --model-text returns its picture (it waited until killed).
long="$text $text $text $text $text"
"$app" "$model" --size 1280x800 --model-text "$long" --screenshot "$work/long.png" >/dev/null || fail "--model-text of 35 tokens"
start "$model" --size 1280x800 --layout-log "$log" --capture-on "$work/cap"
wait_for "$wait_limit" model_is 'm.get("name") == "gpt2-f32" and not m["loading"]' || fail "the model folder did not open"
type_text "$long"
wait_for "$wait_limit" model_is 'not m["run_stale"] and m["text"] == "'"$long"'"' || fail "the long text did not run: $(model_state)"
move 640 5
capture_layout long
for shot in "$work/long.png.json" "$work/layout.png.json"; do
  python3 - "$shot" "$work/attn.json" <<'PY' || fail "35 tokens in 32 positions ($shot)"
import json, sys
d = json.load(open(sys.argv[1]))
ids, first = d["model"]["ids"], json.load(open(sys.argv[2]))["ids"]
maps = [h for h in d["heatmaps"] if h["id"].startswith("model/")]
cut = [c for c in d["controls"] if c["id"] == "model text cut"]
print("%d ids (the sentence's %d first), %d maps of %s tokens, the line %s" % (len(ids), len(first), len(maps), sorted({h["cols"] for h in maps}), cut))
assert len(ids) == 32 and ids[:len(first)] == first and maps and cut
PY
done
press ctrl a
type_text "$text"
wait_for "$wait_limit" model_is 'm["ids"] == attn["ids"] and not m["run_stale"]' || fail "the typed text did not run"
move 640 5
capture grid
click $(map_centre "$work/grid.png.json" model/1/1)
wait_for "$wait_limit" title_is "gpt2-f32-layer-1" || fail "the click did not open layer 1 as the document"
move 640 5
capture layer
click $(centre $(control "head on 0"))
wait_for "$wait_limit" model_is 'm["next"]["state"] == "edited" and not m["next"]["stale"] and same(m["next"]["edited"], top(off))' ||
  fail "head 0 off: not attnlab-cli --heads-off 1.0's prediction"
press ctrl shift s
type_text saved.json
press Return
saved="$HOME/saved.json"
wait_for "$wait_limit" test -f "$saved" || fail "Ctrl+Shift+S, saved.json, Enter did not save $saved"
wait_for "$wait_limit" title_is " saved.json\$" || fail "the title does not name saved.json"
quit_and_wait
echo "step 1: a layer of the model, head 1.0 off, saved as saved.json, window closed"

start "$saved" --size 1280x800 --layout-log "$log" --capture-on "$work/cap"
wait_for "$wait_limit" model_is 'm.get("name") == "gpt2-f32" and m["text"] == "The cat sat on the mat." and m["ids"] == attn["ids"] and not m["run_stale"]' ||
  fail "saved.json did not reopen its model with its sentence: $(model_state)"
wait_for "$wait_limit" model_is 'm["document_layer"] == 1 and m["next"]["state"] == "edited" and not m["next"]["stale"] and same(m["next"]["edited"], top(off)) and same(m["next"]["model"], top(attn))' ||
  fail "saved.json's Next token is not the saved edit's beside the model's own: $(model_state)"
move 640 5
capture_layout reopened
python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["selected_head"] != 1)' "$work/reopened.png.json" ||
  fail "saved.json did not reopen with head 1 selected, the head whose map was clicked"
echo "step 2: attnlab saved.json reopened gpt2-f32 with the sentence, head 1 selected; Next token after the saved edit"

moved="$HOME/moved.json"
gone="$work/gone/gpt2-f32"
ln -s "$3" "$work/m"  # the chooser opens in $work (the nearest folder of the gone one): short paths to type
python3 - "$saved" "$moved" "$gone" <<'PY' || fail "cannot write moved.json"
import json, sys
d = json.load(open(sys.argv[1]))
d["view"]["model"]["folder"] = sys.argv[3]
json.dump(d, open(sys.argv[2], "w"))
PY
press ctrl o
until_seen "the Open dialog's path field holding the keyboard" field_is text_input 1
type_text "$moved"
press Return
wait_for "$wait_limit" title_is " moved.json\$" || fail "Ctrl+O did not open moved.json"
wait_for "$wait_limit" model_is 'm["next"]["offer_locate"] and "is not there" in m["next"]["note"]' ||
  fail "moved.json's missing folder is not said beside Locate: $(model_state)"
move 640 5
capture_layout moved
# The Model tab says it too, with its own Locate… (it said only "No model open"), and so does the
# status bar (it said "opened").
model_is '"is not there" in m["status"]' || fail "the status bar does not say the folder is not there: $(model_state)"
click $(centre $(control "panel tab Model"))
move 640 5
capture_layout movedmodel
[ -n "$(control "locate model Model")" ] && [ -n "$(control "model folder note")" ] ||
  fail "the Model tab does not say the folder is missing beside Locate..."
locate_button="locate model Model"  # the Model tab's first, then Next token's
locate() {
  click $(centre $(control "$locate_button"))
  until_seen "the folder chooser's path field holding the keyboard" field_is text_input 1
  press ctrl a
  type_text "$1"
  press Return
}
locate m/gpt2-f16-sharded
wait_for "$wait_limit" model_is 'm.get("name") == "gpt2-f16-sharded" and not m["loading"] and m["next"]["offer_locate"] and "are not the ones this layer was made from" in m["next"]["note"]' ||
  fail "a folder of other weights was not refused in one line: $(model_state)"
model_is "m['document_folder'] == '$gone' and m['document_layer'] == -1" && title_is " moved.json\$" ||
  fail "the folder of other weights changed the document: $(model_state)"
echo "step 3: moved.json's folder is not there: the Model tab, Next token and the status bar say so; the Model tab's Locate... refused gpt2-f16-sharded (other weights)"
capture_layout refused
locate_button="locate model"
locate m/gpt2-f32
wait_for "$wait_limit" model_is 'm.get("name") == "gpt2-f32" and m["document_layer"] == 1 and m["next"]["state"] == "edited" and not m["next"]["stale"] and same(m["next"]["edited"], top(off)) and not m["next"]["offer_locate"]' ||
  fail "locating gpt2-f32 did not reconnect the layer: $(model_state)"
title_is " moved.json \\*\$" || fail "the reconnected document is not marked changed"
save moved.json
python3 -c 'import json, os, sys; sys.exit(not os.path.samefile(json.load(open(sys.argv[1]))["view"]["model"]["folder"], sys.argv[2]))' \
  "$moved" "$model" || fail "Save did not record the located folder in moved.json"
echo "step 4: Locate... gpt2-f32 reconnected the layer (Next token after the edit), saved with the folder"
kill9
echo "PASS"
