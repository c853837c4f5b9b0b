#!/bin/sh
# Activation patching in the window (issue 39, section 3): the Patching panel on the hand-built
# induction circuit, with real keys and clicks under Xvfb, in one window:
#  1. a clean prompt whose last token is new: Suggest greyed out, its tooltip says why; the circuit's
#     prompt with no corrupt one: the hint says it needs 10 tokens; the four fields typed, the
#     corrupt prompt one of 8 tokens against the clean one's 10: refused in one line naming the
#     field, as attnlab-cli patch refuses it; Run does nothing meanwhile;
#  2. the corrupt prompt typed again (the fields now hold the suggestion, and say so), Run (held by --hold-patching after its first patched run, so
#     that nothing depends on timing), Cancel: the run stops, its line says where, no grid;
#  3. Run again: the logit differences are the CLI's, and every cell of both grids (layer x head,
#     layer x position) shows on screen the colour of `attnlab-cli patch ... --json`'s effect there
#     (attnlab_gui_patching_check);
#  4. hovering head 1.1 names it; a click opens layer 1 as the document with head 1 selected.
# The run's state is read from the layout log (--layout-log: "model"."patching"), the grids from a capture.
# usage: patching.sh APP CLI PATCHING_CHECK CIRCUIT_DIR
. "$(dirname "$0")/gui_test.sh"
cli=$2
check=$3
circuit=$4
clean="the cat sat on a mat . the cat"
corrupt="the dog sat on a mat . the cat"
log="$work/layout.log"
"$cli" patch "$circuit" --clean "$clean" --corrupt "$corrupt" --answer " sat" --wrong " ran" --json >"$work/patch.json" ||
  fail "attnlab-cli patch"

# patching_is EXPR: the layout log's model (m) and its patching (p) satisfy EXPR; cli is the CLI's JSON.
patching_is() {  # /usr/bin/python3: a version manager's shim costs a second a call
  /usr/bin/python3 - "$log" "$1" "$work/patch.json" <<'PY' 2>/dev/null
import json, sys
m = json.load(open(sys.argv[1]))["model"]
p = m.get("patching", {})
cli = json.load(open(sys.argv[3]))
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}
wait_patching() {  # wait_patching EXPR WHAT
  wait_for "$wait_limit" patching_is "$1" ||
    fail "$2; the layout log's patching: $(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["model"]["patching"])' "$log" 2>&1)"
}
# field NAME TEXT: a real click in the Patching panel's field NAME, all of it selected, TEXT typed over it
field() {
  box=$(control "patching $1")
  [ -n "$box" ] || fail "no field 'patching $1' in the layout"
  click $(centre $box)
  press ctrl a
  type_text "$2"
}
# cell_centre ID ROW COL: "X Y" of cell (ROW, COL) of heatmap ID in the last capture's dump
cell_centre() {
  /usr/bin/python3 - "$work/layout.png.json" "$@" <<'PY'
import json, sys
for h in json.load(open(sys.argv[1]))["heatmaps"]:
    if h["id"] == sys.argv[2]:
        r, c = int(sys.argv[3]), int(sys.argv[4])
        print(int(h["x0"] + h["cell"] * (c + 0.5)), int(h["y0"] + h["cell"] * (r + 0.5))); break
PY
}

start "$circuit" --size 1280x800 --layout-log "$log" --capture-on "$work/cap" --hold-patching
wait_patching 'm.get("name") == "induction-circuit" and not m["loading"]' "the circuit did not open"
capture_layout tabs
tab=$(control "panel tab Patching")
[ -n "$tab" ] || fail "no Patching tab"
click $(centre $tab)
capture_layout fields
# A clean prompt whose last token is new: Suggest is greyed out and its tooltip says why; then the
# circuit's prompt with the corrupt one empty: the hint says how many tokens it needs.
field clean "the cat sat on a mat"
wait_patching 'not p["input_stale"] and p["input"]["no_suggestion"].startswith("No suggestion: the clean prompt'"'"'s last token")' \
  "no reason for the greyed-out Suggest"
move $(centre $(control "patching suggest"))
frames 2  # a tooltip is placed by its size on the frame before
capture_layout suggestwhy
[ -n "$(control "patching suggest tooltip")" ] || fail "hovering the greyed-out Suggest says nothing"
field clean "$clean"
wait_patching 'not p["input_stale"] and p["input"]["error"] == "corrupt: empty: type a prompt of 10 tokens, as the clean one"' \
  "the empty corrupt prompt's hint does not say how many tokens"
field corrupt "the dog sat on a mat ."
field answer " sat"
field wrong " ran"
wait_patching 'not p["input_stale"] and p["input"]["error"] == "corrupt: 8 tokens, the clean prompt has 10: patching needs the same count"' \
  "8 tokens against 10 were not refused in one line naming the corrupt prompt"
capture_layout refused
[ -n "$(control "patching refusal")" ] || fail "the refusal line is not drawn"
run_button=$(centre $(control "patching run"))  # stays there: an empty status line keeps its height
click $run_button
frames 2
patching_is 'not p["running"] and p["total"] == 0 and p["result"] is None' || fail "Run started with a refused pair"
echo "step 1: the fields typed; 8 tokens against 10 refused in one line (corrupt: ...), Run does nothing"

field corrupt "$corrupt"
wait_patching 'not p["input_stale"] and p["input"]["error"] == "" and p["input"]["clean_ids"] == cli["clean"]["ids"] and p["input"]["corrupt_ids"] == cli["corrupt"]["ids"] and p["input"]["answer"] == cli["answer"]["id"] and p["input"]["wrong"] == cli["wrong"]["id"]' \
  "the typed pair does not read as attnlab-cli's ids"
capture_layout typed
[ -n "$(control "patching suggestion held")" ] || fail "the fields hold the suggestion and nothing says so (Suggest would do nothing)"
click $run_button
wait_patching 'p["running"] and p["done"] >= 1' "Run did not start"
capture_layout running
cancel=$(control "patching cancel")
[ -n "$cancel" ] || fail "no Cancel button while the run goes"
click $(centre $cancel)
wait_patching 'not p["running"] and p["note"] == "run: cancelled after 1 of 24 patched runs" and p["result"] is None' \
  "Cancel did not stop the run"
echo "step 2: Run, then Cancel: $(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["model"]["patching"]["note"])' "$log")"

click $run_button
wait_patching 'not p["running"] and p["result"] is not None and not p["result"]["stale"] and abs(p["result"]["clean"] - cli["logit_difference"]["clean"]) < 1e-4 and abs(p["result"]["corrupted"] - cli["logit_difference"]["corrupted"]) < 1e-4' \
  "the run's logit differences are not attnlab-cli's"
move 640 5  # off the grids: no tooltip over them
capture grids
"$check" "$work/grids.png" "$work/patch.json" || fail "the grids' pixels are not attnlab-cli patch's effects"
echo "step 3: Run: logit differences and every cell of both grids as attnlab-cli patch --json"

cell=$(cell_centre patching/heads 1 1)
[ -n "$cell" ] || fail "no heads grid in the capture"
move $cell
capture_layout hover
[ -n "$(control "patching tooltip head 1.1")" ] || fail "the hover over layer 1's head 1 does not say head 1.1"
click $cell
wait_for "$wait_limit" title_is "induction-circuit-layer-1" || fail "the click on head 1.1 did not open layer 1 as the document"
move 640 5
capture_layout layer
/usr/bin/python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["selected_head"] != 1)' "$work/layer.png.json" ||
  fail "the clicked head (1) is not selected"
echo "step 4: the hover names head 1.1; the click opened layer 1 with head 1 selected"
kill9
echo "PASS"
