#!/bin/sh
# A side group given its whole column, with real input, in lecture mode on a 1280x800 projector
# (where the compact arrangement leaves each side panel a third of the column): a double-click on
# the Inputs tab folds Heads and Details to their tab bars and gives Setup the rest, with the
# Inputs in front (the double-click's second click, on the close button the first click put
# there, does not close them); a click on the folded Heads tab gives the column back as it was; a
# double-click twice on the Inputs tab goes tall and back again. F1 lends the column to Help, and
# F1 again, or a click on another tab of Help's group, gives it back.
# usage: tall_group.sh APP PRESET.json
. "$(dirname "$0")/gui_test.sh"
preset=$2
start "$preset" --size 1280x800 --lecture --capture-on "$work/cap"
capture before
double_click $(centre $(control "panel tab Inputs"))
capture tall
click $(centre $(control "panel tab Heads"))
capture back
double_click $(centre $(control "panel tab Inputs"))
capture tall_again
double_click $(centre $(control "panel tab Inputs"))
capture back_again
press F1
capture help
press F1
capture help_twice
press F1
capture help_again
click $(centre $(control "panel tab Inspector"))
capture help_left
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
# F1 lends Help's group the column while Help is in front; F1 again, or another tab in front,
# gives the layout back, nothing left folded (it stayed folded until a click on a folded tab).
for name in ("help", "help_again"):
    assert front(name)["Details"] == "Help", "%s: Help in front: %s" % (name, front(name))
    assert boxes(name)["Details"][3] > 0.75 * column, "%s: Help takes the column: %s" % (name, boxes(name))
for name in ("help_twice", "help_left"):
    assert boxes(name) == before, "%s: the layout as before: %s" % (name, boxes(name))
    assert front(name)["Details"] == front("before")["Details"], "%s: %s" % (name, front(name))
print("F1 lends the column to Help; F1 again, or the Inspector's tab, gives it back")
PY
quit_and_wait
echo "PASS: a double-click on a tab gives its group the column; a click on a folded tab or another double-click gives it back; so does F1 for Help, until F1 again or another tab"
