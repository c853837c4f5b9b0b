#!/usr/bin/python3
"""The expected per-head statistics of every fixture (docs/FORMAT.md, "Per-head statistics").

    /usr/bin/python3 scripts/fixture_stats.py            # adds "stats" to tests/fixtures/*.json
    /usr/bin/python3 scripts/fixture_stats.py --check    # recomputes in memory, compares with disk

Each fixture's expected heads gain "stats": {"entropy", "max_weight", "argmax", "keys_for_90",
"first_key", "mean_distance"}, one entry per query, computed from that fixture's own expected
weights and its scenario's positions. Nothing else in a file changes: the statistics are added to
the stored documents, which are written back byte for byte as gen_fixtures.py writes them (its
NumPy references are not byte-stable across machines, so regenerating them here would change the
last bits of other stages). gen_fixtures.py and gen_fixtures_modern.py call with_stats() too, so
a regeneration carries the same statistics.

The statistics are transcribed from their definitions one query and one key at a time, sharing
no code with the C++ core (core/src/head_stats.cpp) or the exported NumPy script.
"""

import argparse
import json
import math
import os
import sys

# keys_for_90 counts keys until their sum reaches 0.9 less this slack: ten weights of 0.1 sum to
# 0.8999999999999999.
SLACK = 1e-9


def query_stats(weights, p, positions):
    """One query's statistics: `weights` its weight on each key, p its position, `positions` the keys'."""
    if not any(a > 0 for a in weights):  # it attends nothing
        return dict(entropy=0.0, max_weight=0.0, argmax=-1, keys_for_90=0, first_key=0.0, mean_distance=0.0)
    entropy = 0.0
    for a in weights:
        if a > 0:  # 0 ln 0 = 0
            entropy -= a * math.log(a)
    max_weight = max(weights)
    argmax = weights.index(max_weight)  # the first, i.e. lowest, key holding it
    total, keys = 0.0, 0
    for a in sorted(weights, reverse=True):
        if total >= 0.9 - SLACK:
            break
        total += a
        keys += 1
    distance = 0.0
    for a, c in zip(weights, positions):
        distance += a * abs(p - c)
    return dict(entropy=entropy, max_weight=max_weight, argmax=argmax, keys_for_90=keys,
                first_key=weights[0], mean_distance=distance)


def head_stats(weights, layout, query_positions, key_positions):
    """Statistics of one head's weights (arrays of rows in `layout`), as lists per statistic."""
    if layout == "columns":  # query i is column i
        weights = [list(col) for col in zip(*weights)]
    per_query = [query_stats([float(a) for a in row], float(p), [float(c) for c in key_positions])
                 for row, p in zip(weights, query_positions)]
    names = ("entropy", "max_weight", "argmax", "keys_for_90", "first_key", "mean_distance")
    return {name: [q[name] for q in per_query] for name in names}


def positions_of(scenario):
    """The queries' and the keys' positions: the scenario's, or 0, 1, 2, ... (docs/FORMAT.md)."""
    columns = scenario.get("layout", "rows") == "columns"
    count = lambda m: len(m[0]) if columns else len(m)
    n_x = count(scenario["X"])
    p = scenario.get("positions") or list(range(n_x))
    if "Z" not in scenario:
        return p, p  # self-attention: the keys are the queries' tokens
    return p, scenario.get("context_positions") or list(range(count(scenario["Z"])))


def with_stats(doc):
    """`doc` (a fixture: {"scenario", "expected", ...}) with "stats" in every expected head."""
    scenario = doc["scenario"]
    p, c = positions_of(scenario)
    layout = scenario.get("layout", "rows")
    for head in doc["expected"]["heads"]:
        head.pop("stats", None)  # recomputed, and kept last among the head's keys
        head["stats"] = head_stats(head["weights"], layout, p, c)
    return doc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="write nothing; fail if a file lacks its statistics")
    args = ap.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import gen_fixtures as base  # the fixtures' writer (imported here: it imports this module)
    stale = []
    names = sorted(f for f in os.listdir(base.OUT_DIR) if f.endswith(".json"))
    for name in names:
        path = os.path.join(base.OUT_DIR, name)
        with open(path) as f:
            text = f.read()
        updated = base.dumps(with_stats(json.loads(text))) + "\n"
        if updated != text:
            stale.append(name)
            if not args.check:
                with open(path, "w") as f:
                    f.write(updated)
    if args.check and stale:
        sys.exit(f"statistics out of date: {', '.join(stale)} (run scripts/fixture_stats.py)")
    print(f"{len(names)} fixtures, {len(stale)} {'stale' if args.check else 'updated'}")


if __name__ == "__main__":
    main()
