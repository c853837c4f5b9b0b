#!/bin/sh
# The Decode panel against `attnlab-cli decode`, under Xvfb with real keys: the preset "KV cache
# with a sliding window and sinks" (prefill 3, 12 tokens, window 4, 2 sinks, 2 K/V heads) opens at
# its first decoded token; each Right arrow over the panel grows every K and V cache heatmap by one
# column, and the columns the CLI's cache no longer holds are drawn masked (hatched grey) while the
# held ones keep their colours; Left steps back. The new query's weights and the full map fill the
# panel's width (or height). The presenter's decode step leaves the evicted key's
# weight blank. Then a model's layer (issue 38, point 11): the tiny GPT-2 stores its weights as F32,
# so its cache counts 2 K/V heads x (8 + 8) numbers x 4 bytes = 128 bytes a token (it counted 8-byte
# numbers), and a layer of four 64-number heads shows the cache of the selected head's K/V head, its
# K and V and the new query's weights whole in the panel's first screen (it drew every K/V head's
# cache at a font size a cell: screens of scrolling before the weights).
# usage: decode.sh APP CLI PRESET MAKE_SCENARIO GPT2_FOLDER
. "$(dirname "$0")/gui_test.sh"
cli=$2
preset=$3
make_scenario=$4
gpt2=$5
"$cli" decode "$preset" --prefill 3 > "$work/decode.json" || fail "attnlab-cli decode"
start "$preset" --size 1920x1080 --show-panel Decode --capture-on "$work/cap"
# check SHOT TOKEN: the cache heatmaps of SHOT show token TOKEN's step as the CLI computed it.
check() {
  /usr/bin/python3 - "$work/$1.png" "$work/decode.json" "$2" <<'PY' || fail "$1: the cache heatmaps do not follow the CLI"
import json, sys
from PIL import Image
shot, decoded, token = sys.argv[1], sys.argv[2], int(sys.argv[3])
layout = json.load(open(shot + ".json"))
img = Image.open(shot).convert("RGB")
masked = tuple(layout["masked_rgb"])
step = next(s for s in json.load(open(decoded))["steps"] if s["token"] == token)
maps = [h for h in layout["heatmaps"] if h["id"].startswith("decode K ") or h["id"].startswith("decode V ")]
assert len(maps) == 4, "K and V of 2 K/V heads, got %s" % [h["id"] for h in maps]
for h in maps:
    assert h["cols"] == token + 1, "%s: %d columns at token %d" % (h["id"], h["cols"], token)
    for j in range(h["cols"]):
        x0, y0 = h["x0"] + j * h["cell"], h["y0"]
        box = [(int(x0 + dx), int(y0 + dy)) for dx in range(1, int(h["cell"] - h["gap"]) - 1)
               for dy in range(1, int(h["cell"] - h["gap"]) - 1)]
        grey = sum(img.getpixel(p) == masked for p in box) / len(box)
        held = j in step["cache"]
        assert (grey < 0.2) == held, "%s column %d: %.0f%% masked grey, held %s" % (h["id"], j, 100 * grey, held)
print("token %d: %d columns, held %s" % (token, token + 1, step["cache"]))
PY
}
capture first
check first 3
# The step's label beside the slider, clear of it (the handle hid the label drawn inside it).
/usr/bin/python3 - "$work/first.png.json" <<'PY' || fail "the Decode slider's label"
import json, sys
marks = {c["id"]: c["rect"] for c in json.load(open(sys.argv[1]))["controls"]}
slider, label = marks["decode slider"], marks.get("decode slider label")
print("slider %s, its label %s" % (slider, label))
assert label and (label[0] >= slider[2] or label[2] <= slider[0] or label[1] >= slider[3] or label[3] <= slider[1]), "the label is inside the slider"
PY
# The new query's weights and the full map fill the panel at 1920x1080 (they were 38 px cells in
# the left half of it, their numbers 11 px): one cell for both, the map's grid across three
# quarters of the panel's width or of its height, every number printed.
/usr/bin/python3 - "$work/first.png.json" <<'PY' || fail "the Decode weights do not fill the panel"
import json, sys
maps = {h["id"]: h for h in json.load(open(sys.argv[1]))["heatmaps"] if h["id"] in ("decode weights", "decode full weights")}
row, full = maps["decode weights"], maps["decode full weights"]
clip_w, clip_h = full["clip"][2] - full["clip"][0], full["clip"][3] - full["clip"][1]
grid = full["cell"] * full["cols"]
print("weights row %.0f px cells, full map %.0f px cells: grid %.0f of the panel's %.0f x %.0f" % (row["cell"], full["cell"], grid, clip_w, clip_h))
assert row["cell"] == full["cell"] and row["values_drawn"] and full["values_drawn"]
assert (grid >= 0.75 * clip_w or grid >= 0.75 * clip_h) and full["x0"] + grid <= full["clip"][2], "not filled, or cut"
PY
# Right over the panel: one step per press, the cache one column wider; token 2 leaves at token 6.
set -- $(control "decode equal")
move $(centre "$1" "$2" "$3" "$4")
for token in 4 5 6 7; do
  press Right
  capture "t$token"
  check "t$token" "$token"
done
press Left
capture back
check back 6
# The presenter's decode step (step 4 of the preset's lesson, token 6) revealed with R: the new
# query's weights print their numbers, and the evicted key 'upon' is hatched and blank, as on the
# slides (it printed "-inf", which a cache never holds).
move 5 1075
press p
press Right
press Right
press Right
press r
capture presenter
/usr/bin/python3 - "$work/presenter.png" <<'PY' || fail "the presenter's decode weights print something in an evicted key"
import json, sys
from PIL import Image
shot = sys.argv[1]
layout = json.load(open(shot + ".json"))
img = Image.open(shot).convert("RGB")
masked = tuple(layout["masked_rgb"])
w = next(h for h in layout["heatmaps"] if h["id"] == "presenter_engine_2")
assert w["values_drawn"] and w["rows"] == 1, "the weights row with its numbers: %s" % w
side = int(w["cell"] - w["gap"])
evicted = 0
for j in range(w["cols"]):
    box = [(int(w["x0"] + j * w["cell"] + dx), int(w["y0"] + dy)) for dx in range(1, side - 1) for dy in range(1, side - 1)]
    if sum(img.getpixel(p) == masked for p in box) / len(box) < 0.2:
        continue  # a held key, in colour
    evicted += 1
    ink = sum(min(img.getpixel(p)) > 180 for p in box)
    assert ink == 0, "key %d: %d pixels of text in its hatched cell" % (j, ink)
assert evicted == 1, "one evicted key at token 6, found %d" % evicted
print("presenter: the evicted key's weight is hatched and blank")
PY
quit_and_wait
# A small projector (1024x640, lecture mode) and the normal window at that size: every Decode
# figure whole in the panel's width (the full map was 38 px cells, cut at its right edge).
for lecture in "" --lecture; do
  "$app" "$preset" --size 1024x640 $lecture --show-panel Decode --screenshot "$work/small.png" >/dev/null || fail "screenshot at 1024x640 $lecture"
  /usr/bin/python3 - "$work/small.png.json" <<'PY' || fail "a Decode figure cut at 1024x640 $lecture"
import json, sys
maps = [h for h in json.load(open(sys.argv[1]))["heatmaps"] if h["id"].startswith("decode")]
cut = [(h["id"], h["x0"] + h["cell"] * h["cols"], h["clip"][2]) for h in maps if h["x0"] + h["cell"] * h["cols"] > h["clip"][2]]
print("1024x640: %d Decode figures, cut (id, right, panel's right): %s" % (len(maps), cut))
assert len(maps) == 6 and not cut
PY
done
# A layer of the tiny GPT-2 (F32), its folder left out so that the window does not reopen the model.
"$cli" model "$gpt2" --text "The cat sat on the mat." --layer 1 --out "$work/layer.json" || fail "attnlab-cli model --layer"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); del d["view"]["model"]["folder"]; json.dump(d, open(sys.argv[1], "w"))' "$work/layer.json"
start "$work/layer.json" --size 1920x1080 --show-panel Decode --capture-on "$work/cap"
capture_layout layer_top
move $(centre $(control "decode equal"))
scroll 30  # the sizes come last, under the full weights map
capture_layout layer
bytes=$(python3 -c 'import json,sys; print(" ".join(c["id"] for c in json.load(open(sys.argv[1]))["controls"] if c["id"].startswith("decode bytes per token ")))' "$work/layer.png.json")
kill9
[ "$bytes" = "decode bytes per token 128" ] || fail "the F32 layer's cache: '$bytes', by hand 2 x (8 + 8) x 4 = 128 bytes a token"
echo "the F32 layer's cache: 128 bytes a token (2 K/V heads x 16 numbers x 4 bytes)"
"$make_scenario" 24x256x4 "$work/wide.json" --causal || fail "attnlab_gui_make_scenario"
"$app" "$work/wide.json" --size 1920x1080 --show-panel Decode --screenshot "$work/wide.png" >/dev/null || fail "screenshot of the wide layer"
/usr/bin/python3 - "$work/wide.png.json" <<'PY' || fail "the wide layer's cache and new query's weights are not in the first screen"
import json, sys
layout = json.load(open(sys.argv[1]))
maps = {h["id"]: h for h in layout["heatmaps"] if h["id"].startswith("decode")}
caches = sorted(i for i in maps if i.startswith("decode K ") or i.startswith("decode V "))
assert caches == ["decode K 0", "decode V 0"], "the selected head's K/V head alone, got %s" % caches
assert any(c["id"] == "decode one kv head" for c in layout["controls"]), "no line saying which K/V head is shown"
for i in caches + ["decode weights"]:
    h = maps[i]
    bottom, right = h["y0"] + h["cell"] * h["rows"], h["x0"] + h["cell"] * h["cols"]
    print("%s: %dx%d at %.0f px cells, bottom %.0f, the panel's %.0f" % (i, h["rows"], h["cols"], h["cell"], bottom, h["clip"][3]))
    assert bottom <= h["clip"][3] and right <= h["clip"][2], "%s passes the panel's first screen" % i
PY
echo "PASS: the cache heatmaps grow a column a step and hatch what the window evicts, as attnlab-cli decode; a model layer's bytes and a wide layer's first screen"
