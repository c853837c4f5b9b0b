#!/usr/bin/env python3
"""Tests beside what they test (docs/ARCHITECTURE.md), checked on the tree: every core source
core/src/<name>.cpp has tests/test_<name>.cpp (or tests/test_<name>_*.cpp), every session source
app/session/<name>.cpp has tests/session/test_<name>.cpp (or test_<name>_*.cpp), unless a row of
the table in ARCHITECTURE.md's section "Tests beside what they test" names the test files that cover
it; every file a row names exists; no two test sources under tests/ share a file name; and every
test_<x>.cpp of tests/, tests/session, tests/view and tests/models keeps its contents in
`namespace test_<x> {` (the test binaries compile in unity batches: the namespace keeps each
file's helpers apart). Prints one line per offence; exit status 1 if any."""
import os
import re
import sys

# Sources that need a test, and where their tests live: (source folder, test folder).
RULES = [("core/src", "tests"), ("app/session", "tests/session")]
NAMESPACED = ["tests", "tests/session", "tests/view", "tests/models"]
TEST_SOURCE = (".cpp", ".h", ".py", ".sh", ".js")  # data files (fixtures) may repeat names
SECTION = "## Tests beside what they test"
TICKED = re.compile(r"`([^`]+)`")


def exceptions(root):
    """The table's rows as {source: [test files]}, and offences in the table itself."""
    path = os.path.join(root, "docs", "ARCHITECTURE.md")
    rows, found = {}, []
    if not os.path.exists(path):
        return rows, found
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start = text.find("\n" + SECTION + "\n")
    if start < 0:
        return rows, found
    section = text[start + len(SECTION) + 2:]
    section = section[:section.find("\n## ")] if "\n## " in section else section
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.lstrip().startswith("|") or len(cells) < 3:
            continue
        sources = TICKED.findall(cells[0])
        if not sources:
            continue  # the header or its rule
        tests = TICKED.findall(cells[1])
        for source in sources:
            rows[source] = tests
            if not tests:
                found.append(f"docs/ARCHITECTURE.md: the row of {source} names no test file")
            if not os.path.exists(os.path.join(root, source)):
                found.append(f"docs/ARCHITECTURE.md: the row of {source} names a source that does not exist")
        for test in tests:
            if not os.path.isfile(os.path.join(root, test)):
                found.append(f"docs/ARCHITECTURE.md: {test} (row of {', '.join(sources)}) does not exist")
    return rows, found


def owner(test_name, stems):
    """The source a test file test_<x>.cpp belongs to: the longest stem with x == stem or x
    starting with stem + "_" (test_matrix_text.cpp tests matrix_text.cpp, not matrix.cpp)."""
    x = test_name[len("test_"):-len(".cpp")]
    owners = [s for s in stems if x == s or x.startswith(s + "_")]
    return max(owners, key=len) if owners else None


def untested_sources(root, rows):
    found = []
    for source_dir, test_dir in RULES:
        sources, tests = os.path.join(root, source_dir), os.path.join(root, test_dir)
        stems = sorted(n[:-len(".cpp")] for n in os.listdir(sources) if n.endswith(".cpp")) \
            if os.path.isdir(sources) else []
        test_names = [t for t in os.listdir(tests) if t.startswith("test_") and t.endswith(".cpp")] \
            if os.path.isdir(tests) else []
        tested = {owner(t, stems) for t in test_names}
        for stem in stems:
            if stem in tested or f"{source_dir}/{stem}.cpp" in rows:
                continue
            found.append(f"{source_dir}/{stem}.cpp: no {test_dir}/test_{stem}.cpp (or test_{stem}_*.cpp) "
                         f"and no row in docs/ARCHITECTURE.md's \"{SECTION[3:]}\"")
    return found


def shared_names(root):
    seen = {}
    for folder, dirs, files in os.walk(os.path.join(root, "tests")):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in files:
            if name.endswith(TEST_SOURCE):
                seen.setdefault(name, []).append(os.path.relpath(os.path.join(folder, name), root))
    return [f"{name}: one file name for {', '.join(sorted(paths))}"
            for name, paths in sorted(seen.items()) if len(paths) > 1]


def missing_namespaces(root):
    found = []
    for folder in NAMESPACED:
        path = os.path.join(root, folder)
        for name in sorted(os.listdir(path)) if os.path.isdir(path) else []:
            if not (name.startswith("test_") and name.endswith(".cpp")):
                continue
            stem = name[:-len(".cpp")]
            opening = re.compile(r"^\s*namespace\s+(\w+::)*" + re.escape(stem) + r"\s*\{", re.M)
            with open(os.path.join(path, name), encoding="utf-8") as f:
                if not opening.search(f.read()):
                    found.append(f"{folder}/{name}: its contents are not in `namespace {stem} {{`")
    return found


def offences(root):
    rows, found = exceptions(root)
    return found + untested_sources(root, rows) + shared_names(root) + missing_namespaces(root)


def self_test():
    """The check finds what it is meant to find: a tree with one offence of each kind."""
    import tempfile
    table = ("# How\n\n" + SECTION + "\n\n| source | test file(s) | why |\n| --- | --- | --- |\n"
             "| `core/src/covered.cpp` | `tests/test_core.cpp` | tested as part of the core |\n"
             "| `core/src/stale.cpp` | `tests/test_gone.cpp` | its test was removed |\n\n## Next\n")
    files = {"docs/ARCHITECTURE.md": table,
             "core/src/attention.cpp": "", "core/src/covered.cpp": "", "core/src/stale.cpp": "",
             "core/src/lonely.cpp": "", "core/src/task_pool.h": "",
             "core/src/matrix.cpp": "", "core/src/matrix_text.cpp": "",
             "tests/test_matrix_text.cpp": "namespace test_matrix_text {\n}\n",
             "app/session/recent_files.cpp": "", "app/session/trace_worker.cpp": "",
             "app/session/session.cpp": "",
             "tests/test_core.cpp": "namespace test_core {\n}\n",
             "tests/test_attention.cpp": "namespace test_attention {\n}\n",
             "tests/test_stale.cpp": "namespace test_stale {\n}\n",
             "tests/session/test_recent_files.cpp": "namespace a::b {\nnamespace test_recent_files {\n}\n}\n",
             "tests/session/test_session_save.cpp": "namespace test_session_save {\n}\n",
             "tests/session/test_core.cpp": "namespace test_core {\n}\n",
             "tests/view/test_plane.cpp": "namespace test_other {\n}\n",
             "tests/fixtures/a/config.json": "{}", "tests/fixtures/b/config.json": "{}"}
    with tempfile.TemporaryDirectory() as root:
        for name, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(name)), exist_ok=True)
            with open(os.path.join(root, name), "w", encoding="utf-8") as f:
                f.write(text)
        found = offences(root)
        expected = ["tests/test_gone.cpp (row of core/src/stale.cpp) does not exist",
                    "core/src/lonely.cpp: no tests/test_lonely.cpp",
                    "core/src/matrix.cpp: no tests/test_matrix.cpp",
                    "app/session/trace_worker.cpp: no tests/session/test_trace_worker.cpp",
                    "test_core.cpp: one file name for tests/session/test_core.cpp, tests/test_core.cpp",
                    "tests/view/test_plane.cpp: its contents are not in `namespace test_plane {`"]
        missing = [e for e in expected if not any(e in line for line in found)]
        if missing or len(found) != len(expected):
            print("self-test failed: expected", expected, "found", found)
            return 1
    print("self-test: every kind of offence found")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    found = offences(root)
    for line in found:
        print(line)
    print(f"{len(found)} offence(s) against tests beside what they test" if found
          else "tests: every core and session source has its tests beside it")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
