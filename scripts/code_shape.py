#!/usr/bin/env python3
"""Counts what docs/ARCHITECTURE.md promises of app/: files per folder, the longest files and
functions, and file-scope mutable state. `--check` exits 1 when a file is over 600 lines or a
function over 80 (the suite runs it). Functions are found the way this code base writes them:
a definition starts at column 0 and ends at the next line that is exactly "}" (namespaces are
not indented), or, defined inside a class body, starts one level into the body and ends at the
next line that is "}" at its indentation.

A pair of units of one folder that include each other (tests/layers/check_layers.py) is one unit
split in two: the pair's files count as one file, and a function as long as itself plus the
functions of the other half that it calls, so a split that only made them fit is still over."""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "layers"))
from check_layers import include_pairs  # noqa: E402

MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80
SOURCE = re.compile(r"\.(cpp|h)$")
# A definition at column 0: a signature with '(' whose line (or a following one) ends in '{'.
DEF_START = re.compile(r"^[A-Za-z_][\w:<>,\s\*&~]*\b[\w:~]+\s*\(")
GLOBAL = re.compile(r"^(?!const|constexpr|using|namespace|template|struct|class|enum|typedef|#|//|static_assert)"
                    r"(static\s+)?[A-Za-z_][\w:<>,\s\*&]*\s[gs]?_?\w+(\s*=\s*[^;(]+)?;\s*(//.*)?$")


CLASS_START = re.compile(r"^(\s*)(class|struct)\s+\w+[^;()]*\{\s*$")
NOT_A_FUNCTION = re.compile(r"^(if|for|while|switch|else|do|return|case|catch|try)\b|\[[^\]]*\]\s*\(")


def functions(lines):
    """(name, first line, length) of each function defined at column 0 or in a class body."""
    return toplevel_functions(lines) + member_functions(lines)


def member_functions(lines):
    """(name, first line, length) of each function defined inside a class body (at any depth of
    nested classes), one indentation level into the body."""
    out = []
    for c, line in enumerate(lines):
        m = CLASS_START.match(line)
        if not m:
            continue
        indent = m.group(1)
        end = next((k for k in range(c + 1, len(lines)) if lines[k].rstrip() == indent + "};"), len(lines))
        member = re.compile("^" + indent + r"  (?=\S)")
        i = c + 1
        while i < end:
            text = lines[i].strip()
            if (member.match(lines[i]) and DEF_START.match(text) and not NOT_A_FUNCTION.match(text)
                    and not text.endswith(";")):
                j = i
                while j < end and "{" not in lines[j] and not lines[j].rstrip().endswith(";"):
                    j += 1
                if j < end and "{" in lines[j]:
                    close = indent + "  }"
                    k = j if lines[j].rstrip().endswith("}") else next(
                        (k for k in range(j + 1, end) if lines[k].rstrip() == close), end)
                    out.append((text.split("(")[0].split()[-1], i + 1, k - i + 1))
                    i = k + 1
                    continue
            i += 1
    return out


def toplevel_functions(lines):
    """(name, first line, length) of each function defined at column 0."""
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if DEF_START.match(line) and not line.rstrip().endswith(";"):
            j = i
            while j < len(lines) and "{" not in lines[j] and not lines[j].rstrip().endswith(";"):
                j += 1
            if j < len(lines) and "{" in lines[j]:
                if lines[j].rstrip().endswith("}"):  # one-line body
                    out.append((line.split("(")[0].split()[-1], i + 1, j - i + 1))
                    i = j + 1
                    continue
                k = j + 1
                while k < len(lines) and lines[k].rstrip() != "}":
                    k += 1
                out.append((line.split("(")[0].split()[-1], i + 1, k - i + 1))
                i = k + 1
                continue
        i += 1
    return out


def self_test():
    """The check finds what it is meant to find: a member function too long inside its class
    body, and a file and a function that fit only because a unit was split in two that include
    each other."""
    import contextlib
    import io
    import tempfile
    long_body = "".join(f"    x += {i};\n" for i in range(MAX_FUNCTION_LINES))
    half = "".join(f"int f{i}() {{ return {i}; }}\n" for i in range(MAX_FILE_LINES // 2 + 10))
    helper = "void Helper() {\n" + long_body[: len(long_body) // 2] + "}\n"
    files = {"panels/p.cpp": "class P {\n public:\n  void Draw() {\n" + long_body + "  }\n};\n",
             "widgets/a.h": "", "widgets/b.h": "",
             "widgets/a.cpp": '#include "widgets/b.h"\nvoid Big() {\n  Helper();\n'
                              + long_body[: len(long_body) // 2] + "}\n" + half,
             "widgets/b.cpp": '#include "widgets/a.h"\n' + helper + half}
    with tempfile.TemporaryDirectory() as root:
        for name, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(name)), exist_ok=True)
            with open(os.path.join(root, name), "w", encoding="utf-8") as f:
                f.write(text)
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            status = shape(root, True)
    found = err.getvalue()
    expected = ["panels/p.cpp:3 Draw", "widgets/a+b (include each other)",
                "widgets/a.cpp:2 Big (with what it calls in b)"]
    missing = [e for e in expected if e not in found]
    if status != 1 or missing:
        print("self-test failed: expected", expected, "found", found)
        return 1
    print("self-test: a long member function and a split that only fits found")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("root", nargs="?", default=os.path.join(os.path.dirname(__file__), "..", "app"))
    parser.add_argument("--check", action="store_true", help="exit 1 past the limits")
    parser.add_argument("--self-test", action="store_true", help="check the checker on a made-up tree")
    args = parser.parse_args()
    return self_test() if args.self_test else shape(args.root, args.check)


def shape(root, check):
    """Prints the counts; with `check`, returns 1 past the limits."""
    files, funcs, globals_ = [], [], []
    per_folder = {}
    bodies = {}  # rel path -> its lines, for the functions of a unit split in two
    for folder, _, names in os.walk(root):
        for name in sorted(names):
            if not SOURCE.search(name):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            per_folder[os.path.dirname(rel) or "."] = per_folder.get(os.path.dirname(rel) or ".", 0) + 1
            with open(path, encoding="utf-8") as f:
                lines = f.read().split("\n")
            code = [l.split("//")[0].rstrip() for l in lines]  # a trailing comment ends no line
            files.append((len(lines) - 1, rel))
            funcs += [(n, rel, first, name_) for name_, first, n in functions(code)]
            bodies[rel] = code
            if name.endswith(".cpp"):
                globals_ += [(rel, i + 1, l.strip()) for i, l in enumerate(lines) if GLOBAL.match(l)]
    print("files per folder:", ", ".join(f"{k} {v}" for k, v in sorted(per_folder.items())))
    print("lines in all:", sum(n for n, _ in files))
    files, funcs = joined_splits(root, files, funcs, bodies)
    for n, rel in sorted(files, reverse=True)[:5]:
        print(f"  {n:5d} lines  {rel}")
    print("longest functions:")
    for n, rel, first, name in sorted(funcs, reverse=True)[:5]:
        print(f"  {n:5d} lines  {rel}:{first} {name}")
    print(f"file-scope variables in .cpp files: {len(globals_)}")
    for rel, line, text in globals_:
        print(f"  {rel}:{line}: {text}")
    bad_files = [(n, rel) for n, rel in files if n > MAX_FILE_LINES]
    bad_funcs = [(n, rel, first, name) for n, rel, first, name in funcs if n > MAX_FUNCTION_LINES]
    for n, rel in bad_files:
        print(f"over {MAX_FILE_LINES} lines: {rel} ({n})", file=sys.stderr)
    for n, rel, first, name in bad_funcs:
        print(f"function over {MAX_FUNCTION_LINES} lines: {rel}:{first} {name} ({n})", file=sys.stderr)
    return 1 if check and (bad_files or bad_funcs) else 0


def joined_splits(root, files, funcs, bodies):
    """Files and functions with each pair of units that include each other counted as one: the
    pair's lines as one file "a+b", and each function plus the other half's functions it calls."""
    joined_files, joined_funcs = [], []
    for folder in sorted(os.listdir(root)):
        path = os.path.join(root, folder)
        if not os.path.isdir(path):
            continue
        for a, b in include_pairs(folder, path):
            halves = {u: [os.path.join(folder, u + ext) for ext in (".h", ".cpp")] for u in (a, b)}
            rels = halves[a] + halves[b]
            joined_files.append((sum(n for n, rel in files if rel in rels), f"{folder}/{a}+{b} (include each other)"))
            for u, other in ((a, b), (b, a)):
                theirs = [(n, name) for n, rel, _, name in funcs if rel in halves[other]]
                for n, rel, first, name in funcs:
                    if rel not in halves[u]:
                        continue
                    body = "\n".join(bodies[rel][first - 1:first - 1 + n])
                    # Free calls only: a member call (x.F(), p->F()) is some other class's F.
                    called = sum(m for m, callee in theirs
                                 if re.search(r"(?<![\w.>])" + re.escape(callee.split("::")[-1]) + r"\(", body))
                    if called:
                        joined_funcs.append((n + called, rel, first, name + f" (with what it calls in {other})"))
    return files + joined_files, funcs + joined_funcs


if __name__ == "__main__":
    sys.exit(main())
