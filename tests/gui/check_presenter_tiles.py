#!/usr/bin/python3
"""A presenter capture of a tiles step against `attnlab-cli flash` (tests/gui/presenter_tiles.sh):
the accent frame crosses the middle of each edge of the CLI's tile STEP on the scores heatmap
(presenter_engine_0) and of no other tile.
usage: check_presenter_tiles.py CAPTURE.png RUN.json STEP"""
import json
import sys

from PIL import Image


def framed(img, hm, fb, tile, block, n_z, accent):
    """Whether the accent colour lies within 6 pixels across the middle of each of the tile's edges."""
    r0, c0 = tile["q_block"] * block[0], tile["k_block"] * block[1]
    rows, cols = len(tile["m"]), min(block[1], n_z - c0)
    x0, y0, cell = hm["x0"] + c0 * hm["cell"], hm["y0"] + r0 * hm["cell"], hm["cell"]
    x1, y1 = x0 + cols * cell, y0 + rows * cell
    xm, ym = (x0 + x1) / 2, (y0 + y1) / 2
    for x, y, across_x in ((xm, y0, False), (xm, y1, False), (x0, ym, True), (x1, ym, True)):
        near = [(int(x * fb) + (d if across_x else 0), int(y * fb) + (0 if across_x else d)) for d in range(-6, 7)]
        if not any(max(abs(a - b) for a, b in zip(img.getpixel(p)[:3], accent)) <= 40 for p in near):
            return False
    return True


def main(capture, run_path, step):
    img = Image.open(capture).convert("RGB")
    dump = json.load(open(capture + ".json"))
    run = json.load(open(run_path))
    hm = next((h for h in dump["heatmaps"] if h["id"].startswith("presenter_engine_0")), None)
    if hm is None:
        sys.exit("FAIL: no presenter_engine_0 heatmap (the tiles step's scores) in the capture")
    accent = dump["first_run_hint"]["rgb"]
    fb = dump["framebuffer_scale"]
    wrong = [k for k, t in enumerate(run["tiles"])
             if framed(img, hm, fb, t, run["block"], hm["cols"], accent) != (k == step)]
    if wrong:
        sys.exit(f"FAIL: tiles {wrong} framed wrongly (the step's tile is {step})")
    print(f"outline: tile {step} of {len(run['tiles'])}, the CLI's loop order")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
