#!/bin/sh
# The Head finder and the Logit lens (issue 39) on the hand-built induction circuit, with real keys and
# clicks, in one window at 1280x800, where the centre group's ten tabs take two rows, every tab inside
# its window (in one row the Logit lens hid behind the tab bar's arrows), and stay in place through
# each click on a tab (the clicked tab's row had moved below the other):
#  1. a typed sentence, a click on the Head finder's tab: every score's grid (layers x heads) shows
#     `attnlab-cli heads DIR --text T --random-repeat 10 --seed 0 --json` cell by cell
#     (attnlab_gui_instruments_check --heads); the induction grid's top head is 1.1, as built; its
#     right-click menu's Export CSV writes those scores;
#  2. the hover over the induction grid's cell of head 1.1 says "head 1.1"; a click on it opens layer 1
#     as the document with head 1 selected;
#  3. the Logit lens's tab: a click on its table's last position after layer 1 chooses that cell's top
#     token; the table shows `attnlab-cli lens DIR --text T --token TOKEN --json`'s top-token
#     probabilities and the heatmap below it the token's;
#  4. head 0 switched off, killed (-9) and restarted with the autosave restored: layer 1 with head 1
#     selected, as clicked (head 0 was: the circuit's layer 1 head 0 is all zeros, a blank Pipeline).
# usage: head_finder.sh APP CLI INSTRUMENTS_CHECK CIRCUIT_DIR
. "$(dirname "$0")/gui_test.sh"
cli=$2
check=$3
model=$4
text="the cat sat on a mat . the cat"
log="$work/layout.log"
"$cli" heads "$model" --text "$text" --random-repeat 10 --seed 0 --json >"$work/heads.json" || fail "attnlab-cli heads"
"$cli" lens "$model" --text "$text" --json >"$work/lens.json" || fail "attnlab-cli lens"
# The top token after the last layer at the last position: what the click below chooses.
token=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["layers"][-1]["top"][-1]["token"])' "$work/lens.json")
"$cli" lens "$model" --text "$text" --token "$token" --json >"$work/chosen.json" || fail "attnlab-cli lens --token"

# log_is EXPR: the layout log (d; m its "model") satisfies the Python expression; heads, lens are the
# CLI's JSON, grid(ID) the heatmap ID drawn last frame (or None), fresh(ID) drawn and not stale.
log_is() {
  python3 - "$log" "$1" "$work" <<'PY' 2>/dev/null
import json, sys
d = json.load(open(sys.argv[1])); m = d["model"]
heads, lens = (json.load(open(sys.argv[3] + "/" + f)) for f in ("heads.json", "lens.json"))
def grid(i): return next((h for h in d["heatmaps"] if h["id"] == i), None)
def fresh(i): return grid(i) is not None and not grid(i)["stale"]
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}
wait_log() {  # wait_log EXPR WHAT
  wait_for "$wait_limit" log_is "$1" || fail "$2"
}
# cell_centre ID ROW COL: "X Y" of a cell of heatmap ID in the last capture's dump
cell_centre() {
  python3 - "$work/layout.png.json" "$@" <<'PY'
import json, sys
for h in json.load(open(sys.argv[1]))["heatmaps"]:
    if h["id"] == sys.argv[2]:
        r, c = int(sys.argv[3]), int(sys.argv[4])
        print(int(h["x0"] + h["cell"] * (c + 0.5)), int(h["y0"] + h["cell"] * (r + 0.5))); break
PY
}

# tabs_in_place SHOT: every tab of the centre group in SHOT's dump, inside its window, in its row and
# place of the first capture (tabs).
tabs_in_place() {
  python3 - "$work/tabs.png.json" "$work/$1.png.json" <<'PY' || fail "the centre group's tabs ($1)"
import json, sys
def tabs(f):
    d = json.load(open(f))
    w = next(w for w in d["window_arrangement"]["windows"] if w["name"] == "Pipeline")
    return w, {c["id"][len("panel tab "):]: c["rect"] for c in d["controls"] if c["id"].startswith("panel tab ") and c["window"] == "Pipeline"}
_, first = tabs(sys.argv[1])
w, now = tabs(sys.argv[2])
box = w["box"]
print("Pipeline %s, %s in front; tabs %s" % (box, w["front"], now))
assert all(p in now for p in w["panels"]), "tabs out of view: %s" % [p for p in w["panels"] if p not in now]
assert all(box[0] <= r[0] and r[2] <= box[0] + box[2] and box[1] <= r[1] and r[3] <= box[1] + box[3] for r in now.values()), "a tab outside the window"
# Its row, and under the place it was (the front tab is wider by its close button).
moved = [(p, first[p], r) for p, r in now.items()
         if first[p][1::2] != r[1::2] or not r[0] <= (first[p][0] + first[p][2]) / 2 <= r[2]]
assert not moved, "tabs moved: %s" % moved
PY
}

start "$model" --size 1280x800 --layout-log "$log" --capture-on "$work/cap"
wait_log 'm.get("name") == "induction-circuit" and not m["loading"]' "the circuit's folder did not open"
type_text "$text"
wait_log 'm["ids"] == heads["ids"] and not m["run_stale"]' "the typed text did not run as attnlab-cli's"
capture_layout tabs
tabs_in_place tabs
click $(centre $(control "panel tab Head finder"))
wait_log 'all(fresh("heads/" + s) for s in heads["scores"])' "the Head finder did not draw its five grids"
move 640 5  # off the grids: no tooltip over them
capture grids
"$check" "$work/grids.png" "$work/heads.json" --heads || fail "the Head finder's grids are not attnlab-cli heads'"
[ -n "$(control "heads/induction top 0")" ] || fail "no list of the induction grid's highest heads"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["scores"]["induction"]; sys.exit(max((v,l,h) for l,r in enumerate(s) for h,v in enumerate(r))[1:] != (1,1))' \
  "$work/heads.json" || fail "the circuit's top induction head is not 1.1"
tabs_in_place grids
echo "step 1: the five grids equal attnlab-cli heads --json"

# Right-click the induction grid, Export CSV (the menu's row 90 px below the pointer, as in
# window_export.sh), Enter in the file browser: induction.csv in the home folder holds the scores.
set -- $(cell_centre heads/induction 0 0)
right_click "$1" "$2"
move $(($1 + 30)) $(($2 + 90))
button 1 1
until_seen "the file browser" field_is text_input 1
press Return
wait_for "$wait_limit" test -s "$HOME/induction.csv" || fail "Export CSV of the induction grid wrote nothing"
python3 - "$HOME/induction.csv" "$work/heads.json" <<'PY' || fail "induction.csv is not attnlab-cli heads' induction scores: $(cat "$HOME/induction.csv")"
import csv, json, sys
rows = [r for r in csv.reader(open(sys.argv[1]))][1:]
want = json.load(open(sys.argv[2]))["scores"]["induction"]
got = [[float(v) for v in r[1:]] for r in rows]
assert len(got) == len(want) and all(abs(g - w) < 1e-6 for gr, wr in zip(got, want) for g, w in zip(gr, wr)), (got, want)
PY
echo "step 1: Export CSV of the induction grid holds attnlab-cli's scores"

move $(cell_centre heads/induction 1 1)
capture_layout hover
[ -n "$(control "heads tooltip head 1.1")" ] || fail "the hover over the induction grid's head 1.1 does not say head 1.1"
click $(cell_centre heads/induction 1 1)
wait_for "$wait_limit" title_is "induction-circuit-layer-1" || fail "the click on head 1.1 did not open layer 1 as the document"
move 640 5
capture_layout layer
python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["selected_head"] != 1)' "$work/layer.png.json" ||
  fail "the clicked head (1) is not selected"
echo "step 2: the hover says head 1.1; the click opened layer 1 with head 1 selected"

click $(centre $(control "panel tab Logit lens"))
wait_log 'fresh("lens/top")' "the Logit lens did not draw its table"
capture_layout table
tabs_in_place table
last=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["ids"]) - 1)' "$work/lens.json")
click $(cell_centre lens/top 1 "$last")
wait_log 'fresh("lens/chosen")' "a click on the table did not draw the chosen token's heatmap"
move 640 5
capture chosen
# The table's top tokens are the same with a token chosen: one picture checks both.
"$check" "$work/chosen.png" "$work/chosen.json" --lens || fail "the lens's table or the chosen token's heatmap is not attnlab-cli lens --token's"
echo "step 3: the lens's table and the clicked token's probabilities equal attnlab-cli lens --json"
click $(centre $(control "head on 0"))  # an edit: the autosave keeps it
wait_for "$wait_limit" autosave_exists || fail "no autosave of layer 1 after head 0 off in $state_dir"
kill9
"$app" --restore-autosave yes --screenshot "$work/restored.png" >/dev/null || fail "restoring the autosave"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["document"] != "induction-circuit-layer-1" or d["selected_head"] != 1)' \
  "$work/restored.png.json" || fail "the restored layer 1 does not have head 1 selected, as clicked"
echo "step 4: after kill -9, the autosave restored layer 1 with head 1 selected"
echo "PASS"
