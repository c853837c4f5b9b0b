#!/usr/bin/python3
"""Writes assets/presets/plane-dot-products.json, the preset of the Plane panel, and prints its
NumPy reference numbers (tests/test_preset_files.cpp, PresetPlane, checks the C++ core against them).

    /usr/bin/python3 scripts/gen_preset_plane.py            # write it, print the numbers
    /usr/bin/python3 scripts/gen_preset_plane.py --check    # only check, write nothing

Four tokens with 2D embeddings and no projections (identities), so that each token's query and
key are its embedding and the Plane panel draws them as they are. The reference below is the math
written out in NumPy (independent of the C++ core), and the script asserts what the notes claim.
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_presets  # noqa: E402  (to_json_text: the presets' layout on disk)

NAME = "plane-dot-products.json"
TOKENS = ["east", "north", "long", "west"]
X = np.array([[2.0, 0.0],    # east
              [0.0, 2.0],    # north: orthogonal to east
              [3.0, 1.0],    # long: roughly east, and longer
              [-1.5, 0.0]])  # west: opposite to east

NOTES = (
    "Attention's score of a query with a key is their dot product, q . k = |q| |k| cos(angle): large "
    "when the key points the query's way and is long, 0 when it is orthogonal, negative when it points "
    "away. Here the projections are omitted (identities), so each token's query, key and value are its "
    "own embedding, Q = K = V = X: four points in the plane. The Plane tab beside the Pipeline draws them "
    "as arrows from the origin; hover a query to see every key's shadow on its direction, coloured by "
    "the key's weight, with the numbers.\n\n"
    "What to look at: for the query 'east' (2, 0), the key 'long' (3, 1) scores 6, more than 'east' "
    "itself (4): it points nearly the same way and is longer. 'north' (0, 2) is orthogonal to 'east' "
    "and scores 0; 'west' (-1.5, 0) points away and scores -3. The scores are divided by sqrt(d_k) = "
    "sqrt(2) before the softmax, and 'east' gives 0.79 of its attention to 'long'. For the query "
    "'north', 'east' and 'west' both score 0, so they get equal weights.\n\n"
    "Try: drag a point in the Plane panel. It moves that token's embedding (its row of X; Ctrl+Z undoes "
    "the whole drag), and every stage follows: turn 'west' round towards 'east' and watch its weight "
    "grow; tilt 'north' off the vertical and its score with 'east' is no longer 0; shorten 'long' until 'east' attends "
    "to itself again.")


def reference(X):
    """Self-attention with identity projections, rows convention: S = X X^T, A = softmax_rows(S / sqrt(d)),
    Y = A X."""
    S = X @ X.T
    scaled = S / np.sqrt(X.shape[1])
    e = np.exp(scaled - scaled.max(axis=1, keepdims=True))  # softmax along each query's row
    A = e / e.sum(axis=1, keepdims=True)
    return S, A, A @ X


def preset():
    S, A, _ = reference(X)
    east, north, long_, west = range(4)
    assert S[east, long_] > S[east, east] and A[east].argmax() == long_
    assert S[east, north] == 0 and S[east, west] < 0
    assert S[north, east] == 0 and S[north, west] == 0 and A[north, east] == A[north, west]
    assert abs(A[east, long_] - 0.79) < 0.005, A[east, long_]
    return {"format": "attnlab/1", "title": "Dot products in the plane", "notes": NOTES,
            "layout": "rows", "tokens": TOKENS, "X": gen_presets.L(X)}


def main(argv):
    text = gen_presets.to_json_text(preset())
    path = os.path.join(gen_presets.OUT_DIR, NAME)
    if "--check" in argv:
        if not os.path.exists(path) or open(path).read() != text:
            sys.exit(f"{path} is out of date: run {sys.argv[0]}")
        print(f"{NAME} up to date")
    else:
        with open(path, "w") as f:
            f.write(text)
        print(f"wrote {path}")
    S, A, Y = reference(X)
    for name, m in (("scores", S), ("weights", A), ("output", Y)):
        print(f"{name}:")
        for row in m:
            print("  {" + ", ".join(repr(float(v)) for v in row) + "},")


if __name__ == "__main__":
    main(sys.argv[1:])
