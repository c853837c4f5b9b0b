#!/usr/bin/python3
"""Reads the numbers a heatmap prints in its cells back from a screenshot: each cell's ink (the
pixels far from its fill) is matched against every value from 0.00 to 1.00 drawn in DejaVu Sans
Mono, the window's font for values, at the size that fits the ink; the best match is the value
read. Prints the rows as JSON.
usage: read_cell_values.py SHOT.png HEATMAP_ID [WINDOW_PREFIX]"""
import json
import sys

from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
CANDIDATES = ["%.2f" % (i / 100) for i in range(101)]


def ink_mask(img, x0, y0, cell):
    """The cell's ink as a grey image (255: far from the fill) cropped to its bounding box (None
    when the cell is bare)."""
    inner = img.crop((x0 + 2, y0 + 2, x0 + cell - 3, y0 + cell - 3))
    fill = max(inner.getcolors(inner.width * inner.height))[1]
    ink = Image.new("L", inner.size)
    ink.putdata([min(255, sum(abs(a - b) for a, b in zip(p, fill))) for p in inner.getdata()])
    box = ink.point(lambda v: 255 if v > 150 else 0).getbbox()
    return ink.crop(box) if box else None


def rendered(text, size):
    font = ImageFont.truetype(FONT, size)
    canvas = Image.new("L", (size * len(text) + 8, size * 2))
    ImageDraw.Draw(canvas).text((4, 2), text, fill=255, font=font)
    return canvas.crop(canvas.point(lambda v: 255 if v > 150 else 0).getbbox())


def distance(a, b):
    """How far the grey levels are once b is scaled to a's box."""
    b = b.resize(a.size, Image.BILINEAR)
    return sum(abs(x - y) for x, y in zip(a.getdata(), b.getdata()))


def best_size(ink):
    """The font size whose "0.00" is as wide as the ink (every candidate has four glyphs)."""
    return min(range(8, 40), key=lambda s: abs(rendered("0.00", s).width - ink.width))


def read(shot, heatmap_id, window_prefix="Heads"):
    layout = json.load(open(shot + ".json"))
    hm = next(h for h in layout["heatmaps"]
              if h["id"] == heatmap_id and h["window"].startswith(window_prefix))
    img = Image.open(shot).convert("RGB")
    cell = int(hm["cell"])
    rows = []
    templates = None
    for r in range(hm["rows"]):
        row = []
        for c in range(hm["cols"]):
            ink = ink_mask(img, int(hm["x0"]) + c * cell, int(hm["y0"]) + r * cell, cell)
            if ink is None:
                row.append(None)
                continue
            if templates is None:
                size = best_size(ink)
                templates = {t: rendered(t, size) for t in CANDIDATES}
            row.append(float(min(CANDIDATES, key=lambda t: distance(ink, templates[t]))))
        rows.append(row)
    return hm, rows


if __name__ == "__main__":
    hm, rows = read(*sys.argv[1:])
    print(json.dumps({"head": hm["head"], "cell": hm["cell"], "values": rows}))
