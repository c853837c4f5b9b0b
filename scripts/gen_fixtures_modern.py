#!/usr/bin/python3
"""Independent references for attention as today's models run it: positions, grouped-query and
multi-query heads, RoPE, ALiBi, sliding windows and the sinusoidal encoding (docs/FORMAT.md).

    /usr/bin/python3 scripts/gen_fixtures_modern.py            # writes tests/fixtures/modern_*.json
    /usr/bin/python3 scripts/gen_fixtures_modern.py --check    # regenerates in memory, compares

The fixtures have the shape of scripts/gen_fixtures.py's (whose writers this script reuses):
{"scenario", "expected", "source", "description"}, every matrix in the scenario's own layout, -inf
as null. "expected" holds per query head Q, K, V (K and V those of its key/value head), Q_rot and
K_rot (RoPE), scores, scaled, bias (ALiBi), masked, weights, output, kv_head and stats
(scripts/fixture_stats.py); then concat, output, and X_pos / Z_pos with the sinusoidal encoding.

The references are written from the papers' and the libraries' documented math, each in the form
its source uses, and share no code with the C++ core:
- grouped-query attention as Llama's repeat_kv: the G key/value heads repeated H/G times;
- RoPE "half" as Hugging Face's rotate_half: q cos + rotate_half(q) sin, with the angle table
  concatenated with itself; "interleaved" as RoFormer / GPT-J / Meta's Llama: coordinate pairs as
  complex numbers multiplied by exp(i p theta);
- ALiBi's slopes by the paper's recursive rule (Press et al. 2022, get_slopes);
- the sinusoidal encoding in closed form (Vaswani et al. 2017, section 3.5).
With PyTorch installed (python3-torch), the GQA and RoPE cases are also computed with torch
(repeat_interleave, torch.view_as_complex) in float64 and must agree to 1e-12.
"""

import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_fixtures as base  # noqa: E402  (the fixture writers: mat, vec, dumps, rnd)
import fixture_stats  # noqa: E402  (the expected per-head statistics)

try:
    import torch
except ImportError:  # torch only cross-checks; the NumPy references are the fixtures
    torch = None

PREFIX = "modern_"


# --------------------------------------------------------------------------------------------
# The math, rows convention (tokens are rows).
# --------------------------------------------------------------------------------------------

def sinusoidal(positions, d):
    """Vaswani et al.: PE(p, 2i) = sin(p / 10000^(2i/d)), PE(p, 2i+1) = cos(p / 10000^(2i/d))."""
    pe = np.zeros((len(positions), d))
    for t, p in enumerate(positions):
        for i in range(0, d, 2):
            pe[t, i] = math.sin(p / 10000 ** (i / d))
            if i + 1 < d:
                pe[t, i + 1] = math.cos(p / 10000 ** (i / d))
    return pe


def alibi_slopes(n):
    """Press et al.'s get_slopes: a geometric sequence starting at 2^(-8/n) for n a power of two;
    otherwise the closest power of two's, then every other slope of twice that many."""
    def power_of_two(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_two(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_two(closest) + alibi_slopes(2 * closest)[0::2][:n - closest]


def rope_half(M, positions, base_, R):
    """Hugging Face's rotate_half form: x cos + rotate_half(x) sin on the first R coordinates."""
    inv_freq = 1.0 / base_ ** (np.arange(0, R, 2) / R)
    freqs = np.outer(positions, inv_freq)            # tokens by R/2
    emb = np.concatenate([freqs, freqs], axis=1)      # tokens by R
    x = M[:, :R]
    rotate_half = np.concatenate([-x[:, R // 2:], x[:, :R // 2]], axis=1)
    out = M.copy()
    out[:, :R] = x * np.cos(emb) + rotate_half * np.sin(emb)
    return out


def rope_interleaved(M, positions, base_, R):
    """RoFormer / GPT-J / Meta's Llama: pairs (2i, 2i+1) as complex numbers times exp(i p theta_i)."""
    theta = base_ ** (-np.arange(0, R, 2) / R)
    z = M[:, 0:R:2] + 1j * M[:, 1:R:2]
    z = z * np.exp(1j * np.outer(positions, theta))
    out = M.copy()
    out[:, 0:R:2], out[:, 1:R:2] = z.real, z.imag
    return out


def softmax_allowed(logits, allowed):
    out = np.zeros_like(logits)
    for i in range(logits.shape[0]):
        idx = np.nonzero(allowed[i])[0]
        if idx.size:
            e = np.exp(logits[i, idx] - logits[i, idx].max())
            out[i, idx] = e / e.sum()
    return out


def reference(spec):
    """The whole trace of a rows-layout spec with the modern keys. Returns a rows-layout dict."""
    X, Z = spec["X"], spec.get("Z")
    cross = Z is not None
    n_x = X.shape[0]
    p = np.array(spec.get("positions", range(n_x)), dtype=float)
    Zs = Z if cross else X
    c = np.array(spec.get("context_positions", range(Zs.shape[0])), dtype=float) if cross else p
    out = {}
    if spec.get("positional_encoding") == "sinusoidal":
        X = X + sinusoidal(p, X.shape[1])
        out["X_pos"] = X
        if cross:
            Zs = Zs + sinusoidal(c, Zs.shape[1])
            out["Z_pos"] = Zs
        else:
            Zs = X
    H = spec.get("num_heads", len(spec.get("heads", [])) or 1)
    if "heads" in spec:
        H = len(spec["heads"])
        W_q = [h["W_q"] for h in spec["heads"]]
        b_q = [h.get("b_q", np.zeros(h["W_q"].shape[1])) for h in spec["heads"]]
        kv = spec["kv_heads"]
        W_k = [g.get("W_k", np.eye(Zs.shape[1])) for g in kv]
        W_v = [g.get("W_v", np.eye(Zs.shape[1])) for g in kv]
        b_k = [g.get("b_k", np.zeros(w.shape[1])) for g, w in zip(kv, W_k)]
        b_v = [g.get("b_v", np.zeros(w.shape[1])) for g, w in zip(kv, W_v)]
        G = len(kv)
    else:
        G = spec.get("num_kv_heads", H)
        full = {w: spec.get(w, np.eye(X.shape[1] if w == "W_q" else Zs.shape[1])) for w in ("W_q", "W_k", "W_v")}
        split = lambda w, n: (np.split(full["W_" + w], n, axis=1),
                              np.split(spec.get("b_" + w, np.zeros(full["W_" + w].shape[1])), n))
        (W_q, b_q), (W_k, b_k), (W_v, b_v) = split("q", H), split("k", G), split("v", G)
    # Llama's repeat_kv: key/value head g serves query heads g H/G .. (g + 1) H/G - 1.
    K_heads = np.stack([Zs @ W_k[g] + b_k[g] for g in range(G)])
    V_heads = np.stack([Zs @ W_v[g] + b_v[g] for g in range(G)])
    K_rep, V_rep = np.repeat(K_heads, H // G, axis=0), np.repeat(V_heads, H // G, axis=0)
    mask = spec.get("mask", {})
    gap = p[:, None] - c[None, :]                       # p_i - c_j
    allowed = np.ones_like(gap, dtype=bool)
    if mask == "causal" or (isinstance(mask, dict) and mask.get("causal")):
        allowed &= gap >= 0
    if isinstance(mask, dict) and "window" in mask:
        allowed &= np.abs(gap) < mask["window"]
    if isinstance(mask, dict) and "cells" in mask:
        allowed &= np.asarray(mask["cells"]).astype(bool)   # n_x by n_z, rows convention
    if isinstance(mask, dict) and mask.get("sinks", 0) > 0:
        # StreamingLLM's sinks: keys j < s visible wherever causal allows, whatever window and cells say
        causal_ok = gap >= 0 if mask.get("causal") else np.ones_like(gap, dtype=bool)
        s = mask["sinks"]
        allowed[:, :s] = causal_ok[:, :s]
    if isinstance(mask, dict) and "padding" in mask:
        allowed[:, mask["padding"]] = False
    alibi = spec.get("alibi")
    slopes = None if alibi is None else (alibi_slopes(H) if alibi is True else list(alibi))
    heads = []
    for h in range(H):
        Q = X @ W_q[h] + b_q[h]
        K, V = K_rep[h], V_rep[h]
        d_k = Q.shape[1]
        head = dict(Q=Q, K=K, V=V)
        Qs, Ks = Q, K
        rope = spec.get("rope")
        if rope is not None:
            R = rope.get("dims", d_k)
            turn = rope_half if rope.get("style", "half") == "half" else rope_interleaved
            Qs, Ks = turn(Q, p, rope.get("base", 10000.0), R), turn(K, c, rope.get("base", 10000.0), R)
            head.update(Q_rot=Qs, K_rot=Ks)
        S = Qs @ Ks.T
        scale = spec.get("scale", "inv_sqrt_dk")
        scaled = S * (1 / math.sqrt(d_k) if scale == "inv_sqrt_dk" else 1.0 if scale == "none" else scale)
        logits = scaled
        head.update(scores=S, scaled=scaled)
        if slopes is not None:
            B = -slopes[h] * np.abs(gap)
            head["bias"] = B
            logits = scaled + B
        head["masked"] = np.where(allowed, logits, -np.inf)
        head["weights"] = softmax_allowed(logits, allowed)
        head["output"] = head["weights"] @ V
        head["kv_head"] = h // (H // G)
        heads.append(head)
    out["heads"] = heads
    out["concat"] = np.concatenate([h["output"] for h in heads], axis=1)
    out["output"] = out["concat"] @ spec["W_o"] + spec.get("b_o", 0) if "W_o" in spec else out["concat"]
    return out


def torch_check(spec, ref):
    """GQA and RoPE again with torch: repeat_interleave of the K/V heads, complex rotations."""
    t = lambda a: torch.tensor(np.asarray(a), dtype=torch.float64)
    worst = 0.0
    for h, head in enumerate(ref["heads"]):
        Q, K = t(head["Q"]), t(head["K"])
        rope = spec.get("rope")
        if rope is not None:
            R, base_ = rope.get("dims", Q.shape[1]), rope.get("base", 10000.0)
            p = t(spec.get("positions", range(Q.shape[0])))
            c = t(spec.get("context_positions", spec.get("positions", range(K.shape[0]))))

            def turn(M, pos):
                theta = base_ ** (-torch.arange(0, R, 2, dtype=torch.float64) / R)
                rot = torch.polar(torch.ones(len(pos), R // 2, dtype=torch.float64), torch.outer(pos, theta))
                out = M.clone()
                if rope.get("style", "half") == "half":  # pair i with i + R/2
                    z = torch.complex(M[:, :R // 2], M[:, R // 2:R]) * rot
                    out[:, :R // 2], out[:, R // 2:R] = z.real, z.imag
                else:
                    z = torch.view_as_complex(M[:, :R].reshape(len(pos), R // 2, 2).contiguous()) * rot
                    out[:, :R] = torch.view_as_real(z).reshape(len(pos), R)
                return out
            Q, K = turn(Q, p), turn(K, c)
            worst = max(worst, float((Q - t(head["Q_rot"])).abs().max()), float((K - t(head["K_rot"])).abs().max()))
        worst = max(worst, float((Q @ K.T - t(head["scores"])).abs().max()))
    if "num_kv_heads" in spec or "kv_heads" in spec:
        G = len({h["kv_head"] for h in ref["heads"]})
        K_heads = torch.stack([t(ref["heads"][g * (len(ref["heads"]) // G)]["K"]) for g in range(G)])
        rep = torch.repeat_interleave(K_heads, len(ref["heads"]) // G, dim=0)
        for h, head in enumerate(ref["heads"]):
            worst = max(worst, float((rep[h] - t(head["K"])).abs().max()))
    assert worst <= 1e-12, f"torch and NumPy disagree by {worst}"
    return worst


# --------------------------------------------------------------------------------------------
# Writing: the scenario with the modern keys, the expected trace with the new stages.
# --------------------------------------------------------------------------------------------

MODERN_KEYS = ("num_kv_heads", "positions", "context_positions", "rope", "alibi", "positional_encoding")
STAGES = ("Q", "K", "V", "Q_rot", "K_rot", "scores", "scaled", "bias", "masked", "weights", "output")


def scenario_json(spec, layout, title):
    plain = {k: v for k, v in spec.items() if k not in MODERN_KEYS + ("kv_heads", "mask")}
    s = base.scenario_json(plain, layout, title, "")
    for k in MODERN_KEYS:
        if k in spec:
            s[k] = spec[k]
    if "kv_heads" in spec:
        s["kv_heads"] = [{w: base.mat(m, layout) if w.startswith("W") else base.vec(m) for w, m in g.items()}
                         for g in spec["kv_heads"]]
    if "mask" in spec:
        s["mask"] = spec["mask"]
        if isinstance(spec["mask"], dict) and "cells" in spec["mask"]:
            s["mask"] = dict(spec["mask"], cells=base.intmat(spec["mask"]["cells"], layout))
    return s


def trace_json(tr, layout):
    out = {}
    for key in ("X_pos", "Z_pos"):
        if key in tr:
            out[key] = base.mat(tr[key], layout)
    out["heads"] = [dict({k: base.mat(h[k], layout) for k in STAGES if k in h}, kv_head=h["kv_head"])
                    for h in tr["heads"]]
    out["concat"] = base.mat(tr["concat"], layout)
    out["output"] = base.mat(tr["output"], layout)
    return out


def registry(cases):
    """A decorator @case(name) that appends (name, fn) to `cases` (each generator keeps its own)."""
    def case(name):
        def deco(fn):
            cases.append((name, fn))
            return fn
        return deco
    return case


CASES = []
case = registry(CASES)


def weights(rng, d_in, width, scale=0.7):
    return base.rnd(rng, d_in, width, scale)


@case("gqa_h4_g2_causal_wo")
def _(rng):
    n, d, H, G, dk = 5, 8, 4, 2, 2
    return {"X": base.rnd(rng, n, d), "num_heads": H, "num_kv_heads": G, "W_q": weights(rng, d, H * dk),
            "W_k": weights(rng, d, G * dk), "W_v": weights(rng, d, G * dk), "b_q": base.rnd(rng, H * dk, None, 0.3),
            "b_k": base.rnd(rng, G * dk, None, 0.3), "W_o": weights(rng, H * dk, d, 0.5), "mask": "causal"}, \
        "GQA: 4 query heads, 2 key/value heads (Llama's repeat_kv), causal, W_o"


@case("mqa_h4_perhead_kv_heads")
def _(rng):
    n, d, dk = 4, 6, 3
    return {"X": base.rnd(rng, n, d),
            "heads": [{"W_q": weights(rng, d, dk), "b_q": base.rnd(rng, dk, None, 0.3)} for _ in range(4)],
            "kv_heads": [{"W_k": weights(rng, d, dk), "b_k": base.rnd(rng, dk, None, 0.3),
                          "W_v": weights(rng, d, 2), "b_v": base.rnd(rng, 2, None, 0.3)}]}, \
        "MQA with per-head weights: 4 query heads, one kv_heads entry, d_v = 2"


@case("rope_half_h2")
def _(rng):
    n, d = 6, 8
    return {"X": base.rnd(rng, n, d), "num_heads": 2, "W_q": weights(rng, d, 8), "W_k": weights(rng, d, 8),
            "W_v": weights(rng, d, 8), "rope": {}}, "RoPE, half style (Hugging Face's rotate_half), defaults"


@case("rope_interleaved_positions")
def _(rng):
    n, d = 5, 4
    return {"X": base.rnd(rng, n, d), "W_q": weights(rng, d, 4), "W_k": weights(rng, d, 4),
            "rope": {"style": "interleaved", "base": 100.0}, "positions": [7, 3, 3, 12, 0], "mask": "causal"}, \
        "RoPE interleaved (GPT-J) at unsorted positions with a repeat, base 100, causal by position"


@case("rope_partial_base500_cross")
def _(rng):
    return {"X": base.rnd(rng, 3, 4), "Z": base.rnd(rng, 5, 6), "W_q": weights(rng, 4, 4), "W_k": weights(rng, 6, 4),
            "W_v": weights(rng, 6, 3), "rope": {"style": "half", "base": 500.0, "dims": 2},
            "positions": [10, 11, 12], "context_positions": [0, 2, 4, 6, 8]}, \
        "Partial rotary (dims 2 of d_k 4, GPT-NeoX), base 500, cross-attention with context positions"


@case("alibi_h4_causal")
def _(rng):
    n, d = 6, 8
    return {"X": base.rnd(rng, n, d), "num_heads": 4, "W_q": weights(rng, d, 8), "W_k": weights(rng, d, 8),
            "W_v": weights(rng, d, 8), "alibi": True, "mask": "causal"}, "ALiBi, the paper's slopes for 4 heads"


@case("alibi_h6_paper_rule")
def _(rng):
    n, d = 4, 12
    return {"X": base.rnd(rng, n, d), "num_heads": 6, "W_q": weights(rng, d, 12), "W_k": weights(rng, d, 12),
            "W_v": weights(rng, d, 6), "alibi": True}, "ALiBi for 6 heads: the rule for a head count not a power of two"


@case("alibi_given_slopes_cross")
def _(rng):
    return {"X": base.rnd(rng, 3, 4), "Z": base.rnd(rng, 4, 4), "num_heads": 2, "W_q": weights(rng, 4, 4),
            "W_k": weights(rng, 4, 4), "W_v": weights(rng, 4, 4), "alibi": [0.5, 0.0],
            "positions": [5, 6, 7], "context_positions": [0, 3, 6, 9], "mask": {"causal": True}}, \
        "ALiBi slopes given (one 0), cross-attention, causal by position"


@case("window3_causal_8_tokens")
def _(rng):
    n, d = 8, 4
    return {"X": base.rnd(rng, n, d), "W_q": weights(rng, d, 4), "W_k": weights(rng, d, 4),
            "mask": {"causal": True, "window": 3}}, "Mistral's sliding window: 3 positions, causal, 8 tokens"


@case("window_cross_padding")
def _(rng):
    return {"X": base.rnd(rng, 4, 4), "Z": base.rnd(rng, 6, 4), "W_q": weights(rng, 4, 4), "W_k": weights(rng, 4, 4),
            "positions": [0, 4, 8, 30], "context_positions": [0, 2, 4, 6, 8, 10],
            "mask": {"causal": False, "window": 3, "padding": [2]}}, \
        "A window without causal in cross-attention, with padding: the last query attends nothing"


@case("sinusoidal_self")
def _(rng):
    n, d = 5, 6
    return {"X": base.rnd(rng, n, d), "num_heads": 2, "W_q": weights(rng, d, 4), "W_k": weights(rng, d, 4),
            "W_v": weights(rng, d, 4), "positional_encoding": "sinusoidal", "positions": [0, 1, 2, 50, 51]}, \
        "The sinusoidal encoding added to X (X_pos), positions with a jump"


@case("sinusoidal_cross")
def _(rng):
    return {"X": base.rnd(rng, 3, 4), "Z": base.rnd(rng, 4, 2), "W_q": weights(rng, 4, 2), "W_k": weights(rng, 2, 2),
            "positional_encoding": "sinusoidal", "context_positions": [3, 1, 4, 1]}, \
        "The sinusoidal encoding on X and on Z (Z_pos) at the context positions"


@case("everything_perhead")
def _(rng):
    d, dk = 6, 4
    return {"X": base.rnd(rng, 5, d), "tokens": ["a", "b", "c", "d", "e"],
            "heads": [{"W_q": weights(rng, d, dk), "b_q": base.rnd(rng, dk, None, 0.3)} for _ in range(4)],
            "kv_heads": [{"W_k": weights(rng, d, dk), "W_v": weights(rng, d, 3), "b_v": base.rnd(rng, 3, None, 0.3)}
                         for _ in range(2)],
            "W_o": weights(rng, 12, d, 0.5), "b_o": base.rnd(rng, d, None, 0.3),
            "positions": [2, 3, 5, 8, 9], "positional_encoding": "sinusoidal",
            "rope": {"style": "interleaved", "dims": 2}, "alibi": True, "mask": {"causal": True, "window": 4}}, \
        "Everything at once: positions, X + PE, GQA through kv_heads, partial interleaved RoPE, ALiBi, window + causal, W_o"


@case("everything_full_h4_g1")
def _(rng):
    d = 8
    return {"X": base.rnd(rng, 6, d), "num_heads": 4, "num_kv_heads": 1, "W_q": weights(rng, d, 8),
            "W_k": weights(rng, d, 2), "W_v": weights(rng, d, 2), "b_k": base.rnd(rng, 2, None, 0.3),
            "positions": [100, 101, 102, 103, 104, 105], "rope": {}, "alibi": [0.3, 0.2, 0.1, 0.0],
            "mask": {"causal": True, "window": 2}, "scale": 0.8}, \
        "MQA with full matrices, RoPE at positions 100.., given slopes, window 2, a scale of 0.8"


@case("sinks2_window3_causal_8_tokens")
def _(rng):
    n, d = 8, 4
    return {"X": base.rnd(rng, n, d), "W_q": weights(rng, d, 4), "W_k": weights(rng, d, 4),
            "mask": {"causal": True, "window": 3, "sinks": 2}}, \
        "StreamingLLM: 2 attention sinks beside a causal window of 3, 8 tokens"


@case("sinks_cells_gqa_rope")
def _(rng):
    n, d = 6, 8
    cells = (rng.random((n, n)) < 0.5).astype(int)
    cells[:, 0] = 0  # every cell of the sink off: the sink shows through anyway
    return {"X": base.rnd(rng, n, d), "num_heads": 4, "num_kv_heads": 2, "W_q": weights(rng, d, 8),
            "W_k": weights(rng, d, 4), "W_v": weights(rng, d, 4), "rope": {}, "alibi": True,
            "mask": {"causal": True, "window": 2, "sinks": 1, "cells": cells}}, \
        "A sink over cells that turn it off, a window of 2, causal, GQA, RoPE and ALiBi"


@case("sinks_padding_no_causal")
def _(rng):
    n, d = 5, 4
    return {"X": base.rnd(rng, n, d), "num_heads": 2, "W_q": weights(rng, d, 4), "W_k": weights(rng, d, 4),
            "W_v": weights(rng, d, 4), "mask": {"causal": False, "window": 1, "sinks": 3, "padding": [1]}}, \
        "Sinks without causal: keys 0 and 2 visible to every query, padded key 1 stays masked, window 1"


def invariants(rng):
    """The issue's invariants, on the references themselves."""
    spec, _ = CASES[2][1](rng)                          # RoPE, half
    for style in ("half", "interleaved"):
        a = reference(dict(spec, rope={"style": style}, positions=list(range(6))))
        b = reference(dict(spec, rope={"style": style}, positions=list(range(100, 106))))
        for ha, hb in zip(a["heads"], b["heads"]):
            err = np.abs(ha["scores"] - hb["scores"]).max() / max(1, np.abs(ha["scores"]).max())
            assert err <= 1e-12, f"RoPE shift ({style}): {err}"
    a = reference(dict(spec, alibi=[0.0, 0.0]))
    b = reference(spec)
    assert np.abs(a["output"] - b["output"]).max() <= 1e-14, "slope 0 is no ALiBi"
    a = reference(dict(spec, mask={"causal": True, "window": 6}))
    b = reference(dict(spec, mask="causal"))
    assert np.array_equal(a["heads"][0]["masked"], b["heads"][0]["masked"]), "a full window with causal is causal"
    assert alibi_slopes(4) == [0.25, 0.0625, 0.015625, 0.00390625]
    assert alibi_slopes(6) == [0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125]
    g = CASES[0][1](rng)[0]
    doubled = lambda m: np.concatenate([b for b in np.split(m, 2, axis=-1) for _ in range(2)], axis=-1)
    plain = reference(dict(g, num_kv_heads=4, W_k=doubled(g["W_k"]), W_v=doubled(g["W_v"]), b_k=doubled(g["b_k"])))
    for h in range(4):  # G = H with each key/value head repeated: the same as G = 2
        assert np.allclose(plain["heads"][h]["K"], reference(g)["heads"][h]["K"], rtol=0, atol=1e-15)


def fixture_files(cases, prefix, seed, make):
    """{file name: text} of each case in both layouts. make(spec) gives the reference trace, the
    source ("numpy", or "torch" once torch computed it again and agreed to 1e-12), and the
    scenario_json and trace_json that write them."""
    files = {}
    for index, (name, fn) in enumerate(cases):
        spec, description = fn(np.random.default_rng(seed + index))
        ref, source, to_scenario, to_trace = make(spec)
        for layout in ("rows", "columns"):
            doc = {"scenario": to_scenario(spec, layout, name), "expected": to_trace(ref, layout),
                   "source": source, "description": description}
            files[f"{prefix}{name}_{layout}.json"] = base.dumps(fixture_stats.with_stats(doc)) + "\n"
    return files


def build():
    def make(spec):
        ref = reference(spec)
        if torch is not None and ("rope" in spec or "num_kv_heads" in spec or "kv_heads" in spec):
            torch_check(spec, ref)
            return ref, "torch", scenario_json, trace_json
        return ref, "numpy", scenario_json, trace_json
    files = fixture_files(CASES, PREFIX, 1400, make)
    invariants(np.random.default_rng(99))
    return files


def main():
    base.check_or_write(build(), base.check_flag(__doc__), "modern fixtures", "scripts/gen_fixtures_modern.py",
                        f", torch {'cross-checked' if torch else 'absent'}")


if __name__ == "__main__":
    main()
