#!/usr/bin/env python3
"""Prints the tables of models/src/unicode_classes.cpp that make attnlab's BERT normalizer and
pre-tokenizer see characters as Hugging Face's tokenizers does: its BertNormalizer (clean_text,
strip_accents) and BertPreTokenizer ask the Rust crate unicode_categories 0.1, whose tables are
Unicode 8.0's, while attnlab asks utf8proc (Unicode 15). Every code point is put through Hugging
Face's own normalizer and pre-tokenizer (the npm package @anush008/tokenizers in .test-data/, see
scripts/install-deps.sh) and compared with utf8proc's general category; the differences are printed
as ranges to add to or remove from each class.

    python3 scripts/bert_unicode_tables.py
"""
import ctypes
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, ".test-data", "hf-tokenizers", "package", "index.js")

PROBE = r"""
const t = require(process.argv[2]);
const pre = t.bertPreTokenizer();
const clean = t.bertNormalizer({cleanText: true, handleChineseChars: false, stripAccents: false, lowercase: false});
const strip = t.bertNormalizer({cleanText: false, handleChineseChars: false, stripAccents: true, lowercase: false});
const punct = [], removed = [], stripped = [];
for (let c = 0; c <= 0x10FFFF; ++c) {
  if (c >= 0xD800 && c <= 0xDFFF) continue;
  const ch = String.fromCodePoint(c);
  if (pre.preTokenizeString('a' + ch + 'b').length === 3) punct.push(c);
  if (clean.normalizeString('a' + ch + 'b') === 'ab') removed.push(c);
  if (strip.normalizeString(ch) === '') stripped.push(c);
}
process.stdout.write(JSON.stringify({punct, removed, stripped}));
"""

CATEGORIES = ["Cn", "Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps",
              "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co"]


def main():
    if not os.path.exists(PACKAGE):
        sys.exit(PACKAGE + " is missing: run scripts/install-deps.sh")
    with tempfile.NamedTemporaryFile("w", suffix=".js", delete=False) as probe:
        probe.write(PROBE)
    try:
        hf = json.loads(subprocess.check_output(["node", probe.name, PACKAGE]))
    finally:
        os.unlink(probe.name)
    utf8proc = ctypes.CDLL("libutf8proc.so.2")
    buffer, last = (ctypes.c_int32 * 64)(), ctypes.c_int(0)

    def category(c):
        return CATEGORIES[utf8proc.utf8proc_category(c)]

    def decomposes(c):  # NFD changes it: such a code point never reaches the mark filter
        n = utf8proc.utf8proc_decompose_char(c, buffer, 64, (1 << 3) | (1 << 1), ctypes.byref(last))
        return [buffer[i] for i in range(n)] != [c]

    every = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    ascii_punct = set(range(33, 48)) | set(range(58, 65)) | set(range(91, 97)) | set(range(123, 127))
    ours = {
        "Punctuation": {c for c in every if c in ascii_punct or category(c)[0] == "P"},
        "Control": {c for c in every if c not in (9, 10, 13) and (c in (0, 0xFFFD) or category(c) in ("Cc", "Cf", "Co"))},
        "Mark": {c for c in every if category(c) == "Mn" and not decomposes(c)},
    }
    theirs = {
        "Punctuation": set(hf["punct"]),
        "Control": set(hf["removed"]),
        "Mark": {c for c in hf["stripped"] if not decomposes(c)},
    }
    for name in ours:
        for sign, values in (("Added", theirs[name] - ours[name]), ("Removed", ours[name] - theirs[name])):
            print("const Ranges kBert%s%s = {%s};" % (name, sign, ", ".join(
                "{0x%X, 0x%X}" % r for r in ranges(values))))


def ranges(values):
    out = []
    for v in sorted(values):
        if out and out[-1][1] + 1 == v:
            out[-1][1] = v
        else:
            out.append([v, v])
    return [tuple(r) for r in out]


if __name__ == "__main__":
    main()
