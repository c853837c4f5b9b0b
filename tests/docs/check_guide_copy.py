#!/usr/bin/env python3
"""README.md carries a copy of docs/GUIDE.md (the guide the Help panel shows) between two markers;
this check fails when the copy and the guide differ, naming the first line that does.

usage: check_guide_copy.py README.md docs/GUIDE.md [--write]   (--write: refresh the copy)
       check_guide_copy.py --self-test
"""
import sys

BEGIN = "<!-- guide: begin"
END = "<!-- guide: end -->"


def split(readme):
    """(before, copy, after): the copy is the lines strictly between the two marker lines."""
    lines = readme.splitlines(keepends=True)
    starts = [i for i, l in enumerate(lines) if l.startswith(BEGIN)]
    ends = [i for i, l in enumerate(lines) if l.startswith(END)]
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        raise ValueError(f"README.md: expected one '{BEGIN} ...' line and, after it, one '{END}' line")
    b, e = starts[0], ends[0]
    return "".join(lines[: b + 1]), "".join(lines[b + 1 : e]), "".join(lines[e:])


def first_difference(copy, guide):
    """The first differing line as 'line N of docs/GUIDE.md: ...', or None when equal."""
    if copy == guide:
        return None
    a, b = copy.splitlines(), guide.splitlines()
    for n in range(max(len(a), len(b))):
        x = a[n] if n < len(a) else "<end>"
        y = b[n] if n < len(b) else "<end>"
        if x != y:
            return f"line {n + 1} of docs/GUIDE.md: README has {x!r}, the guide {y!r}"
    return "the two differ only in the final newline"


def self_test():
    guide = "Intro.\n\n### A\n\n- one\n"
    good = f"# R\n{BEGIN} -->\n{guide}{END}\nafter\n"
    assert first_difference(split(good)[1], guide) is None
    stale = good.replace("- one", "- two")
    assert "line 5" in first_difference(split(stale)[1], guide)
    for broken in (good.replace(END, ""), good + f"{BEGIN} -->\n"):
        try:
            split(broken)
        except ValueError:
            continue
        raise AssertionError("missing or doubled markers were not refused")
    print("self-test passed")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) not in (3, 4) or argv[3:] not in ([], ["--write"]):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    readme_path, guide_path = argv[1], argv[2]
    with open(readme_path, encoding="utf-8") as f:
        readme = f.read()
    with open(guide_path, encoding="utf-8") as f:
        guide = f.read()
    try:
        before, copy, after = split(readme)
    except ValueError as e:
        print(f"FAIL: {e}")
        return 1
    if argv[3:] == ["--write"]:
        with open(readme_path, "w", encoding="utf-8") as f:
            f.write(before + guide + after)
        return 0
    diff = first_difference(copy, guide)
    if diff:
        print(f"FAIL: README.md's copy of the guide is stale, {diff}")
        print(f"      refresh it: python3 {argv[0]} {readme_path} {guide_path} --write")
        return 1
    print("README.md's copy of docs/GUIDE.md is identical")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
