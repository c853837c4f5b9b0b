#!/usr/bin/env python3
"""Counts what docs/ARCHITECTURE.md promises of app/: files per folder, the longest files and
functions, and file-scope mutable state. `--check` exits 1 when a file is over 600 lines or a
function over 80 (the suite runs it). Functions are found the way this code base writes them:
a definition starts at column 0 and ends at the next line that is exactly "}" (namespaces are
not indented; member functions inside a class body count as part of the class, not as functions)."""
import argparse
import os
import re
import sys

MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80
SOURCE = re.compile(r"\.(cpp|h)$")
# A definition at column 0: a signature with '(' whose line (or a following one) ends in '{'.
DEF_START = re.compile(r"^[A-Za-z_][\w:<>,\s\*&~]*\b[\w:~]+\s*\(")
GLOBAL = re.compile(r"^(?!const|constexpr|using|namespace|template|struct|class|enum|typedef|#|//|static_assert)"
                    r"(static\s+)?[A-Za-z_][\w:<>,\s\*&]*\s[gs]?_?\w+(\s*=\s*[^;(]+)?;\s*(//.*)?$")


def functions(lines):
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


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("root", nargs="?", default=os.path.join(os.path.dirname(__file__), "..", "app"))
    parser.add_argument("--check", action="store_true", help="exit 1 past the limits")
    args = parser.parse_args()
    files, funcs, globals_ = [], [], []
    per_folder = {}
    for folder, _, names in os.walk(args.root):
        for name in sorted(names):
            if not SOURCE.search(name):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, args.root)
            per_folder[os.path.dirname(rel) or "."] = per_folder.get(os.path.dirname(rel) or ".", 0) + 1
            with open(path, encoding="utf-8") as f:
                lines = f.read().split("\n")
            code = [l.split("//")[0].rstrip() for l in lines]  # a trailing comment ends no line
            files.append((len(lines) - 1, rel))
            funcs += [(n, rel, first, name_) for name_, first, n in functions(code)]
            if name.endswith(".cpp"):
                globals_ += [(rel, i + 1, l.strip()) for i, l in enumerate(lines) if GLOBAL.match(l)]
    print("files per folder:", ", ".join(f"{k} {v}" for k, v in sorted(per_folder.items())))
    print("lines in all:", sum(n for n, _ in files))
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
    return 1 if args.check and (bad_files or bad_funcs) else 0


if __name__ == "__main__":
    sys.exit(main())
