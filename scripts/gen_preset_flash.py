#!/usr/bin/python3
"""Writes assets/presets/modern-flashattention-tiles.json, "FlashAttention in tiles": one causal head
over 8 tokens for the Tiles panel and `attnlab-cli flash`.

    /usr/bin/python3 scripts/gen_preset_flash.py            # write it
    /usr/bin/python3 scripts/gen_preset_flash.py --check    # only check, write nothing

Every number the notes and the lesson quote is computed here with the NumPy references
(gen_fixtures_modern.reference for the trace, gen_fixtures_flash.flash for the online softmax),
independently of the C++ core, and asserted before the file is written.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_presets  # noqa: E402  (to_json_text: the presets' layout on disk)
from gen_fixtures_flash import flash  # noqa: E402
from gen_fixtures_modern import reference  # noqa: E402
from gen_presets_modern import draw, spec_of  # noqa: E402

NAME = "modern-flashattention-tiles.json"
TOKENS = ["The", "cat", "sat", "on", "the", "mat", "and", "slept"]


def fmt(x):
    return f"{x:.2f}"


def build():
    d = 4
    p = {"format": "attnlab/1", "title": "FlashAttention in tiles", "layout": "rows", "tokens": TOKENS,
         "X": draw(301, 8, d).tolist(), "W_q": draw(302, d, d).tolist(), "W_k": draw(303, d, d).tolist(),
         "W_v": draw(304, d, d).tolist(), "mask": "causal"}
    t = reference(spec_of(p))["heads"][0]
    S, V = t["masked"], t["V"]
    tiles22, out22 = flash(S, V, 2, 2)
    tiles44, out44 = flash(S, V, 4, 4)
    assert np.allclose(out22, t["output"], rtol=0, atol=1e-12) and np.allclose(out44, t["output"], rtol=0, atol=1e-12)
    skipped22, skipped44 = sum(x["skipped"] for x in tiles22), sum(x["skipped"] for x in tiles44)
    assert (len(tiles22), skipped22, len(tiles44), skipped44) == (16, 6, 4, 1)
    # Query block 2 (tokens 4 and 5: "the", "mat") of the 2x2 loop: tiles 8, 9, 10 in loop order.
    before, after = tiles22[8], tiles22[9]
    assert (after["q_block"], after["k_block"]) == (2, 1) and not after["skipped"]
    m_before, m_after, alpha = before["m"][0], after["m"][0], after["alpha"][0]
    # The lesson's tiles steps: 10 the diagonal, 11 skipped; 4x4 tile 2 is queries 4-7 by keys 0-3.
    assert (tiles22[10]["k_block"], tiles22[10]["skipped"], tiles22[11]["skipped"]) == (2, False, True)
    assert (tiles44[2]["q_block"], tiles44[2]["k_block"], tiles44[2]["skipped"]) == (1, 0, False)
    assert m_after > m_before and 0 < alpha < 1
    p["notes"] = notes(m_before, m_after, alpha)
    p["view"] = {"lesson": {"title": "FlashAttention in tiles", "steps": steps(m_before, m_after, alpha)}}
    return p


def notes(m_before, m_after, alpha):
    return (
        "FlashAttention computes exactly these weights and outputs without ever holding the 8 x 8 "
        "matrix of scores: it walks over tiles of Br queries by Bc keys, query blocks outside, key "
        "blocks inside (FlashAttention-2's order), and keeps for each query only a running maximum m, "
        "a running sum l and an unnormalised output O. When a tile brings a larger score, the new "
        "maximum m_new rescales what was summed so far by alpha = exp(m - m_new): the online softmax. "
        "At the end of the row block, O / l is the head's output, to the last digit.\n\n"
        "Open the Tiles tab beside the Pipeline and step with the Left and Right keys (or Play). With "
        "2 x 2 tiles the causal mask leaves 6 of the 16 tiles wholly above the diagonal: they are "
        "skipped, never read. With 4 x 4 tiles, 1 of 4. For the query 'the' (token 4), the tile of "
        "keys 0-1 sets m = " + fmt(m_before) + "; the tile of keys 2-3 raises it to " + fmt(m_after) +
        ", so l and O are multiplied by exp(" + fmt(m_before) + " - " + fmt(m_after) + ") = " +
        fmt(alpha) + ". Hover m, l, alpha or O to see each rescale written out.\n\n"
        "The lesson (View > Present, or `attnlab-cli export --lesson`) steps through the same loop: "
        "query block 2 tile by tile with 2 x 2 tiles, a prediction of m, a skipped tile, one 4 x 4 tile.\n\n"
        "Try: change Br and Bc (1 x 1 is the plain online softmax, 8 x 8 is ordinary attention in one "
        "tile) and watch the memory line: standard attention writes and reads the 8 x 8 scores and "
        "weights, the tiles read each K and V block once per query block. Edit one number of X or W_q "
        "and every tile follows. `attnlab-cli flash` prints the same loop.")


def steps(m_before, m_after, alpha):
    """The lesson: the mask, then the 2 x 2 loop through query block 2 (tiles 8 to 11, 0-based in
    the loop's order as `attnlab-cli flash` lists them), a prediction of m, a skipped tile, one 4 x 4
    tile, and the finished output."""
    return [
        {"stage": "inputs", "caption": "Eight tokens, one causal head. FlashAttention will compute its "
                                       "output tile by tile."},
        {"stage": "masked", "caption": "The causal mask: everything above the diagonal is -inf. Cut the 8 x 8 "
                                       "scores into 2 x 2 tiles: 6 of the 16 tiles are all -inf, and "
                                       "FlashAttention skips them."},
        {"stage": "tiles", "block": [2, 2], "tile": 0,
         "caption": "The first tile: queries 0-1 against keys 0-1. Each row's m is the largest score it has "
                    "seen, l the sum of exp(S - m), O the values weighted by those exponentials."},
        {"stage": "tiles", "block": [2, 2], "tile": 8,
         "caption": "Query block 2 ('the', 'mat') starts over: m = -inf, l = 0, O = 0. Its first tile, keys 0-1, "
                    "sets m = " + fmt(m_before) + " for 'the'."},
        {"stage": "tiles", "block": [2, 2], "tile": 9, "predict": True,
         "caption": "Keys 2-3. Read the tile's scores in row 4: what is the new running maximum m of 'the'?"},
        {"stage": "tiles", "block": [2, 2], "tile": 10,
         "caption": "m rose from " + fmt(m_before) + " to " + fmt(m_after) + " on the last tile, so l and O were "
                    "multiplied by exp(" + fmt(m_before) + " - " + fmt(m_after) + ") = " + fmt(alpha) +
                    ". The diagonal tile: its upper cells are masked, the rest count."},
        {"stage": "tiles", "block": [2, 2], "tile": 11,
         "caption": "Keys 6-7 are all in the future of 'the' and 'mat': the tile is skipped, never read."},
        {"stage": "tiles", "block": [4, 4], "tile": 2, "predict": True,
         "caption": "With 4 x 4 tiles there are 4 tiles, 1 skipped. This one is queries 4-7 against keys "
                    "0-3: predict each row's m."},
        {"stage": "head_output", "caption": "O / l at the end of each row block: the same output as the "
                                            "Pipeline's, with no 8 x 8 matrix ever stored."},
    ]


def main(argv):
    text = gen_presets.to_json_text(build())
    path = os.path.join(gen_presets.OUT_DIR, NAME)
    if "--check" in argv:
        if not os.path.exists(path) or open(path).read() != text:
            sys.exit(f"{path} is out of date: run {sys.argv[0]}")
        print(f"{NAME} up to date")
        return
    with open(path, "w") as f:
        f.write(text)
    print(f"wrote {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
