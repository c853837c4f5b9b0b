#!/bin/sh
# Nothing cut at 1280x800 in normal mode (issue 26.8), from the layout dumps of --screenshot runs:
# the Mask panel's controls with the sliding window on (Mistral's preset: Causal, Window and its
# width, Clear, Bake) all lie inside the Mask window, wrapping to a second line rather than
# running past its edge ("Cle", no Bake, before); and the Heads grids of four presets end inside
# the Heads panel's clip rectangle, the selected head's frame with them (Vaswani Q2's one head
# filled the panel's width and its frame's right side was cut).
# usage: nothing_cut.sh APP PRESETS_DIR
. "$(dirname "$0")/gui_test.sh"
presets=$2
# The window on; the most heads (4, 8 with GQA's K/V bar); the longest token labels.
for p in modern-mistral-sliding-window modern-alibi-slopes modern-llama-gqa-rope vaswani-q1-decoder-over-encoder vaswani-q2-is-attends; do
  "$app" "$presets/$p.json" --size 1280x800 --screenshot "$work/$p.png" >/dev/null || fail "screenshot of $p"
done
/usr/bin/python3 - "$work" <<'PY' || fail "something cut at 1280x800"
import glob, json, os, sys
failures = []
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.png.json"))):
    d, name = json.load(open(f)), os.path.basename(f)[:-9]
    for h in d["heatmaps"]:
        right = h["x0"] + h["cols"] * h["cell"] + 3.5  # the selected head's frame: 3 px, 2 px off the grid
        if h["window"].startswith("Heads") and right > h["clip"][2]:
            failures.append("%s: Heads %s ends at x=%g, past the panel's %g" % (name, h["id"], right, h["clip"][2]))
    if name != "modern-mistral-sliding-window":
        continue
    box = next(w["box"] for w in d["window_arrangement"]["windows"] if w["name"] == "Mask")
    ids = {c["id"]: c["rect"] for c in d["controls"] if c["window"].startswith("Mask")}
    for want in ("mask window", "mask window width", "mask clear", "mask bake"):
        rect = ids.get(want)
        if rect is None or rect[2] > box[0] + box[2] - 4:
            failures.append("%s: %s at %s, the Mask window ends at x=%g" % (name, want, rect, box[0] + box[2]))
print("\n".join(failures) or "every Mask control and Heads grid inside its panel")
sys.exit(1 if failures else 0)
PY
echo "PASS: nothing cut at 1280x800"
