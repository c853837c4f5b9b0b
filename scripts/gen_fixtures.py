#!/usr/bin/python3
"""Independent reference generator for attnlab's test fixtures.

Run with Debian's interpreter (NumPy and PyTorch are installed for it):

    /usr/bin/python3 scripts/gen_fixtures.py            # writes tests/fixtures/*.json
    /usr/bin/python3 scripts/gen_fixtures.py --check    # regenerates in memory, compares with disk

Every fixture is one JSON object:

    { "scenario": {an attnlab/1 scenario, docs/FORMAT.md},
      "expected": {"heads": [{"Q","K","V","scores","scaled","masked","weights","output",
                              "stats"}, ...], "concat", "output"},
      "source": "numpy" | "torch",
      "description": "..." }

Matrices are arrays of rows in the scenario's own layout (in the columns layout every matrix is the
transpose of its rows-layout counterpart); -infinity in `masked` is written as null. "stats" holds
the per-head statistics of each query (scripts/fixture_stats.py, from the expected weights).

The NumPy reference below is written from the math (Vaswani et al.; Phuong & Hutter, Algorithm 4)
and shares no code with the C++ core. Selected cases are computed with torch.nn.MultiheadAttention
in float64 and checked against the NumPy reference before anything is written.
Everything is float64 and seeded: running the script twice gives byte-identical files.
"""

import argparse
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_stats  # noqa: E402  (the expected per-head statistics)

try:
    import torch
except ImportError:  # pragma: no cover - torch is required; say so clearly
    sys.exit("gen_fixtures.py needs PyTorch: run it with /usr/bin/python3 (Debian's numpy + torch)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "tests", "fixtures")

# Agreement demanded between the torch and NumPy references (both float64).
TORCH_RTOL = 1e-12
TORCH_ATOL = 1e-13

TRACE_KEYS = ("Q", "K", "V", "scores", "scaled", "masked", "weights", "output")


# --------------------------------------------------------------------------------------------
# Random inputs (rounded to 3 decimals so the scenario part of a file stays readable; the
# expected values are computed from the rounded numbers and kept at full precision).
# --------------------------------------------------------------------------------------------

def rnd(rng, rows, cols=None, scale=1.0):
    shape = (rows,) if cols is None else (rows, cols)
    return np.round(rng.normal(0.0, scale, size=shape), 3)


# --------------------------------------------------------------------------------------------
# NumPy reference, rows convention: tokens are rows, Q = X W_q + 1 b_q^T, S = Q K^T.
# --------------------------------------------------------------------------------------------

def split_cols(M, H):
    """Head blocks of a full matrix (rows layout): H equal blocks of columns."""
    if M is None:
        return [None] * H
    assert M.shape[-1] % H == 0
    w = M.shape[-1] // H
    return [M[..., h * w:(h + 1) * w].copy() for h in range(H)]


def allowed_matrix(mask, n_x, n_z):
    """Boolean n_x by n_z matrix, True = query i may attend key j (rows layout)."""
    allowed = np.ones((n_x, n_z), dtype=bool)
    if mask is None or (isinstance(mask, str) and mask == "none"):
        return allowed
    if isinstance(mask, str):
        assert mask == "causal"
        return np.tril(allowed)  # j <= i
    if isinstance(mask, np.ndarray):
        return mask.astype(bool)
    if mask.get("causal", False):
        allowed &= np.tril(np.ones((n_x, n_z), dtype=bool))
    for j in mask.get("padding", []):
        allowed[:, j] = False
    if "cells" in mask:
        allowed &= np.asarray(mask["cells"]).astype(bool)
    return allowed


def masked_softmax_rows(logits, allowed):
    """Softmax along each row over the allowed entries; an all-forbidden row becomes zeros."""
    out = np.zeros_like(logits)
    for i in range(logits.shape[0]):
        idx = np.nonzero(allowed[i])[0]
        if idx.size == 0:
            continue
        v = logits[i, idx]
        e = np.exp(v - v.max())
        out[i, idx] = e / e.sum()
    return out


def resolve_heads(spec):
    """Per-head (W_q, b_q, W_k, b_k, W_v, b_v) in the rows convention, identities filled in."""
    X = spec["X"]
    Z = spec.get("Z", X)
    d_x, d_z = X.shape[1], Z.shape[1]
    if "heads" in spec:
        raw = spec["heads"]
    else:
        H = spec.get("num_heads", 1)
        blocks = {}
        for w in ("W_q", "W_k", "W_v", "b_q", "b_k", "b_v"):
            M = spec.get(w)
            if M is None and w.startswith("W"):
                assert H == 1, "identity projections are only generated with one head"
            blocks[w] = split_cols(M, H)
        raw = [{w: blocks[w][h] for w in blocks if blocks[w][h] is not None} for h in range(H)]
    heads = []
    for r in raw:
        W_q = r.get("W_q", np.eye(d_x))
        W_k = r.get("W_k", np.eye(d_z))
        W_v = r.get("W_v", np.eye(d_z))
        heads.append(dict(
            W_q=W_q, W_k=W_k, W_v=W_v,
            b_q=r.get("b_q", np.zeros(W_q.shape[1])),
            b_k=r.get("b_k", np.zeros(W_k.shape[1])),
            b_v=r.get("b_v", np.zeros(W_v.shape[1]))))
    return heads


def reference_trace(spec):
    """Whole trace of a rows-layout spec, written from the math. Returns a rows-layout dict."""
    X = spec["X"]
    Z = spec.get("Z", X)
    n_x, n_z = X.shape[0], Z.shape[0]
    heads = resolve_heads(spec)
    allowed = allowed_matrix(spec.get("mask"), n_x, n_z)
    out_heads = []
    for hw in heads:
        Q = X @ hw["W_q"] + hw["b_q"][None, :]
        K = Z @ hw["W_k"] + hw["b_k"][None, :]
        V = Z @ hw["W_v"] + hw["b_v"][None, :]
        d_k = Q.shape[1]
        scale = spec.get("scale", "inv_sqrt_dk")
        if scale == "inv_sqrt_dk":
            c = 1.0 / math.sqrt(d_k)
        elif scale == "none":
            c = 1.0
        else:
            c = float(scale)
        S = Q @ K.T
        scaled = S * c
        masked = np.where(allowed, scaled, -np.inf)
        A = masked_softmax_rows(scaled, allowed)
        Y = A @ V
        out_heads.append(dict(Q=Q, K=K, V=V, scores=S, scaled=scaled, masked=masked,
                              weights=A, output=Y))
    concat = np.concatenate([h["output"] for h in out_heads], axis=1)
    if spec.get("W_o") is not None:
        b_o = spec.get("b_o", np.zeros(spec["W_o"].shape[1]))
        output = concat @ spec["W_o"] + b_o[None, :]
    else:
        output = concat.copy()
    return dict(heads=out_heads, concat=concat, output=output)


# --------------------------------------------------------------------------------------------
# PyTorch reference: torch.nn.MultiheadAttention in float64.
# torch computes x @ W^T + b with W stored (out, in): W_torch = W_rows^T.
# --------------------------------------------------------------------------------------------

def torch_trace(spec):
    X = spec["X"]
    Z = spec.get("Z", X)
    n_x, d_x = X.shape
    n_z, d_z = Z.shape
    H = spec["num_heads"]
    E = d_x
    W_q, W_k, W_v, W_o = spec["W_q"], spec["W_k"], spec["W_v"], spec["W_o"]
    assert W_q.shape == (d_x, E) and W_k.shape == (d_z, E) and W_v.shape == (d_z, E)
    assert W_o.shape == (E, E), "torch's out_proj is embed_dim by embed_dim"
    assert spec.get("scale", "inv_sqrt_dk") == "inv_sqrt_dk"
    kdim = vdim = d_z
    mha = torch.nn.MultiheadAttention(E, H, dropout=0.0, bias=True, kdim=kdim, vdim=vdim,
                                      batch_first=False, dtype=torch.float64)
    mha.eval()
    T = lambda a: torch.tensor(np.ascontiguousarray(a), dtype=torch.float64)
    zeros = lambda n: np.zeros(n)
    with torch.no_grad():
        if mha._qkv_same_embed_dim:
            mha.in_proj_weight.copy_(T(np.concatenate([W_q.T, W_k.T, W_v.T], axis=0)))
        else:
            mha.q_proj_weight.copy_(T(W_q.T))
            mha.k_proj_weight.copy_(T(W_k.T))
            mha.v_proj_weight.copy_(T(W_v.T))
        mha.in_proj_bias.copy_(T(np.concatenate([spec.get("b_q", zeros(E)),
                                                 spec.get("b_k", zeros(E)),
                                                 spec.get("b_v", zeros(E))])))
        mha.out_proj.weight.copy_(T(W_o.T))
        mha.out_proj.bias.copy_(T(spec.get("b_o", zeros(E))))

    allowed = allowed_matrix(spec.get("mask"), n_x, n_z)
    assert allowed.any(axis=1).all(), "torch gives NaN for a fully-masked query; not used here"
    attn_mask = None
    if not allowed.all():
        attn_mask = torch.tensor(~allowed)  # boolean: True = may NOT attend
    x = T(X)
    z = T(Z)
    with torch.no_grad():
        out, weights = mha(x, z, z, need_weights=True, attn_mask=attn_mask,
                           average_attn_weights=False)
    # Unbatched input: out is (L, E), weights is (H, L, S).
    assert tuple(out.shape) == (n_x, E) and tuple(weights.shape) == (H, n_x, n_z)

    # Per-head intermediates from the module's own parameters (torch ops only).
    with torch.no_grad():
        if mha._qkv_same_embed_dim:
            Wq_t, Wk_t, Wv_t = mha.in_proj_weight.split(E, dim=0)
        else:
            Wq_t, Wk_t, Wv_t = mha.q_proj_weight, mha.k_proj_weight, mha.v_proj_weight
        bq_t, bk_t, bv_t = mha.in_proj_bias.split(E)
        Qf = torch.nn.functional.linear(x, Wq_t, bq_t)
        Kf = torch.nn.functional.linear(z, Wk_t, bk_t)
        Vf = torch.nn.functional.linear(z, Wv_t, bv_t)
        hd = E // H
        heads = []
        for h in range(H):
            sl = slice(h * hd, (h + 1) * hd)
            Q, K, V = Qf[:, sl], Kf[:, sl], Vf[:, sl]
            S = Q @ K.T
            scaled = S / math.sqrt(hd)
            masked = scaled.clone()
            if attn_mask is not None:
                masked = masked.masked_fill(attn_mask, float("-inf"))
            A = weights[h]
            Y = A @ V
            heads.append(dict(Q=Q, K=K, V=V, scores=S, scaled=scaled, masked=masked,
                              weights=A, output=Y))
        concat = torch.cat([hh["output"] for hh in heads], dim=1)
    to_np = lambda t: t.detach().numpy().astype(np.float64).copy()
    return dict(heads=[{k: to_np(v) for k, v in hh.items()} for hh in heads],
                concat=to_np(concat), output=to_np(out))


def assert_traces_agree(a, b, what):
    def close(x, y, name):
        x = np.asarray(x)
        y = np.asarray(y)
        assert x.shape == y.shape, f"{what}: {name} shapes {x.shape} vs {y.shape}"
        fin = np.isfinite(y)
        assert (np.isfinite(x) == fin).all(), f"{what}: {name} -inf pattern differs"
        assert (x[~fin] == y[~fin]).all(), f"{what}: {name} non-finite values differ"
        if not np.allclose(x[fin], y[fin], rtol=TORCH_RTOL, atol=TORCH_ATOL):
            err = np.max(np.abs(x[fin] - y[fin]))
            raise AssertionError(f"{what}: {name} differs by {err:g}")
    assert len(a["heads"]) == len(b["heads"])
    for h, (ha, hb) in enumerate(zip(a["heads"], b["heads"])):
        for k in TRACE_KEYS:
            close(ha[k], hb[k], f"heads[{h}].{k}")
    close(a["concat"], b["concat"], "concat")
    close(a["output"], b["output"], "output")


def max_abs_diff(a, b):
    m = 0.0
    for ha, hb in zip(a["heads"], b["heads"]):
        for k in TRACE_KEYS:
            fin = np.isfinite(hb[k])
            if fin.any():
                m = max(m, float(np.max(np.abs(ha[k][fin] - hb[k][fin]))))
    for k in ("concat", "output"):
        m = max(m, float(np.max(np.abs(a[k] - b[k]))))
    return m


# --------------------------------------------------------------------------------------------
# Writing scenarios and traces in either layout.
# --------------------------------------------------------------------------------------------

def mat(M, layout):
    M = np.asarray(M, dtype=np.float64)
    if layout == "columns":
        M = M.T
    return [[None if not np.isfinite(v) else float(v) for v in row] for row in M]


def intmat(M, layout):
    M = np.asarray(M).astype(int)
    if layout == "columns":
        M = M.T
    return [[int(v) for v in row] for row in M]


def vec(v):
    return [float(x) for x in np.asarray(v, dtype=np.float64)]


def scenario_json(spec, layout, title, notes):
    s = {"format": "attnlab/1", "title": title, "notes": notes, "layout": layout}
    for key in ("tokens", "context_tokens"):
        if key in spec:
            s[key] = list(spec[key])
    s["X"] = mat(spec["X"], layout)
    if "Z" in spec:
        s["Z"] = mat(spec["Z"], layout)
    if "heads" in spec:
        if "num_heads" in spec:
            s["num_heads"] = spec["num_heads"]
        hs = []
        for hw in spec["heads"]:
            o = {}
            for w in ("W_q", "b_q", "W_k", "b_k", "W_v", "b_v"):
                if w in hw:
                    o[w] = mat(hw[w], layout) if w.startswith("W") else vec(hw[w])
            hs.append(o)
        s["heads"] = hs
    else:
        for w in ("W_q", "W_k", "W_v", "b_q", "b_k", "b_v"):
            if spec.get(w) is not None:
                s[w] = mat(spec[w], layout) if w.startswith("W") else vec(spec[w])
        if "num_heads" in spec:
            s["num_heads"] = spec["num_heads"]
    if spec.get("W_o") is not None:
        s["W_o"] = mat(spec["W_o"], layout)
        if "b_o" in spec:
            s["b_o"] = vec(spec["b_o"])
    if "scale" in spec:
        s["scale"] = spec["scale"]
    mask = spec.get("mask")
    if mask is not None:
        if isinstance(mask, str):
            s["mask"] = mask
        elif isinstance(mask, np.ndarray):
            s["mask"] = intmat(mask, layout)
        else:
            m = {}
            if "causal" in mask:
                m["causal"] = bool(mask["causal"])
            if "padding" in mask:
                m["padding"] = [int(j) for j in mask["padding"]]
            if "cells" in mask:
                m["cells"] = intmat(mask["cells"], layout)
            s["mask"] = m
    if "view" in spec:
        s["view"] = spec["view"]
    return s


def trace_json(tr, layout):
    return {
        "heads": [{k: mat(h[k], layout) for k in TRACE_KEYS} for h in tr["heads"]],
        "concat": mat(tr["concat"], layout),
        "output": mat(tr["output"], layout),
    }


def dumps(obj, indent=0):
    """JSON with one matrix row per line (readable), floats in shortest round-trip form."""
    pad = "  " * indent
    pad1 = "  " * (indent + 1)

    def scalar(v):
        if v is None:
            return "null"
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, float):
            assert math.isfinite(v)
            return repr(v)
        return json.dumps(v)

    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = [f"{pad1}{json.dumps(k)}: {dumps(v, indent + 1)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list):
        if all(not isinstance(v, (list, dict)) for v in obj):
            return "[" + ", ".join(scalar(v) for v in obj) + "]"
        if all(isinstance(v, list) and all(not isinstance(x, (list, dict)) for x in v)
               for v in obj):
            return "[\n" + ",\n".join(pad1 + dumps(v) for v in obj) + "\n" + pad + "]"
        return "[\n" + ",\n".join(pad1 + dumps(v, indent + 1) for v in obj) + "\n" + pad + "]"
    return scalar(obj)


# --------------------------------------------------------------------------------------------
# The cases. Each returns (spec in rows layout, description, source).
# --------------------------------------------------------------------------------------------

CASES = []


def case(name, layouts=("rows", "columns")):
    def deco(fn):
        CASES.append((name, fn, layouts))
        return fn
    return deco


def full_spec(rng, n_x, d_x, H, d_k, d_v, d_out=None, n_z=None, d_z=None, biases=True,
              bias_o=True):
    spec = {"X": rnd(rng, n_x, d_x)}
    if n_z is not None:
        spec["Z"] = rnd(rng, n_z, d_z)
    else:
        d_z = d_x
    spec["W_q"] = rnd(rng, d_x, H * d_k, 0.7)
    spec["W_k"] = rnd(rng, d_z, H * d_k, 0.7)
    spec["W_v"] = rnd(rng, d_z, H * d_v, 0.7)
    if biases:
        spec["b_q"] = rnd(rng, H * d_k, None, 0.3)
        spec["b_k"] = rnd(rng, H * d_k, None, 0.3)
        spec["b_v"] = rnd(rng, H * d_v, None, 0.3)
    spec["num_heads"] = H
    if d_out is not None:
        spec["W_o"] = rnd(rng, H * d_v, d_out, 0.5)
        if bias_o:
            spec["b_o"] = rnd(rng, d_out, None, 0.3)
    return spec


def to_per_head(spec, with_num_heads=False):
    """The same model with per-head weights: head h takes column block h of each full matrix."""
    H = spec["num_heads"]
    out = {k: v for k, v in spec.items()
           if k not in ("W_q", "W_k", "W_v", "b_q", "b_k", "b_v", "num_heads")}
    blocks = {w: split_cols(spec.get(w), H) for w in ("W_q", "W_k", "W_v", "b_q", "b_k", "b_v")}
    out["heads"] = [{w: blocks[w][h] for w in blocks if blocks[w][h] is not None}
                    for h in range(H)]
    if with_num_heads:
        out["num_heads"] = H
    return out


# ---- torch-checked cases ---------------------------------------------------------------------

@case("torch_self_h2_bias")
def _(rng):
    spec = full_spec(rng, n_x=5, d_x=6, H=2, d_k=3, d_v=3, d_out=6)
    spec["tokens"] = ["the", "cat", "sat", "on", "mats"]
    return spec, ("Self-attention, H=2, d_k=d_v=3, biases on Q/K/V, W_o and b_o; "
                  "torch.nn.MultiheadAttention (float64)"), "torch"


@case("torch_cross_h4_kdim")
def _(rng):
    spec = full_spec(rng, n_x=4, d_x=8, H=4, d_k=2, d_v=2, d_out=8, n_z=6, d_z=5)
    spec["tokens"] = ["q0", "q1", "q2", "q3"]
    spec["context_tokens"] = ["c0", "c1", "c2", "c3", "c4", "c5"]
    return spec, ("Cross-attention, H=4, X 4x8, Z 6x5 (kdim=vdim=5 != embed_dim=8), biases, "
                  "W_o, b_o; torch.nn.MultiheadAttention (float64)"), "torch"


@case("torch_causal_h2")
def _(rng):
    spec = full_spec(rng, n_x=6, d_x=6, H=2, d_k=3, d_v=3, d_out=6)
    spec["mask"] = "causal"
    return spec, ("Causal self-attention, H=2, biases, W_o, b_o; torch.nn.MultiheadAttention "
                  "(float64) with a boolean attn_mask"), "torch"


@case("torch_cells_h2")
def _(rng):
    spec = full_spec(rng, n_x=4, d_x=4, H=2, d_k=2, d_v=2, d_out=4, n_z=5, d_z=3)
    cells = (rng.random((4, 5)) < 0.6).astype(int)
    cells[np.arange(4), rng.integers(0, 5, 4)] = 1  # no fully-masked query (torch gives NaN)
    spec["mask"] = cells
    return spec, ("Cross-attention, H=2, Z 5x3, custom 0/1 mask matrix; "
                  "torch.nn.MultiheadAttention (float64) with a boolean attn_mask"), "torch"


# ---- NumPy cases ------------------------------------------------------------------------------

@case("self_h1_dv_ne_dk_wo")
def _(rng):
    spec = full_spec(rng, n_x=4, d_x=5, H=1, d_k=3, d_v=4, d_out=3)
    return spec, ("Self-attention, H=1, d_k=3, d_v=4, biases, non-square W_o (4x3) and b_o"), \
        "numpy"


@case("cross_h2_dv_ne_dk")
def _(rng):
    spec = full_spec(rng, n_x=3, d_x=4, H=2, d_k=2, d_v=3, d_out=5, n_z=7, d_z=6)
    return spec, ("Cross-attention, H=2, X 3x4, Z 7x6 (different length and width), d_k=2, "
                  "d_v=3, biases, W_o 6x5, b_o"), "numpy"


@case("cross_h1_short_context")
def _(rng):
    spec = full_spec(rng, n_x=6, d_x=3, H=1, d_k=4, d_v=2, n_z=2, d_z=7, biases=False)
    return spec, ("Cross-attention, H=1, X 6x3, Z 2x7 (context shorter than the queries, wider), "
                  "no biases, no W_o"), "numpy"


@case("causal_cross_nx_gt_nz")
def _(rng):
    spec = full_spec(rng, n_x=5, d_x=3, H=1, d_k=2, d_v=2, d_out=2, n_z=3, d_z=4)
    spec["mask"] = "causal"
    return spec, "Causal mask with cross-attention, n_x=5 > n_z=3 (j <= i)", "numpy"


@case("causal_cross_nx_lt_nz")
def _(rng):
    spec = full_spec(rng, n_x=3, d_x=4, H=2, d_k=2, d_v=1, n_z=6, d_z=2)
    spec["mask"] = "causal"
    return spec, "Causal mask with cross-attention, n_x=3 < n_z=6, H=2, d_v=1, no W_o", "numpy"


@case("causal_h4")
def _(rng):
    spec = full_spec(rng, n_x=7, d_x=8, H=4, d_k=2, d_v=3, d_out=5)
    spec["mask"] = "causal"
    return spec, "Causal self-attention, H=4, n=7, d_k=2, d_v=3, W_o 12x5, b_o", "numpy"


@case("padding_h2")
def _(rng):
    spec = full_spec(rng, n_x=5, d_x=4, H=2, d_k=2, d_v=2, d_out=4)
    spec["mask"] = {"padding": [1, 4]}
    return spec, "Padding mask (context tokens 1 and 4 may not be attended), H=2", "numpy"


@case("padding_cross_h1")
def _(rng):
    spec = full_spec(rng, n_x=3, d_x=3, H=1, d_k=3, d_v=3, n_z=6, d_z=5)
    spec["mask"] = {"causal": False, "padding": [0, 5, 2]}
    return spec, "Padding mask on the context of a cross-attention, H=1, no W_o", "numpy"


@case("cells_h1")
def _(rng):
    spec = full_spec(rng, n_x=5, d_x=4, H=1, d_k=3, d_v=3, d_out=4)
    cells = (rng.random((5, 5)) < 0.5).astype(int)
    cells[np.arange(5), rng.integers(0, 5, 5)] = 1
    spec["mask"] = cells
    return spec, "Custom 0/1 mask matrix (5x5), H=1, W_o, b_o", "numpy"


@case("cells_object_cross_h2")
def _(rng):
    spec = full_spec(rng, n_x=4, d_x=4, H=2, d_k=2, d_v=2, d_out=3, n_z=6, d_z=3)
    cells = (rng.random((4, 6)) < 0.5).astype(int)
    cells[np.arange(4), rng.integers(0, 6, 4)] = 1
    spec["mask"] = {"cells": cells}
    return spec, "Mask object with cells only (4x6), cross-attention, H=2", "numpy"


@case("combined_mask_h2")
def _(rng):
    spec = full_spec(rng, n_x=6, d_x=6, H=2, d_k=3, d_v=2, d_out=4)
    cells = np.ones((6, 6), dtype=int)
    cells[3, 1] = cells[4, 0] = cells[5, 2] = cells[5, 4] = cells[2, 0] = 0
    spec["mask"] = {"causal": True, "padding": [3], "cells": cells}
    return spec, ("Combined mask object: causal + padding [3] + cells, H=2; every query keeps "
                  "at least one key"), "numpy"


@case("combined_mask_cross_h1")
def _(rng):
    spec = full_spec(rng, n_x=4, d_x=3, H=1, d_k=2, d_v=3, d_out=3, n_z=5, d_z=4)
    cells = np.ones((4, 5), dtype=int)
    cells[1, 0] = cells[3, 3] = 0
    spec["mask"] = {"causal": True, "padding": [2], "cells": cells}
    return spec, "Combined mask object on cross-attention (n_x=4, n_z=5), H=1", "numpy"


@case("fully_masked_row_cells_h2")
def _(rng):
    spec = full_spec(rng, n_x=4, d_x=4, H=2, d_k=2, d_v=2, d_out=3)
    cells = np.ones((4, 4), dtype=int)
    cells[2, :] = 0
    cells[0, 3] = 0
    spec["mask"] = cells
    return spec, ("Query 2 may attend no key (all-zero mask row): zero weights row, zero head "
                  "output, output row = b_o; H=2"), "numpy"


@case("fully_masked_row_causal_padding")
def _(rng):
    spec = full_spec(rng, n_x=5, d_x=4, H=1, d_k=2, d_v=3, d_out=2)
    spec["mask"] = {"causal": True, "padding": [0]}
    return spec, ("Causal + padding [0]: query 0 may attend nothing (zero weights, zero head "
                  "output, output row = b_o)"), "numpy"


@case("fully_masked_row_no_wo_h4")
def _(rng):
    spec = full_spec(rng, n_x=3, d_x=4, H=4, d_k=1, d_v=1, n_z=4, d_z=2)
    cells = np.ones((3, 4), dtype=int)
    cells[1, :] = 0
    spec["mask"] = {"cells": cells, "padding": [3]}
    return spec, ("Cross-attention H=4, query 1 fully masked, no W_o: concat/output row 1 is "
                  "exactly zero"), "numpy"


@case("no_wo_h4")
def _(rng):
    spec = full_spec(rng, n_x=5, d_x=6, H=4, d_k=2, d_v=3)
    return spec, "No W_o: output = concat of 4 heads (d_v=3, 12 wide)", "numpy"


@case("no_wo_no_bias_h2")
def _(rng):
    spec = full_spec(rng, n_x=4, d_x=3, H=2, d_k=3, d_v=2, biases=False)
    return spec, "No W_o, no biases, H=2", "numpy"


@case("wo_without_bo_h2")
def _(rng):
    spec = full_spec(rng, n_x=4, d_x=4, H=2, d_k=2, d_v=2, d_out=3, bias_o=False)
    return spec, "W_o without b_o (b_o is zero), H=2", "numpy"


@case("identity_projections")
def _(rng):
    spec = {"X": rnd(rng, 5, 4)}
    return spec, ("W_q, W_k, W_v omitted: identity projections, d_k = d_v = d_x = 4, H=1; "
                  "Q = K = V = X"), "numpy"


@case("identity_projections_biases_scale_none")
def _(rng):
    spec = {"X": rnd(rng, 4, 3), "b_q": rnd(rng, 3, None, 0.3), "b_v": rnd(rng, 3, None, 0.3),
            "scale": "none", "W_o": rnd(rng, 3, 2, 0.5), "b_o": rnd(rng, 2, None, 0.3)}
    return spec, ("Identity projections with b_q and b_v, scale \"none\", W_o 3x2 and b_o"), \
        "numpy"


@case("identity_v_only_cross")
def _(rng):
    spec = {"X": rnd(rng, 3, 4), "Z": rnd(rng, 5, 3),
            "W_q": rnd(rng, 4, 2, 0.7), "W_k": rnd(rng, 3, 2, 0.7)}
    return spec, ("Cross-attention with W_v omitted: V = Z (d_v = d_z = 3), W_q 4x2, W_k 3x2"), \
        "numpy"


@case("scale_none_h2")
def _(rng):
    spec = full_spec(rng, n_x=4, d_x=4, H=2, d_k=2, d_v=2, d_out=4)
    spec["scale"] = "none"
    return spec, "scale \"none\": scaled = scores, H=2", "numpy"


@case("scale_number_temperature")
def _(rng):
    spec = full_spec(rng, n_x=5, d_x=3, H=1, d_k=4, d_v=2, d_out=3)
    spec["scale"] = 0.25
    return spec, "scale 0.25 (a temperature of 4), H=1", "numpy"


@case("scale_number_sharp_h2_causal")
def _(rng):
    spec = full_spec(rng, n_x=4, d_x=4, H=2, d_k=2, d_v=2, d_out=2)
    spec["scale"] = 2.5
    spec["mask"] = "causal"
    return spec, "scale 2.5 (sharp) with a causal mask, H=2", "numpy"


@case("dv_ne_dk_h2")
def _(rng):
    spec = full_spec(rng, n_x=5, d_x=3, H=2, d_k=2, d_v=5, d_out=4)
    return spec, "d_v=5 != d_k=2, H=2, W_o 10x4", "numpy"


@case("single_token")
def _(rng):
    spec = full_spec(rng, n_x=1, d_x=3, H=1, d_k=2, d_v=2, d_out=3)
    return spec, "One token, H=1: the only weight is 1", "numpy"


@case("large_logits_stability")
def _(rng):
    spec = full_spec(rng, n_x=4, d_x=3, H=1, d_k=3, d_v=3, d_out=3)
    spec["X"] = spec["X"] * 40.0
    spec["scale"] = "none"
    return spec, ("Scores in the hundreds (X scaled by 40, scale none): softmax must subtract "
                  "the row maximum"), "numpy"


# ---- per-head weights vs full matrices split by num_heads ------------------------------------

def _split_pair_h2(rng):
    spec = full_spec(rng, n_x=5, d_x=4, H=2, d_k=3, d_v=2, d_out=4)
    spec["mask"] = {"causal": True, "padding": [4]}
    return spec


def _split_pair_h4(rng):
    spec = full_spec(rng, n_x=4, d_x=5, H=4, d_k=2, d_v=3, d_out=3, n_z=6, d_z=3)
    return spec


@case("split_full_h2")
def _(rng):
    return _split_pair_h2(np.random.default_rng(4242)), \
        ("Full matrices with num_heads=2 split into heads; identical trace to "
         "split_perhead_h2"), "numpy"


@case("split_perhead_h2")
def _(rng):
    return to_per_head(_split_pair_h2(np.random.default_rng(4242))), \
        ("Per-head weights (heads[]), the column blocks of split_full_h2; identical trace"), \
        "numpy"


@case("split_full_h4_cross")
def _(rng):
    return _split_pair_h4(np.random.default_rng(4343)), \
        ("Cross-attention, full matrices with num_heads=4; identical trace to "
         "split_perhead_h4_cross"), "numpy"


@case("split_perhead_h4_cross")
def _(rng):
    return to_per_head(_split_pair_h4(np.random.default_rng(4343)), with_num_heads=True), \
        ("Per-head weights (heads[] with num_heads=4 given), the blocks of "
         "split_full_h4_cross; identical trace"), "numpy"


@case("perhead_partial_biases_h2")
def _(rng):
    spec = full_spec(rng, n_x=4, d_x=3, H=2, d_k=2, d_v=3, d_out=2, biases=False)
    ph = to_per_head(spec)
    ph["heads"][0]["b_q"] = rnd(rng, 2, None, 0.3)
    ph["heads"][1]["b_v"] = rnd(rng, 3, None, 0.3)
    ph["view"] = {"selected_head": 1, "note": "ignored by the core"}
    return ph, ("Per-head weights with a bias on some heads only (absent biases are zero), "
                "and a view object the core ignores"), "numpy"


# --------------------------------------------------------------------------------------------

def build_all():
    files = {}
    report = []
    for index, (name, fn, layouts) in enumerate(CASES):
        rng = np.random.default_rng(1000 + index)
        spec, description, source = fn(rng)
        ref = reference_trace(spec)
        expected = ref
        if source == "torch":
            tt = torch_trace(spec)
            assert_traces_agree(tt, ref, name)
            report.append((name, max_abs_diff(tt, ref)))
            expected = tt
        # Sanity of the reference itself.
        for h in expected["heads"]:
            sums = h["weights"].sum(axis=1)
            ok = np.isclose(sums, 1.0, rtol=0, atol=1e-12) | (sums == 0.0)
            assert ok.all(), name
        for layout in layouts:
            fname = f"{name}_{layout}.json"
            title = f"{name} ({layout})"
            doc = {
                "scenario": scenario_json(spec, layout, title, description),
                "expected": trace_json(expected, layout),
                "source": source,
                "description": f"{description} [{layout} layout]",
            }
            files[fname] = dumps(fixture_stats.with_stats(doc)) + "\n"
    # The split pairs must carry identical expected traces.
    for a, b in (("split_full_h2", "split_perhead_h2"),
                 ("split_full_h4_cross", "split_perhead_h4_cross")):
        for layout in ("rows", "columns"):
            ea = json.loads(files[f"{a}_{layout}.json"])["expected"]
            eb = json.loads(files[f"{b}_{layout}.json"])["expected"]
            assert ea == eb, f"{a} vs {b} ({layout})"
    return files, report


def owned(fname):
    """The fixtures this script writes: every JSON file but gen_fixtures_modern.py's modern_* and
    gen_fixtures_stages.py's stages_*."""
    return fname.endswith(".json") and not fname.startswith(("modern_", "stages_"))


def check_or_write(files, check, what, script, written_note=""):
    """The last step of the generators that own a set of named files in tests/fixtures
    (gen_fixtures_modern.py, gen_fixtures_sensitivity.py): with `check`, exit naming those that
    differ from `files`; otherwise write those, and only those."""
    stale = [n for n, text in files.items()
             if not os.path.exists(os.path.join(OUT_DIR, n)) or open(os.path.join(OUT_DIR, n)).read() != text]
    if check:
        if stale:
            sys.exit(f"stale or missing: {', '.join(stale)} (rerun {script})")
        print(f"{len(files)} {what} up to date")
        return
    for name in stale:
        with open(os.path.join(OUT_DIR, name), "w") as f:
            f.write(files[name])
    print(f"{len(files)} {what} ({len(stale)} written){written_note}")


def check_flag(doc):
    """The generators' one option: --check."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with tests/fixtures, write nothing")
    return parser.parse_args().check


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=OUT_DIR, help="output directory (default tests/fixtures)")
    ap.add_argument("--check", action="store_true",
                    help="do not write; fail if the files on disk differ from a fresh run")
    args = ap.parse_args()
    torch.set_default_dtype(torch.float64)
    files, report = build_all()
    for name, err in report:
        print(f"torch vs numpy {name}: max |diff| = {err:.3g}")
    if args.check:
        bad = []
        for fname, text in files.items():
            path = os.path.join(args.out, fname)
            if not os.path.exists(path) or open(path).read() != text:
                bad.append(fname)
        stale = sorted(set(f for f in os.listdir(args.out) if owned(f)) - set(files))
        if bad or stale:
            sys.exit(f"fixtures out of date: {bad} stale: {stale}")
        print(f"{len(files)} fixtures up to date")
        return
    os.makedirs(args.out, exist_ok=True)
    for fname in os.listdir(args.out):
        if owned(fname) and fname not in files:
            os.remove(os.path.join(args.out, fname))
    for fname, text in sorted(files.items()):
        with open(os.path.join(args.out, fname), "w") as f:
            f.write(text)
    print(f"wrote {len(files)} fixtures to {args.out}")


if __name__ == "__main__":
    main()
