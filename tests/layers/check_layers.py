#!/usr/bin/env python3
"""The window's layers (docs/ARCHITECTURE.md), checked on the sources: each folder of app/ includes
only from itself and the folders below it, the GUI-free ones (session/, view/) include no ImGui,
GLFW, OpenGL or glad header, and no two units of one folder (X.h and X.cpp count as one) include
each other. Prints every offending #include or pair; exit status 1 if any."""
import os
import re
import sys

# Folder -> the app/ folders its files may include from (besides itself). The core's headers
# (attnlab/...) are open to every layer.
ALLOWED = {
    "session": [],
    "view": [],
    "widgets": ["view", "session"],
    "panels": ["widgets", "view", "session"],
    "shell": ["panels", "widgets", "view", "session"],
    "instruments": ["shell", "panels", "widgets", "view", "session"],
}
GUI_FREE = ("session", "view")
GUI_HEADER = re.compile(r"^(imgui|imgui_internal|imgui_impl_\w+|GLFW/.*|GL/.*|glad/.*|KHR/.*)\.h$")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def offences(app_dir):
    found = []
    for folder in sorted(os.listdir(app_dir)):
        path = os.path.join(app_dir, folder)
        if not os.path.isdir(path):
            continue
        if folder not in ALLOWED:
            found.append(f"app/{folder}/: a folder the layers do not know (add it to {__file__})")
            continue
        for name in sorted(os.listdir(path)):
            if not name.endswith((".h", ".cpp")):
                continue
            with open(os.path.join(path, name), encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    header = m.group(2)
                    close = ">" if m.group(1) == "<" else '"'
                    where = f"app/{folder}/{name}:{number}: #include {m.group(1)}{header}{close}"
                    top = header.split("/")[0] if "/" in header else None
                    if folder in GUI_FREE and GUI_HEADER.match(header):
                        found.append(f"{where}: app/{folder}/ is GUI-free")
                    elif top in ALLOWED and top != folder and top not in ALLOWED[folder]:
                        found.append(f"{where}: app/{folder}/ may not include from app/{top}/")
                    elif m.group(1) == '"' and "/" not in header and not os.path.exists(
                            os.path.join(path, header)):
                        found.append(f"{where}: name app/ headers by their folder")
        found += cycles(folder, path)
    return found


def cycles(folder, path):
    """Pairs of units of one folder that include each other, as offences."""
    return [f"app/{folder}/{a} and app/{folder}/{b} include each other: extract what both need "
            "into its own header, or move the function to its one caller"
            for a, b in include_pairs(folder, path)]


def include_pairs(folder, path):
    """(A, B) for units of one folder that include each other (A.h or A.cpp includes B.h while B.h
    or B.cpp includes A.h): one unit split in two, or a declaration both need that belongs alone.
    Also used by scripts/code_shape.py, which counts such a pair as one file."""
    uses = {}  # unit -> the units of this folder whose header it includes
    for name in sorted(os.listdir(path)):
        unit, ext = os.path.splitext(name)
        if ext not in (".h", ".cpp"):
            continue
        with open(os.path.join(path, name), encoding="utf-8") as f:
            for line in f:
                m = INCLUDE.match(line)
                if m and m.group(1) == '"' and m.group(2).startswith(folder + "/"):
                    other = os.path.splitext(m.group(2)[len(folder) + 1:])[0]
                    if other != unit and "/" not in other:
                        uses.setdefault(unit, set()).add(other)
    return [(a, b) for a in sorted(uses) for b in sorted(uses[a]) if a < b and a in uses.get(b, ())]


def self_test():
    """The check finds what it is meant to find: a tree with one offence of each kind."""
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        files = {"session/doc.h": "#include <imgui.h>\n#include \"session/io.h\"\n",
                 "session/io.h": "#include <GLFW/glfw3.h>\n",
                 "widgets/w.cpp": "#include \"shell/app.h\"\n#include \"view/stage.h\"\n",
                 "panels/p.cpp": "#include \"app_state.h\"\n",
                 "widgets/a.cpp": "#include \"widgets/b.h\"\n",
                 "widgets/b.cpp": "#include \"widgets/a.h\"\n",
                 "widgets/a.h": "", "widgets/b.h": ""}
        for name, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(name)), exist_ok=True)
            with open(os.path.join(root, name), "w", encoding="utf-8") as f:
                f.write(text)
        found = offences(root)
        expected = ["session/doc.h:1", "session/io.h:1", "widgets/w.cpp:1", "panels/p.cpp:1",
                    "widgets/a and app/widgets/b include each other"]
        missing = [e for e in expected if not any(e in line for line in found)]
        if missing or len(found) != len(expected):
            print("self-test failed: expected", expected, "found", found)
            return 1
    print("self-test: every kind of offence found")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    app_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "app")
    found = offences(app_dir)
    for line in found:
        print(line)
    print(f"{len(found)} include(s) across the layers or include cycles" if found else "layers: every include points down")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
