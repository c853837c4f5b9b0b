#!/usr/bin/env python3
"""Writes tests/models/tokenizer_corpus.json: the strings test_tokenizer.cpp encodes with attnlab's
GPT-2 tokenizer and with the reference encoder of the npm package gpt-3-encoder, comparing ids.

Hand-written strings for each thing GPT-2's split treats specially (contractions, digits, runs of
whitespace, letters of other scripts, emoji, control characters, punctuation, URLs, code), then
every pair of a few short fragments, so each kind meets each other kind at a boundary.

    python3 scripts/gen_tokenizer_corpus.py
"""
import itertools
import json
import pathlib

HAND = [
    "", " ", "a", "Hello world", "Hello, world!", " leading space", "trailing space ",
    # contractions: the split takes 's 't 're 've 'm 'll 'd (lower case only) before letters
    "it's", "don't", "we're", "they've", "I'm", "you'll", "he'd", "IT'S", "DON'T", "We'Re",
    "'s'", "''s", "rock 'n' roll", "the dogs' bones", "O'Neil's", "'tis", "'''", "'",
    "I'd've", "y'all'd've", "it\u2019s (curly)",
    # digits and numbers
    "0", "12", "123", "1234", "12345678901234567890", "3.14159", "1,000,000", "-42", "+7",
    "1e10", "0x1F", "2024-01-31", "12:30pm", "v1.2.3", "abc123def", "100%", "$5.99", "#1",
    "\u0661\u0662\u0663 (Arabic-Indic)", "\u00bd \u00b2 \u2162", "\uff11\uff12\uff13",
    # whitespace runs
    "  two spaces", "a  b", "a   b", "a    b", "a\tb", "a\t\tb", "a\nb", "a\n\nb", "a\n\n\nb",
    "  \n ", "\n", "\n\n", " \n", "\n ", "\t", "\t\t", " \t ", "a \n b", "end with spaces   ",
    "end with newline\n", "end with tabs\t\t", "\r\n", "a\r\nb", "\u000b\u000c", "   ",
    "\n\n\n\n\n\n\n\n", " " * 40, "word" + " " * 17 + "word", "line1\n    indented\n\tx",
    # accents and combining marks
    "caf\u00e9", "cafe\u0301", "na\u00efve r\u00e9sum\u00e9", "\u00c5ngstr\u00f6m", "Stra\u00dfe",
    "\u0151\u0171 \u011f\u0131\u015f", "a\u0308\u0304", "\u1e9b\u0323", "Zoe\u0308 ",
    "\u0645\u0631\u062d\u0628\u0627", "\u05e9\u05dc\u05d5\u05dd", "\u041f\u0440\u0438\u0432\u0435\u0442, \u043c\u0438\u0440",
    "\u0393\u03b5\u03b9\u03ac \u03c3\u03bf\u03c5", "\u0928\u092e\u0938\u094d\u0924\u0947", "\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35",
    # CJK
    "\u4f60\u597d\u4e16\u754c", "\u3053\u3093\u306b\u3061\u306f", "\u30ab\u30bf\u30ab\u30ca",
    "\uc548\ub155\ud558\uc138\uc694", "\u4e2d\u6587 and English", "\u6f22\u5b57123",
    "\u3002\u3001\uff01", "\U00020000\U0002a6d6",
    # emoji: single, with skin tone, ZWJ sequences, flags, keycaps, variation selectors
    "\U0001f600", "\U0001f44d\U0001f3fd", "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466",
    "\U0001f3f3\ufe0f\u200d\U0001f308", "\U0001f1fa\U0001f1f8\U0001f1ef\U0001f1f5", "1\ufe0f\u20e3",
    "\u2764\ufe0f", "I \u2764 NY", "emoji\U0001f680in\U0001f680text", " \U0001f600 ",
    "\U0001f9d1\u200d\U0001f4bb", "\U0001f469\U0001f3fe\u200d\U0001f52c",
    # control characters
    "\x00", "a\x00b", "\x01\x02\x03", "\x1b[31mred\x1b[0m", "\x7f", "bell\x07", "\x08\x08",
    "\u0080\u009f", "\u200b", "zero\u200bwidth", "\u2028", "\u2029", "\u00ad",
    "\u00a0nbsp", "a\u00a0b", "a\u2003b", "a\u3000b", "\u2009thin",
    # punctuation
    "!!!", "?!", "...", "\u2026", "--", "\u2014", "(a)", "[b]", "{c}", "<d>", "\"quoted\"",
    "\u201csmart\u201d", "\u00abguillemets\u00bb", "a.b.c", "semi;colon:", "a/b\\c", "@user",
    "#hashtag", "**bold**", "__init__", "~~~", "^_^", ":-)", "&amp;", "|||", "`code`",
    # URLs, e-mail, paths
    "https://www.example.com/path?q=1&r=two#frag", "http://localhost:8080/", "user@example.com",
    "/usr/local/bin/python3", "C:\\Windows\\System32", "ftp://a.b/c.tar.gz",
    # code
    "def f(x):\n    return x ** 2\n", "int main() { return 0; }", "for (int i = 0; i < n; ++i) {",
    "if x != None and y >= 3:", "const a = [1, 2, 3];", "<div class=\"x\">hi</div>",
    "SELECT * FROM t WHERE a = 'b';", "#include <stdio.h>\n", "x = {'a': 1, \"b\": [2, 3]}",
    "    four spaces\n        eight spaces\n", "\tfoo();\n\t\tbar();\n", "a=>b", "a->b", "a::b",
    "lambda x: x+1", "print(\"hello\\n\")",
    # prose
    "The quick brown fox jumps over the lazy dog.",
    "It was the best of times, it was the worst of times.",
    "GPT-2 is a large transformer-based language model with 1.5 billion parameters.",
    "Attention(Q, K, V) = softmax(QK^T / sqrt(d_k)) V",
    "Mr. Smith's 3 dogs weren't barking at 5:30 a.m.; they'd gone.",
    "ALL CAPS SENTENCE WITH NUMBERS 42 AND 'QUOTES'",
    "mixed\u00e9\u4e2d\U0001f600123 \t\n end",
    "<|endoftext|>",  # plain text for the reference encoder: vocab.json + merges.txt has no added tokens
    "Ġ Ċ ĉ",  # the byte symbols themselves, as text
]

FRAGMENTS = ["a", " b", "'s", "1", "23", " ", "  ", "\n", "\t", "!", "\u00e9", "\u4e2d",
             "\U0001f600", "x\n", " '", "."]


def corpus():
    strings = list(HAND)
    strings += [a + b for a, b in itertools.product(FRAGMENTS, repeat=2)]
    strings += ["".join(t) for t in itertools.product(["a", " ", "\n", "'", "1"], repeat=3)]
    seen, out = set(), []
    for s in strings:
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


def main():
    path = pathlib.Path(__file__).resolve().parent.parent / "tests" / "models" / "tokenizer_corpus.json"
    path.write_text(json.dumps(corpus(), indent=0, ensure_ascii=True) + "\n", encoding="utf-8")
    print(f"wrote {path} ({len(corpus())} strings)")


if __name__ == "__main__":
    main()
