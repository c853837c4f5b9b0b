#!/usr/bin/env python3
"""The Lines panel's pixels against the core's weights (head_stats.sh drives the window).

    check_lines.py plan TRACE.json SHOT.png PLAN.json   # lines of every head drawn; prints where to
                                                        # hover (a query) and click (a head's swatch)
    check_lines.py hover PLAN.json SHOT.png             # the hovered query's lines only
    check_lines.py toggled PLAN.json SHOT.png           # the clicked head's lines gone, the others kept

Geometry from the capture's layout dump: "lines area" (where the lines start and end), "lines
query i" and "lines key j" (each token's row; a line joins the rows' centres). The weights are
`attnlab-cli compute`'s (rows layout: heads[h].weights[i][j], query i, key j). A point is checked
in a 3 x 3 neighbourhood: "drawn" when a pixel differs from the background by more than 20 in a
channel, "background" when none differs by more than 12; points are chosen at least 6 px from every
line that may be drawn there (of weight 0.03 or more: a fainter one cannot move a pixel by 12), so
anti-aliasing cannot blur the verdict."""
import json
import math
import sys

from PIL import Image

MIN_WEIGHT = 0.005  # attnlab::exporter::kMinLineWeight: lighter lines are not drawn
FAINT = 0.03        # a line this light moves a pixel by at most 0.03 x 255 < 8: not "drawn" (12)
CLEAR = 6.0         # px from any other line that shows


def rects(dump):
    return {c["id"]: c["rect"] for c in json.load(open(dump))["controls"]}


def geometry(dump, weights):
    r = rects(dump)
    area = r["lines area"]
    centre = lambda rect: (rect[1] + rect[3]) / 2
    n_x, n_z = len(weights[0]), len(weights[0][0])
    qy = [centre(r["lines query %d" % i]) for i in range(n_x)]
    ky = [centre(r["lines key %d" % j]) for j in range(n_z)]
    lines = [(h, i, j, w[i][j]) for h, w in enumerate(weights) for i in range(n_x) for j in range(n_z)
             if w[i][j] >= MIN_WEIGHT]
    background_at = ((area[2] + r["lines key 0"][0]) / 2, ky[0])  # between the lines' ends and the labels
    return {"x0": area[0], "x1": area[2], "qy": qy, "ky": ky, "lines": lines, "background_at": background_at,
            "query_rects": [r["lines query %d" % i] for i in range(n_x)],
            "swatches": [r.get("lines head %d" % h) for h in range(len(weights))]}


def point(g, line, t):
    _, i, j, _ = line
    return (g["x0"] + t * (g["x1"] - g["x0"]), g["qy"][i] + t * (g["ky"][j] - g["qy"][i]))


def distance(g, p, line):
    _, i, j, _ = line
    ax, ay, bx, by = g["x0"], g["qy"][i], g["x1"], g["ky"][j]
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(p[0] - ax - t * dx, p[1] - ay - t * dy)


def clear_point(g, line, others, ts):
    """A point of `line` at one of `ts` at least CLEAR px from every line of `others`; None if none."""
    for t in ts:
        p = point(g, line, t)
        if all(distance(g, p, o) >= CLEAR for o in others if o[3] >= FAINT):
            return p
    return None


def difference(img, p, background):
    x, y = int(round(p[0])), int(round(p[1]))
    return max(abs(a - b) for dx in (-1, 0, 1) for dy in (-1, 0, 1)
               for a, b in zip(img.getpixel((x + dx, y + dy)), background))


def pixel(img, p):
    return img.getpixel((int(round(p[0])), int(round(p[1]))))


def expect(img, p, drawn, what, background):
    d = difference(img, p, background)
    print("%s at (%.0f, %.0f): %s, largest difference from the background %d" %
          (what, p[0], p[1], pixel(img, p), d))
    if drawn and d <= 20:
        sys.exit("FAIL: %s is not drawn" % what)
    if not drawn and d > 12:
        sys.exit("FAIL: %s is drawn" % what)


def plan(trace, shot, out):
    weights = [h["weights"] for h in json.load(open(trace))["heads"]]
    g = geometry(shot + ".json", weights)
    img = Image.open(shot).convert("RGB")
    background = pixel(img, g["background_at"])
    ts = [k / 40 for k in range(6, 19)]  # 0.15 .. 0.45: clear of the weights written at the keys' end
    # Hovered: query A; checked: a strong line of another query B, clear of all of A's lines.
    for a in range(len(g["qy"])):
        mine = [l for l in g["lines"] if l[1] == a]
        others = sorted((l for l in g["lines"] if l[1] != a and l[3] >= 0.3), key=lambda l: -l[3])
        for line in others:
            p = clear_point(g, line, mine, ts)
            if p:
                break
        else:
            continue
        own = clear_point(g, max(mine, key=lambda l: l[3]), [], ts)
        break
    else:
        sys.exit("FAIL: no query whose lines keep clear of another query's strong line")
    # Clicked: head H; checked: a strong line of H from query i to key j that the other heads
    # weigh little (a spread-out head draws every pair faintly, on the very same path), clear of
    # every other pair's lines: it must fade to what the other heads' weights leave; and a line
    # of another head where H's lines do not pass, which must stay.
    weight = {(l[0], l[1], l[2]): l[3] for l in g["lines"]}
    ts = [k / 40 for k in range(4, 37)]
    for hline in sorted((l for l in g["lines"] if l[3] >= 0.5), key=lambda l: -l[3]):
        h, i, j = hline[:3]
        rest = sum(weight.get((k, i, j), 0) for k in range(len(weights)) if k != h)
        q = rest <= 0.15 and clear_point(g, hline, [l for l in g["lines"] if (l[1], l[2]) != (i, j)], ts)
        kept_line = max((l for l in g["lines"] if l[0] != h and weight.get((h, l[1], l[2]), 0) < FAINT),
                        key=lambda l: l[3], default=None)
        kept = kept_line and clear_point(g, kept_line, [l for l in g["lines"] if l[0] == h], ts)
        if q and kept:
            break
    else:
        sys.exit("FAIL: no head with a line the other heads weigh little, clear of the other lines")
    json.dump({"background": background, "other": p, "own": own, "toggled": q, "kept": kept,
               "query": a, "head": h, "toggled_before": difference(img, q, background)}, open(out, "w"))
    expect(img, p, True, "query %d's line %s (before any hover)" % (line[1], line[:3]), background)
    expect(img, q, True, "head %d's line %s (before any click)" % (h, hline[:3]), background)
    query, swatch = g["query_rects"][a], g["swatches"][h]
    if swatch is None:
        sys.exit("FAIL: no swatch of head %d in the layout dump" % h)
    print(int((query[0] + query[2]) / 2), int((query[1] + query[3]) / 2),
          int((swatch[0] + swatch[2]) / 2), int((swatch[1] + swatch[3]) / 2), a, h)


def check(mode, plan_file, shot):
    p = json.load(open(plan_file))
    img = Image.open(shot).convert("RGB")
    bg = tuple(p["background"])
    if mode == "hover":
        expect(img, p["other"], False, "another query's strong line (query %d hovered)" % p["query"], bg)
        expect(img, p["own"], True, "the hovered query %d's strongest line" % p["query"], bg)
    else:
        # Hidden: the pixel keeps at most 40% of its difference from the background (what the
        # other heads' weights, 0.15 at most together, still draw there).
        after = difference(img, p["toggled"], bg)
        print("head %d's strong line at (%.0f, %.0f): difference from the background %d before the click, %d after" %
              (p["head"], p["toggled"][0], p["toggled"][1], p["toggled_before"], after))
        if after > 0.4 * p["toggled_before"]:
            sys.exit("FAIL: head %d's line is still drawn after a click on its swatch" % p["head"])
        expect(img, p["kept"], True, "another head's strongest line (head %d hidden)" % p["head"], bg)


if __name__ == "__main__":
    if sys.argv[1] == "plan":
        plan(*sys.argv[2:5])
    else:
        check(sys.argv[1], sys.argv[2], sys.argv[3])
