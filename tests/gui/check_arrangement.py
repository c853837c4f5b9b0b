#!/usr/bin/env python3
"""Checks one arrangement written by attnlab-harness --layout-log (or a screenshot's
OUT.png.json "window_arrangement"): the menu bar at the top and the status bar at the bottom, both the
window's full width; every panel window inside the area between them; no two panels overlapping;
the formula strip drawn (unless presenting); the expected display size, lecture mode and panels.

usage: check_arrangement.py FILE [--size WxH] [--lecture 0|1] [--presenting 0|1] [--has NAME]...
Exit 0 when all hold, else 1 with one line per failure."""
import argparse
import json
import sys


def box(b):
    x, y, w, h = b
    return x, y, x + w, y + h


def overlap(a, b):
    ax0, ay0, ax1, ay1 = box(a)
    bx0, by0, bx1, by1 = box(b)
    return ax0 < bx1 and bx0 < ax1 and ay0 < by1 and by0 < ay1


def check(doc, size=None, lecture=None, presenting=None, has=()):
    errors = []
    dw, dh = doc["display"]
    if size and (round(dw), round(dh)) != size:
        errors.append(f"display is {dw:g}x{dh:g}, expected {size[0]}x{size[1]}")
    if lecture is not None and doc["lecture"] != lecture:
        errors.append(f"lecture mode is {doc['lecture']}, expected {lecture}")
    if presenting is not None and doc["presenting"] != presenting:
        errors.append(f"presenting is {doc['presenting']}, expected {presenting}")
    menu, status = doc["menu_bar"], doc["status_bar"]
    if menu is None:
        errors.append("no menu bar")
    elif menu[0] != 0 or menu[1] != 0 or menu[2] != dw:
        errors.append(f"menu bar at {menu}, expected at the top, {dw:g} wide")
    if status is None:
        errors.append("no status bar")
    elif abs(status[1] + status[3] - dh) > 1 or status[2] != dw:  # ImGui rounds its position
        errors.append(f"status bar at {status}, expected at the bottom, {dw:g} wide")
    top = menu[1] + menu[3] if menu else 0
    bottom = status[1] if status else dh
    windows = doc["windows"]
    names = [n for w in windows for n in w["panels"]]
    for w in windows:
        b = w["box"]
        if b is None:
            errors.append(f"{w['name']} is placed but not drawn")
            continue
        x0, y0, x1, y1 = box(b)
        if x0 < 0 or y0 < top or x1 > dw or y1 > bottom:
            errors.append(f"{w['name']} at {b} leaves the area 0..{dw:g} x {top:g}..{bottom:g}")
        if b[2] < 40 or b[3] < 20:
            errors.append(f"{w['name']} is a sliver: {b}")
    drawn = [w for w in windows if w["box"] is not None]
    for i, a in enumerate(drawn):
        for b in drawn[i + 1:]:
            if overlap(a["box"], b["box"]):
                errors.append(f"{a['name']} {a['box']} overlaps {b['name']} {b['box']}")
    if not doc["presenting"] and "Formula" not in names:
        errors.append("no formula strip")
    for name in has:
        if name not in names:
            errors.append(f"no {name} panel (open: {', '.join(names)})")
    return errors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--size")
    ap.add_argument("--lecture", type=int)
    ap.add_argument("--presenting", type=int)
    ap.add_argument("--has", action="append", default=[])
    a = ap.parse_args()
    doc = json.load(open(a.file))
    doc = doc.get("window_arrangement", doc)
    size = tuple(int(v) for v in a.size.split("x")) if a.size else None
    errors = check(doc, size, None if a.lecture is None else bool(a.lecture),
                   None if a.presenting is None else bool(a.presenting), a.has)
    for e in errors:
        print(f"arrangement: {e}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
