#!/usr/bin/env python3
"""The window's layers (docs/ARCHITECTURE.md), checked on the sources: each folder of app/ includes
only from itself and the folders below it, and the GUI-free ones (session/, view/) include no
ImGui, GLFW, OpenGL or glad header. Prints every offending #include; exit status 1 if any."""
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
    return found


def self_test():
    """The check finds what it is meant to find: a tree with one offence of each kind."""
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        files = {"session/doc.h": "#include <imgui.h>\n#include \"session/io.h\"\n",
                 "session/io.h": "#include <GLFW/glfw3.h>\n",
                 "widgets/w.cpp": "#include \"shell/app.h\"\n#include \"view/stage.h\"\n",
                 "panels/p.cpp": "#include \"app_state.h\"\n"}
        for name, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(name)), exist_ok=True)
            with open(os.path.join(root, name), "w", encoding="utf-8") as f:
                f.write(text)
        found = offences(root)
        expected = ["session/doc.h:1", "session/io.h:1", "widgets/w.cpp:1", "panels/p.cpp:1"]
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
    print(f"{len(found)} include(s) across the layers" if found else "layers: every include points down")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
