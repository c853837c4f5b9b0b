#!/usr/bin/python3
"""The presenter's captures of every step of a lesson at two window sizes
(tests/gui/presenter_sizes.sh): at each size, the cell sides of every step's matrices are within
0.7x of each other (every head's small multiples aside), and the lesson's size fills a stage: on
the step that fills its stage best, the matrices' cells alone (labels and colour bar aside) span
at least 45% of the room the text leaves (the "presenter stage" control) across or down.
usage: check_presenter_sizes.py DIR SIZE OTHER LAST_STEP   (DIR/SIZE-STEP.png.json)"""
import json
import sys

RATIO = 0.7  # the rule for one lesson's slides, kept from step to step
FILLED = 0.45  # of the room, by the cells alone: with their labels and colour bar, about half


def step_maps(path):
    """(cell sides, extent of the cells, stage rect) of one capture's presenter matrices."""
    dump = json.load(open(path))
    maps = [h for h in dump["heatmaps"] if h["id"].startswith("presenter")]
    small = any(h.get("matrix") == "weights" and h["id"].startswith("presenter/") for h in maps) and len(maps) > 1
    stage = next((c["rect"] for c in dump["controls"] if c["id"] == "presenter stage"), None)
    if not maps or small:
        return [], None, stage
    x0 = min(h["x0"] for h in maps)
    y0 = min(h["y0"] for h in maps)
    x1 = max(h["x0"] + h["cols"] * h["cell"] for h in maps)
    y1 = max(h["y0"] + h["rows"] * h["cell"] for h in maps)
    return [h["cell"] for h in maps], (x0, y0, x1, y1), stage


def check(folder, size, last):
    errors = []
    cells, steps = [], []
    for step in range(last + 1):
        sides, extent, stage = step_maps(f"{folder}/{size}-{step}.png.json")
        if stage is None:
            errors.append(f"{size} step {step}: no presenter stage mark")
            continue
        steps.append((step, sides, extent, stage))
        cells += sides
    if not cells:
        return errors + [f"{size}: no matrix on any step"]
    low, high = min(cells), max(cells)
    print(f"{size}: cells " + " ".join(f"{s}:" + "/".join(str(round(c)) for c in sides) for s, sides, _, _ in steps)
          + f"; ratio {low / high:.2f}")
    if low / high < RATIO:
        errors.append(f"{size}: cells from {low:.0f} to {high:.0f} px, ratio {low / high:.2f} < {RATIO}")
    fills = []
    for step, sides, extent, (sx0, sy0, sx1, sy1) in steps:
        if sides and min(sides) == low:
            x0, y0, x1, y1 = extent
            fills.append((max((x1 - x0) / (sx1 - sx0), (y1 - y0) / (sy1 - sy0)), step))
    best, step = max(fills)
    print(f"{size}: at the lesson's size, step {step} fills its stage best: {best:.0%} across or down")
    if best < FILLED:
        errors.append(f"{size}: no step at the lesson's size fills its stage: at best {best:.0%} (step {step})")
    return errors


def main(folder, size, other, last):
    errors = check(folder, size, int(last)) + check(folder, other, int(last))
    for e in errors:
        print("FAIL:", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
