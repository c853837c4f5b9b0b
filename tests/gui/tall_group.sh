#!/bin/sh
# A side group given its whole column, with real input, in lecture mode on a 1280x800 projector
# (where the compact arrangement leaves each side panel a third of the column): a double-click on
# the Inputs tab folds Heads and Details to their tab bars and gives Setup the rest, with the
# Inputs in front (the double-click's second click, on the close button the first click put
# there, does not close them); a click on the folded Heads tab gives the column back as it was; a
# double-click twice on the Inputs tab goes tall and back again. F1 lends the column to Help, and
# F1 again, a click on another tab of Help's group, or a click on Help's close button, gives it back.
# usage: tall_group.sh APP PRESET.json
. "$(dirname "$0")/gui_test.sh"
preset=$2
start "$preset" --size 1280x800 --lecture --capture-on "$work/cap"
capture_layout before
double_click $(centre $(control "panel tab Inputs"))
capture_layout tall
click $(centre $(control "panel tab Heads"))
capture_layout back
double_click $(centre $(control "panel tab Inputs"))
capture_layout tall_again
double_click $(centre $(control "panel tab Inputs"))
capture_layout back_again
press F1
capture_layout help
press F1
capture_layout help_twice
press F1
capture_layout help_again
click $(centre $(control "panel tab Inspector"))
capture_layout help_left
press F1
capture_layout help_to_close
# The close button of Help's tab (the front tab's only): a font size wide, at its right end.
set -- $(control "panel tab Help")
[ $# -eq 6 ] || fail "no tab of Help after F1"
fs=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["window_arrangement"]["font_size"]))' "$work/help_to_close.png.json")
click $(($3 - fs * 3 / 4)) $((($2 + $4) / 2))
capture_layout help_closed
python3 - "$work" <<'PY' || fail "the column is not given to Setup and back as it should be"
import json, sys
work = sys.argv[1]
def arrangement(name):
    return json.load(open(f"{work}/{name}.png.json"))["window_arrangement"]
def boxes(name):
    return {w["name"]: w["box"] for w in arrangement(name)["windows"] if w["name"] in ("Setup", "Heads", "Details")}
def front(name):
    return {w["name"]: w["front"] for w in arrangement(name)["windows"]}
before = boxes("before")
column = before["Details"][1] + before["Details"][3] - before["Setup"][1]
fs = arrangement("before")["font_size"]
print("before:", before)
for name in ("tall", "tall_again"):
    tall = boxes(name)
    print(name + ":", tall)
    assert front(name)["Setup"] == "Inputs", "the Inputs in front: %s" % front(name)
    assert tall["Setup"][3] > 0.75 * column, "Setup takes the column"
    assert tall["Setup"][3] + tall["Heads"][3] + tall["Details"][3] > column - fs, "and leaves nothing empty"
    for folded in ("Heads", "Details"):
        assert tall[folded][3] < 3 * fs, "%s folds to its tab bar" % folded
        assert tall[folded][3] > fs, "%s keeps its tab bar" % folded
for name in ("back", "back_again"):
    assert boxes(name) == before, "%s: %s" % (name, boxes(name))
print("tall twice, and back as before twice")
# F1 lends Help's group the column while Help is in front; F1 again, another tab in front, or Help closed
# gives the layout back, nothing left folded (it stayed folded until a click on a folded tab).
failures = []
for name in ("help", "help_again", "help_to_close"):
    if front(name)["Details"] != "Help":
        failures.append("%s: Help not in front: %s" % (name, front(name)))
    if boxes(name)["Details"][3] <= 0.75 * column:
        failures.append("%s: Help does not take the column: %s" % (name, boxes(name)))
for name in ("help_twice", "help_left", "help_closed"):  # each way of leaving Help, every one checked
    if boxes(name) != before:
        failures.append("%s: not the layout as before: %s" % (name, boxes(name)))
    if front(name)["Details"] != front("before")["Details"]:
        failures.append("%s: %s in front, not %s" % (name, front(name)["Details"], front("before")["Details"]))
if "Help" in [p for w in arrangement("help_closed")["windows"] for p in w["panels"]]:
    failures.append("help_closed: Help still open after a click on its close button")
print("\n".join(failures) or "F1 lends the column to Help; F1 again, the Inspector's tab, or closing Help gives it back")
assert not failures
PY
quit_and_wait
echo "PASS: a double-click on a tab gives its group the column; a click on a folded tab or another double-click gives it back; so does F1 for Help, until F1 again, another tab or closing Help"
