#!/bin/sh
# Orientation cues, from the layout dumps of --screenshot runs under Xvfb:
#  - the Mask grid of Machine Learning Mastery's preset ("word_1" ... "word_4") draws column labels
#    that tell the words apart (no two alike, none a bare "…"; cut at the end they all read
#    "wor.") and names its axes: queries down, keys across; in the columns layout (--test-edit
#    layout) keys down, queries across, as the Pipeline's weights; with 12 tokens
#    (modern-kv-cache-window-sinks) the column labels are turned and whole words, every other one,
#    under a header only as tall as those drawn need;
#  - the Heads panel of UDL 12.2 and Vaswani Q3 draws token labels on both axes at 1280x800 and
#    in lecture mode at 1920x1080 (on its multiples, or on the head it draws large).
# usage: labels.sh APP PRESETS_DIR OUT_DIR
. "$(dirname "$0")/gui_test.sh"
presets=$2
out=$3
mkdir -p "$out"
shot() {  # shot NAME PRESET ARGS...
  name=$1; preset=$2; shift 2
  "$app" "$presets/$preset.json" --screenshot "$out/$name.png" "$@" >/dev/null || { echo "FAIL: $name"; exit 1; }
}
shot mlm-rows mlm-general-attention --size 1280x800
shot mlm-columns mlm-general-attention --size 1280x800 --test-edit layout --frames 6
shot udl udl-12-2-multihead --size 1280x800
shot kv modern-kv-cache-window-sinks --size 1280x800 --show-panel Mask
shot q3 vaswani-q3-two-heads --size 1280x800
shot udl-lecture udl-12-2-multihead --size 1920x1080 --lecture
shot q3-lecture vaswani-q3-two-heads --size 1920x1080 --lecture
# The kv Mask's turned labels, every other one drawn: the header is as tall as those drawn ("upon",
# "time", "tiny"), not as the undrawn "dreamed": from the axis name "keys" to the labels' first ink
# a few pixels, not three letters' worth (32 px before).
/usr/bin/python3 - "$out/kv.png" <<'PY' || { echo "FAIL: the kv Mask's header is taller than its drawn labels"; exit 1; }
import json, sys
from PIL import Image
png = sys.argv[1]
d = json.load(open(png + ".json"))
m = next(h for h in d["heatmaps"] if h["id"] == "mask")
header = next(c["rect"] for c in d["controls"] if c["id"] == "mask grid")
lh = d["window_arrangement"]["font_size"]  # the axis name's line
im = Image.open(png).convert("L")
x0, x1 = int(m["x0"]), int(m["x0"] + m["cols"] * m["cell"])
ink = [y for y in range(int(header[1] + lh + 2), int(m["y0"])) if any(im.getpixel((x, y)) > 150 for x in range(x0, x1))]
gap = ink[0] - (header[1] + lh) if ink else None
print("kv: %d of 12 column labels drawn turned; %s px from the axis name to their ink" % (len(m["col_labels"]), gap))
sys.exit(0 if ink and gap <= 0.75 * lh else 1)
PY
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
failures = []
def dump(name):
    return json.load(open("%s/%s.png.json" % (out, name)))
def texts(labels):
    return [t for _, t in labels]
def tells_apart(shown):
    return len(shown) >= 2 and len(set(shown)) == len(shown) and "\u2026" not in shown
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok: failures.append(what)

for name, down, across in (("mlm-rows", "queries", "keys"), ("mlm-columns", "keys", "queries")):
    mask = [h for h in dump(name)["heatmaps"] if h["id"] == "mask"]
    check(len(mask) == 1, name + ": one Mask grid")
    if not mask: continue
    m = mask[0]
    cols = texts(m["col_labels"])
    check(tells_apart(cols), "%s: mask column labels %s tell the words apart" % (name, cols))
    check(len(texts(m["row_labels"])) == m["rows"], "%s: every mask row labelled %s" % (name, texts(m["row_labels"])))
    check((m["row_axis"], m["col_axis"]) == (down, across),
          "%s: mask axes %s down, %s across (got %s, %s)" % (name, down, across, m["row_axis"], m["col_axis"]))
    weights = [h for h in dump(name)["heatmaps"] if h["window"].startswith("Pipeline") and h["matrix"] == "weights"]
    check(bool(weights) and (weights[0]["row_axis"], weights[0]["col_axis"]) == (down, across),
          "%s: the Pipeline's weights name the same axes" % name)

kv = [h for h in dump("kv")["heatmaps"] if h["id"] == "mask"]
cols = texts(kv[0]["col_labels"]) if kv else []
check(len(cols) >= 4 and tells_apart(cols) and not any("\u2026" in t for t in cols),
      "kv: 12 keys' mask labels are whole words %s" % cols)

for name in ("udl", "q3", "udl-lecture", "q3-lecture"):
    heads = [h for h in dump(name)["heatmaps"] if h["window"].startswith("Heads")]
    # Lecture mode may draw the selected head large with its numbers beside small multiples
    # (too small for labels): the large one is then the one labelled.
    focus = [h for h in heads if h["id"] == "focus"]
    check(len(heads) == 2 or len(focus) == 1, name + ": two head multiples, or one head large")
    heads = focus or heads
    for h in heads:
        rows, cols = texts(h["row_labels"]), texts(h["col_labels"])
        check(tells_apart(rows) and tells_apart(cols),
              "%s: head %d labelled, rows %s, columns %s" % (name, h["head"] + 1, rows, cols))
sys.exit(1 if failures else 0)
PY
