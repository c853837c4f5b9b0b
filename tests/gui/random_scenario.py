#!/usr/bin/env python3
"""Writes a small seeded random scenario for the window test scripts (compare.sh, head_stats.sh,
heads_control.sh, positions_controls.sh, sweep.sh): each matrix's entries are drawn uniformly from
[-RANGE, RANGE] and rounded to 2 decimals, in the order the --matrix options are given (the
order of the draws is part of what the seed gives).

usage: random_scenario.py OUT.json --seed S [--base FILE.json | --title T --tokens a,b,c]
           --matrix NAME=ROWSxCOLS:RANGE ... [--scale-columns NAME=F0,F1,...] [--set KEY=JSON ...]
  --base FILE       start from FILE's scenario (its keys keep their places); ROWS may be "*":
                    as many rows as FILE's matrix NAME has
  --scale-columns   multiply column c of NAME by Fc, rounded to 3 decimals (after all draws)
  --set KEY=JSON    a key written after the matrices, e.g. num_heads=2 or positions=[0,3,6]
Without --base the file holds format, title, tokens, the matrices (X, W_q, W_k, W_v, W_o: in that
order whatever the order drawn) and the --set keys, as json.dump writes them."""
import argparse
import json
import random
import sys

ORDER = ["X", "W_q", "W_k", "W_v", "W_o"]


def parse_matrix(spec):
    name, shape = spec.split("=")
    size, spread = shape.split(":")
    rows, cols = size.split("x")
    return name, rows, int(cols), float(spread)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--base")
    p.add_argument("--title")
    p.add_argument("--tokens")
    p.add_argument("--matrix", action="append", default=[], type=parse_matrix)
    p.add_argument("--scale-columns", action="append", default=[])
    p.add_argument("--set", action="append", default=[])
    a = p.parse_args(argv)

    rnd = random.Random(a.seed)
    base = json.load(open(a.base)) if a.base else None
    drawn = {}
    for name, rows, cols, spread in a.matrix:
        n = len(base[name]) if rows == "*" else int(rows)
        drawn[name] = [[round(rnd.uniform(-spread, spread), 2) for _ in range(cols)] for _ in range(n)]
    for spec in a.scale_columns:
        name, factors = spec.split("=")
        factors = [float(f) for f in factors.split(",")]
        for row in drawn[name]:
            for c in range(len(row)):
                row[c] = round(row[c] * factors[c], 3)

    if base is not None:
        doc = base
        doc.update(drawn)
    else:
        doc = {"format": "attnlab/1", "title": a.title, "tokens": a.tokens.split(",")}
        doc.update((name, drawn[name]) for name in ORDER if name in drawn)
    for spec in a.set:
        key, value = spec.split("=", 1)
        doc[key] = json.loads(value)
    json.dump(doc, open(a.out, "w"))


if __name__ == "__main__":
    main(sys.argv[1:])
