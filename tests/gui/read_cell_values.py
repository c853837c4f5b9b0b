#!/usr/bin/python3
"""Reads the numbers a heatmap prints in its cells back from a screenshot: each cell's ink (the
pixels of the ink's colour, not the fill's nor a masked cell's hatch) is matched, three times
enlarged, against every value from 0.00 to 1.00 drawn in DejaVu Sans Mono, the window's font for
values, at the size that fits the ink; the best match is the value read. Prints the rows as JSON.
usage: read_cell_values.py SHOT.png HEATMAP_ID [WINDOW_PREFIX]"""
import json
import sys

from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
CANDIDATES = ["%.2f" % (i / 100) for i in range(101)]
UPSCALE = 3


# The colours heatmap.cpp writes values in: dark on light fills, light on dark ones (Luminance).
DARK_INK, LIGHT_INK = (16, 16, 16), (250, 250, 250)


def ink_mask(img, x0, y0, cell):
    """The cell's ink as a grey image (255: the ink's colour, 0: the fill's; a masked cell's hatch,
    between them, stays faint) cropped to its bounding box (None when the cell is bare)."""
    inner = img.crop((x0 + 1, y0 + 1, x0 + cell - 1, y0 + cell - 1))  # the gap is the last pixel
    fill = max(inner.getcolors(inner.width * inner.height))[1]
    dist = lambda p, q: sum(abs(a - b) for a, b in zip(p, q))
    color = DARK_INK if (0.2126 * fill[0] + 0.7152 * fill[1] + 0.0722 * fill[2]) / 255 > 0.5 else LIGHT_INK
    span = dist(color, fill)
    ink = Image.new("L", inner.size)
    ink.putdata([max(0, min(255, int(255 * (1 - dist(p, color) / span)))) for p in inner.getdata()])
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
                templates = {t: rendered(t, size * UPSCALE) for t in CANDIDATES}
            # Compared 3 times larger: 14 px digits are 9 pixels tall, where a 0's dot and a 6's
            # bar differ by a pixel or two of a resampled template.
            big = ink.resize((ink.width * UPSCALE, ink.height * UPSCALE), Image.BICUBIC)
            row.append(float(min(CANDIDATES, key=lambda t: distance(big, templates[t]))))
        rows.append(row)
    return hm, rows


if __name__ == "__main__":
    hm, rows = read(*sys.argv[1:])
    print(json.dumps({"head": hm["head"], "cell": hm["cell"], "values": rows}))
