#!/usr/bin/env python3
"""check_arrangement.py must catch what it exists to catch: a panel off the window, two panels
overlapping, a missing bar, a panel over a bar; and pass a whole arrangement."""
import copy
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_arrangement import check  # noqa: E402

GOOD = {"display": [1280, 800], "font_size": 16, "arrangement": "normal", "lecture": False,
        "presenting": False, "menu_bar": [0, 0, 1280, 25], "status_bar": [0, 775, 1280, 25],
        "windows": [{"name": "Setup", "panels": ["Scenario", "Inputs"], "box": [0, 25, 320, 450]},
                    {"name": "Mask", "panels": ["Mask"], "box": [0, 480, 320, 295]},
                    {"name": "Formula", "panels": ["Formula"], "box": [325, 25, 600, 40]},
                    {"name": "Pipeline", "panels": ["Pipeline"], "box": [325, 70, 600, 705]}]}


def planted(change):
    doc = copy.deepcopy(GOOD)
    change(doc)
    return check(doc)


def main():
    assert check(GOOD, (1280, 800), False, False, ["Pipeline"]) == [], check(GOOD)
    offences = {
        "off the window": lambda d: d["windows"][3].update(box=[325, 70, 1000, 705]),
        "overlap": lambda d: d["windows"][1].update(box=[0, 400, 320, 300]),
        "no status bar": lambda d: d.update(status_bar=None),
        "over the menu bar": lambda d: d["windows"][0].update(box=[0, 10, 320, 400]),
        "under the status bar": lambda d: d["windows"][3].update(box=[325, 70, 600, 720]),
        "no formula strip": lambda d: d["windows"].pop(2),
        "not drawn": lambda d: d["windows"][1].update(box=None),
        "sliver": lambda d: d["windows"][1].update(box=[0, 480, 320, 5]),
    }
    for name, change in offences.items():
        assert planted(change), f"check_arrangement missed: {name}"
    assert check(GOOD, (1920, 1080)), "wrong size not caught"
    assert check(GOOD, None, True), "wrong lecture mode not caught"
    assert check(GOOD, has=["Heads"]), "missing panel not caught"
    print(f"ok: a whole arrangement passes, {len(offences) + 3} planted offences are caught")


if __name__ == "__main__":
    main()
