#!/bin/sh
# Setup > QK-norm and softcap, and RoPE's scaling, with real input under Xvfb. Each step changes one
# thing with a click or typed keys, saves (Ctrl+S) and captures the window: the file has the new
# key, the weights heatmaps show the colours the core computes for the saved file, and no longer
# those of the file before the step.
#  1. Positions folded, the section opened, a click on Softcap (c = 50, the file checked);  2. c typed: 2, Enter;
#  3. a click on QK-norm;
#  4. a click on "over the width";  5. a click on "1 + w";  6. the section folded, Positions
#  unfolded, RoPE on, its scaling chosen: linear.
# usage: logits_controls.sh APP PIXEL_CHECK
. "$(dirname "$0")/gui_test.sh"
check=$2
size=1920x1080
doc="$HOME/logits.json"
# Large weights: scores far beyond a cap of 2, and queries that QK-norm shrinks.
python3 "$(dirname "$0")/random_scenario.py" "$doc" --seed 26 --title logits --tokens a,b,c,d,e \
  --matrix X=5x4:1.5 --matrix W_q=4x4:2.5 --matrix W_k=4x4:2.5 --matrix W_v=4x4:1.5 \
  --set num_heads=2 --set 'positions=[0, 40, 80, 120, 160]' --set scale=1.0
. "$(dirname "$0")/saved_steps.sh"
# press_control ID: a click on control ID, found in a fresh layout dump. The Setup panel holds
# either section whole at this size, so the test folds the one it is not using.
press_control() {
  capture_layout controls
  rect=$(control "$1")
  [ -n "$rect" ] || fail "no control '$1' in the layout dump; it has: $(
    python3 -c 'import json,sys; print(", ".join(c["id"] for c in json.load(open(sys.argv[1]))["controls"]))' "$work/layout.png.json")"
  click $(centre $rect)
}
cp "$doc" "$work/before.json"
layout "$doc" --size $size
start "$doc" --size $size --capture-on "$work/cap"

press_control "positions header"  # folded: the section below it comes into view
press_control "logits header"
press_control softcap
save logits.json  # Gemma 2's 50: these scores may all lie below it, so only the file is checked here
has_key 'd.get("softcap") == 50' || fail "softcap clicked on: the file does not have 50"

press_control c
press ctrl a
type_text "2"
press Return
step "cap typed" 'd.get("softcap") == 2'

press_control "qk norm"
step "QK-norm clicked on" 'd.get("qk_norm", {}).get("scope") == "head"'

press_control "over the width (OLMo 2)"
step "QK-norm over the width" 'd["qk_norm"]["scope"] == "width"'

press_control "qk norm plus one"
save logits.json
has_key 'd["qk_norm"]["plus_one"] is True' || fail "1 + w: the file does not have it"
echo "1 + w clicked on: the file has it (the gains, and so the pixels, stay: w is rewritten as w - 1)"

press_control "logits header"  # folded, and Positions unfolded for RoPE
press_control "positions header"
press_control rope
step "RoPE clicked on" '"rope" in d'
press_control "rope scaling"
capture_layout combo  # the open combo's options (not reach: scrolling would close it)
click $(centre $(control "scaling linear"))
step "RoPE scaling: linear" 'd["rope"].get("scaling", {}).get("type") == "linear"'
quit_and_wait
echo "PASS: softcap, its cap, QK-norm, its scope and 1 + w, RoPE scaling, each by real input, the pixels following the core"
