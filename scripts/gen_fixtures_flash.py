#!/usr/bin/python3
"""Independent references for FlashAttention-2's forward loop, tile by tile (core/include/attnlab/flash.h,
`attnlab-cli flash`).

    /usr/bin/python3 scripts/gen_fixtures_flash.py            # writes tests/fixtures/flash/*.json
    /usr/bin/python3 scripts/gen_fixtures_flash.py --check    # regenerates in memory, compares

The online softmax is written here from Dao (2023), Algorithm 1, in NumPy, one query block at a
time with whole-tile array operations, sharing no code with the C++ core. Its inputs are the
masked scores and the values of random scenarios already in tests/fixtures (themselves NumPy and
PyTorch references written by gen_fixtures.py and gen_fixtures_modern.py): causal, cells, padding,
combined and windowed masks, a query that sees no key, ALiBi, GQA and MQA, RoPE, cross-attention,
large logits, in both layouts. Block shapes: 1x1, sizes that do not divide n, and one block for
everything.

Each file tests/fixtures/flash/<fixture>.json is {"fixture": the source fixture's file name,
"runs": [...]}, each run what `attnlab-cli flash --format json` writes for it: {"head" (1-based),
"block": [Br, Bc], "skipped", "tiles": [{"q_block", "k_block", "skipped", "m", "l", "alpha", "O"}],
"output"}, O and output in the fixture's layout, -infinity as null.

Conventions (docs/FORMAT.md): m = -inf, l = 0, O = 0 for a row that has seen no visible key; alpha
is then 0. A tile whose scores are all masked is skipped: m, l and O carry over, alpha is 1 (0 for a
row with m = -inf). At the end of a query block the output is O / l (0 where l = 0).
"""

import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_fixtures as base  # noqa: E402  (dumps, check_or_write, OUT_DIR)

SOURCES = [
    "causal_h4_rows.json",
    "causal_h4_columns.json",
    "causal_cross_nx_gt_nz_rows.json",
    "causal_cross_nx_lt_nz_columns.json",
    "cells_h1_rows.json",
    "cells_object_cross_h2_columns.json",
    "padding_h2_rows.json",
    "combined_mask_h2_columns.json",
    "fully_masked_row_causal_padding_rows.json",
    "fully_masked_row_cells_h2_columns.json",
    "large_logits_stability_rows.json",
    "modern_alibi_h4_causal_rows.json",
    "modern_alibi_given_slopes_cross_columns.json",
    "modern_gqa_h4_g2_causal_wo_rows.json",
    "modern_mqa_h4_perhead_kv_heads_columns.json",
    "modern_rope_half_h2_rows.json",
    "modern_rope_partial_base500_cross_rows.json",
    "modern_window3_causal_8_tokens_rows.json",
    "modern_window_cross_padding_columns.json",
    "modern_everything_perhead_rows.json",
    "torch_cross_h4_kdim_rows.json",
]

BLOCKS = [(1, 1), (2, 3), (3, 2), (4, 4), (64, 64)]


def rows_layout(M, layout):
    """A fixture matrix (null = -inf) with queries (or keys, for V) as rows."""
    A = np.array([[-np.inf if v is None else v for v in row] for row in M], dtype=np.float64)
    return A.T if layout == "columns" else A


def nulls(v):
    return [None if not np.isfinite(x) else float(x) for x in np.asarray(v, dtype=np.float64)]


def flash(S, V, Br, Bc):
    """Dao 2023, Algorithm 1 (forward), for one head: S n_x by n_z masked scores (-inf where
    masked), V n_z by d_v. Returns the tiles in loop order and the output, queries as rows."""
    n_x, n_z = S.shape
    out = np.zeros((n_x, V.shape[1]))
    tiles = []
    for qb, i0 in enumerate(range(0, n_x, Br)):
        i1 = min(i0 + Br, n_x)
        m = np.full(i1 - i0, -np.inf)
        l = np.zeros(i1 - i0)
        O = np.zeros((i1 - i0, V.shape[1]))
        for kb, j0 in enumerate(range(0, n_z, Bc)):
            j1 = min(j0 + Bc, n_z)
            T = S[i0:i1, j0:j1]
            visible = np.isfinite(T)
            skipped = not visible.any()
            if skipped:
                alpha = np.where(np.isneginf(m), 0.0, 1.0)
            else:
                m_new = np.maximum(m, np.where(visible, T, -np.inf).max(axis=1))
                with np.errstate(invalid="ignore"):
                    alpha = np.where(np.isneginf(m), 0.0, np.exp(m - m_new))
                    P = np.where(visible, np.exp(T - m_new[:, None]), 0.0)
                l = alpha * l + P.sum(axis=1)
                O = alpha[:, None] * O + P @ V[j0:j1]
                m = m_new
            tiles.append({"q_block": qb, "k_block": kb, "skipped": bool(skipped), "m": m.copy(), "l": l.copy(),
                          "alpha": alpha, "O": O.copy()})
        safe = np.where(l > 0, l, 1.0)
        out[i0:i1] = np.where((l > 0)[:, None], O / safe[:, None], 0.0)
    return tiles, out


def run_json(tiles, out, head, block, layout):
    return {"head": head + 1, "block": list(block), "skipped": sum(t["skipped"] for t in tiles),
            "tiles": [{"q_block": t["q_block"], "k_block": t["k_block"], "skipped": t["skipped"],
                       "m": nulls(t["m"]), "l": nulls(t["l"]), "alpha": nulls(t["alpha"]),
                       "O": base.mat(t["O"], layout)} for t in tiles],
            "output": base.mat(out, layout)}


def build():
    files = {}
    for name in SOURCES:
        with open(os.path.join(base.OUT_DIR, name)) as f:
            doc = json.load(f)
        layout = doc["scenario"].get("layout", "rows")
        heads = doc["expected"]["heads"]
        runs = []
        for h in sorted({0, len(heads) - 1}):
            S = rows_layout(heads[h]["masked"], layout)
            V = rows_layout(heads[h]["V"], layout)
            expected = rows_layout(heads[h]["output"], layout)
            for block in BLOCKS:
                tiles, out = flash(S, V, *block)
                err = np.max(np.abs(out - expected) / np.maximum(1.0, np.abs(expected)), initial=0.0)
                assert err < 1e-12, f"{name} head {h + 1} block {block}: output off by {err}"
                runs.append(run_json(tiles, out, h, block, layout))
        stem = name[:-len(".json")]
        files[f"flash/{stem}.json"] = base.dumps({"fixture": name, "runs": runs}) + "\n"
    return files


def main():
    os.makedirs(os.path.join(base.OUT_DIR, "flash"), exist_ok=True)
    base.check_or_write(build(), base.check_flag(__doc__), "flash fixtures", "scripts/gen_fixtures_flash.py")


if __name__ == "__main__":
    main()
