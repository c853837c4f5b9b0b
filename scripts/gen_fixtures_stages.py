#!/usr/bin/python3
"""Independent references for the stages Hugging Face models add to attention: QK-norm (Qwen3,
Gemma 3, OLMo 2), the logit softcap (Gemma 2) and RoPE scaling (linear, Llama 3, LongRoPE).

    /usr/bin/python3 scripts/gen_fixtures_stages.py            # writes tests/fixtures/stages_*.json
    /usr/bin/python3 scripts/gen_fixtures_stages.py --check    # regenerates in memory, compares

The fixtures have gen_fixtures_modern.py's shape; "expected" adds per head Q_norm and K_norm
(QK-norm) and capped (the softcapped scaled scores). Each reference is written in the form
transformers writes it, and shares no code with the C++ core:
- RoPE's inverse frequencies as modeling_rope_utils.py computes them: _compute_linear_scaling_rope_parameters
  (inv_freq / factor), _compute_llama3_parameters (the wavelength bands and the smooth blend, with
  torch.where), _compute_longrope_parameters (1 / (ext_factors * base^(2c/R)), long_factor when
  max(position_ids) + 1 > original_max_position_embeddings, cos and sin times attention_factor);
  then apply_rotary_pos_emb's q cos + rotate_half(q) sin on the first R coordinates;
- QK-norm as Qwen3RMSNorm (x rsqrt(mean(x^2) + eps) w, per head over head_dim), Gemma3RMSNorm
  (... (1 + w)) and OLMo 2 (the norm over the whole projection, before the view into heads);
- the softcap as Gemma 2's eager attention: scores * scaling, / softcap, tanh, * softcap, then the mask.
transformers computes these in float32 on purpose; the references (like the core) use float64.
With PyTorch installed the same math is run again with torch, in float64, and must agree to 1e-12.
"""

import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_fixtures as base  # noqa: E402  (the fixture writers: mat, vec, dumps, rnd)
import gen_fixtures_modern as modern  # noqa: E402  (scenario_json, softmax_allowed, alibi_slopes)

try:
    import torch
except ImportError:
    torch = None

PREFIX = "stages_"
STAGES = ("Q", "K", "V", "Q_norm", "K_norm", "Q_rot", "K_rot", "scores", "scaled", "capped", "bias", "masked",
          "weights", "output")


# --------------------------------------------------------------------------------------------
# The math, rows convention, in transformers' form.
# --------------------------------------------------------------------------------------------

def inv_freq(rope, R, longest_position):
    """modeling_rope_utils.py: the default frequencies, then the scaling rule of rope["scaling"]."""
    base_ = rope.get("base", 10000.0)
    freq = 1.0 / (base_ ** (np.arange(0, R, 2) / R))
    sc = rope.get("scaling")
    if sc is None:
        return freq, 1.0
    if sc["type"] == "linear":
        return freq / sc["factor"], 1.0
    if sc["type"] == "llama3":
        factor, low, high, old = sc["factor"], sc["low_freq_factor"], sc["high_freq_factor"], sc["original_positions"]
        low_freq_wavelen, high_freq_wavelen = old / low, old / high
        wavelen = 2 * math.pi / freq
        llama = np.where(wavelen > low_freq_wavelen, freq / factor, freq)
        smooth = (old / wavelen - low) / (high - low)
        smoothed = (1 - smooth) * llama / factor + smooth * llama
        medium = ~(wavelen < high_freq_wavelen) & ~(wavelen > low_freq_wavelen)
        return np.where(medium, smoothed, llama), 1.0
    # longrope: the factors chosen by the sequence's length, max(position_ids) + 1
    ext = np.array(sc["long_factors"] if longest_position + 1 > sc["original_positions"] else sc["short_factors"])
    return 1.0 / (ext * base_ ** (np.arange(0, R, 2) / R)), sc.get("attention_factor", 1.0)


def rotate(M, positions, rope, freq, attention_factor):
    """apply_rotary_pos_emb: cos and sin (times attention_factor) on the first R coordinates."""
    R = 2 * len(freq)
    angles = np.outer(positions, freq)
    out = M.copy()
    if rope.get("style", "half") == "half":
        emb = np.concatenate([angles, angles], axis=1)
        cos, sin = np.cos(emb) * attention_factor, np.sin(emb) * attention_factor
        x = M[:, :R]
        rotate_half = np.concatenate([-x[:, R // 2:], x[:, :R // 2]], axis=1)
        out[:, :R] = x * cos + rotate_half * sin
    else:  # GPT-J's pairs (2i, 2i+1) as complex numbers
        z = (M[:, 0:R:2] + 1j * M[:, 1:R:2]) * np.exp(1j * angles) * attention_factor
        out[:, 0:R:2], out[:, 1:R:2] = z.real, z.imag
    return out


def rms_norm(x, w, eps, plus_one):
    """Qwen3RMSNorm / Gemma3RMSNorm over the last axis."""
    variance = np.mean(x ** 2, axis=-1, keepdims=True)
    return x / np.sqrt(variance + eps) * ((1.0 + w) if plus_one else w)


def projections(spec, Zs):
    X = spec["X"]
    if "heads" in spec:
        W_q = [h["W_q"] for h in spec["heads"]]
        b_q = [h.get("b_q", np.zeros(h["W_q"].shape[1])) for h in spec["heads"]]
        kv = spec["kv_heads"]
        W_k, W_v = [g["W_k"] for g in kv], [g["W_v"] for g in kv]
        b_k = [g.get("b_k", np.zeros(g["W_k"].shape[1])) for g in kv]
        b_v = [g.get("b_v", np.zeros(g["W_v"].shape[1])) for g in kv]
        return np.concatenate(W_q, 1), np.concatenate(b_q), np.concatenate(W_k, 1), np.concatenate(b_k), \
            np.concatenate(W_v, 1), np.concatenate(b_v), len(W_q), len(kv)
    H = spec.get("num_heads", 1)
    G = spec.get("num_kv_heads", H)
    W = {w: spec.get(w, np.eye(X.shape[1] if w == "W_q" else Zs.shape[1])) for w in ("W_q", "W_k", "W_v")}
    b = {w: spec.get(w, np.zeros(W["W_" + w[2]].shape[1])) for w in ("b_q", "b_k", "b_v")}
    return W["W_q"], b["b_q"], W["W_k"], b["b_k"], W["W_v"], b["b_v"], H, G


def reference(spec):
    """The whole trace, rows convention: q_proj -> (q_norm) -> view into heads -> (q_norm) -> RoPE
    -> scores * scaling -> softcap -> + ALiBi -> mask -> softmax -> weights @ V."""
    X, Z = spec["X"], spec.get("Z")
    cross = Z is not None
    Zs = Z if cross else X
    p = np.array(spec.get("positions", range(X.shape[0])), dtype=float)
    c = np.array(spec.get("context_positions", range(Zs.shape[0])), dtype=float) if cross else p
    W_q, b_q, W_k, b_k, W_v, b_v, H, G = projections(spec, Zs)
    d_k, d_v = W_q.shape[1] // H, W_v.shape[1] // G
    q, k, v = X @ W_q + b_q, Zs @ W_k + b_k, Zs @ W_v + b_v          # tokens by H d_k, G d_k, G d_v
    norm = spec.get("qk_norm")
    qn, kn = q, k
    if norm is not None:
        eps, plus = norm.get("eps", 1e-6), norm.get("plus_one", False)
        wq = np.asarray(norm.get("w_q", np.zeros(0)))
        wk = np.asarray(norm.get("w_k", np.zeros(0)))
        if norm.get("scope", "head") == "width":   # OLMo 2: over the whole projection, before the view
            wq = wq if wq.size else np.full(H * d_k, 0.0 if plus else 1.0)
            wk = wk if wk.size else np.full(G * d_k, 0.0 if plus else 1.0)
            qn, kn = rms_norm(q, wq, eps, plus), rms_norm(k, wk, eps, plus)
        else:                                      # Qwen3, Gemma 3: per head over head_dim
            wq = wq if wq.size else np.full(d_k, 0.0 if plus else 1.0)
            wk = wk if wk.size else np.full(d_k, 0.0 if plus else 1.0)
            qn = rms_norm(q.reshape(len(q), H, d_k), wq, eps, plus).reshape(len(q), H * d_k)
            kn = rms_norm(k.reshape(len(k), G, d_k), wk, eps, plus).reshape(len(k), G * d_k)
    rope = spec.get("rope")
    if rope is not None:
        R = rope.get("dims", d_k)
        freq, factor = inv_freq(rope, R, max(p.max(), c.max()))
    gap = p[:, None] - c[None, :]
    mask = spec.get("mask", {})
    allowed = np.ones_like(gap, dtype=bool)
    if mask == "causal" or (isinstance(mask, dict) and mask.get("causal")):
        allowed &= gap >= 0
    if isinstance(mask, dict) and "window" in mask:
        allowed &= np.abs(gap) < mask["window"]
    alibi = spec.get("alibi")
    slopes = None if alibi is None else (modern.alibi_slopes(H) if alibi is True else list(alibi))
    scale = spec.get("scale", "inv_sqrt_dk")
    scaling = 1 / math.sqrt(d_k) if scale == "inv_sqrt_dk" else 1.0 if scale == "none" else scale
    softcap = spec.get("softcap", 0)
    heads = []
    for h in range(H):
        g = h // (H // G)                          # repeat_kv
        Q, K, V = q[:, h * d_k:(h + 1) * d_k], k[:, g * d_k:(g + 1) * d_k], v[:, g * d_v:(g + 1) * d_v]
        head = dict(Q=Q, K=K, V=V, kv_head=g)
        Qs, Ks = Q, K
        if norm is not None:
            Qs, Ks = qn[:, h * d_k:(h + 1) * d_k], kn[:, g * d_k:(g + 1) * d_k]
            head.update(Q_norm=Qs, K_norm=Ks)
        if rope is not None:
            Qs, Ks = rotate(Qs, p, rope, freq, factor), rotate(Ks, c, rope, freq, factor)
            head.update(Q_rot=Qs, K_rot=Ks)
        S = Qs @ Ks.T
        scaled = S * scaling
        head.update(scores=S, scaled=scaled)
        logits = scaled
        if softcap:                                # Gemma 2: after the scaling, before the mask
            logits = np.tanh(logits / softcap) * softcap
            head["capped"] = logits
        if slopes is not None:
            head["bias"] = -slopes[h] * np.abs(gap)
            logits = logits + head["bias"]
        head["masked"] = np.where(allowed, logits, -np.inf)
        head["weights"] = modern.softmax_allowed(logits, allowed)
        head["output"] = head["weights"] @ V
        heads.append(head)
    out = {"heads": heads, "concat": np.concatenate([h["output"] for h in heads], axis=1)}
    out["output"] = out["concat"] @ spec["W_o"] + spec.get("b_o", 0) if "W_o" in spec else out["concat"]
    return out


def torch_check(spec, ref):
    """The normalised and rotated queries and keys again with torch (float64), from Q and K."""
    t = lambda a: torch.tensor(np.asarray(a), dtype=torch.float64)
    worst = 0.0
    norm, rope = spec.get("qk_norm"), spec.get("rope")
    H = len(ref["heads"])
    q = torch.cat([t(h["Q"]) for h in ref["heads"]], dim=1)
    d_k = ref["heads"][0]["Q"].shape[1]
    if norm is not None and norm.get("scope", "head") == "head":
        w = t(norm["w_q"]) if "w_q" in norm else torch.ones(d_k, dtype=torch.float64)
        x = q.view(q.shape[0], H, d_k)
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + norm.get("eps", 1e-6))
        x = x * ((1.0 + w) if norm.get("plus_one") else w)
        for h in range(H):
            worst = max(worst, float((x[:, h] - t(ref["heads"][h]["Q_norm"])).abs().max()))
    if rope is not None:
        for h in range(H):
            src = t(ref["heads"][h]["Q_norm" if norm is not None else "Q"])
            p = t(spec.get("positions", range(src.shape[0])))
            R = rope.get("dims", d_k)
            base_ = rope.get("base", 10000.0)
            inv = 1.0 / (base_ ** (torch.arange(0, R, 2, dtype=torch.int64).double() / R))
            sc = rope.get("scaling")
            af = 1.0
            if sc and sc["type"] == "linear":
                inv = inv / sc["factor"]
            elif sc and sc["type"] == "llama3":
                wavelen = 2 * math.pi / inv
                lo, hi = sc["original_positions"] / sc["low_freq_factor"], sc["original_positions"] / sc["high_freq_factor"]
                llama = torch.where(wavelen > lo, inv / sc["factor"], inv)
                smooth = (sc["original_positions"] / wavelen - sc["low_freq_factor"]) / (
                    sc["high_freq_factor"] - sc["low_freq_factor"])
                smoothed = (1 - smooth) * llama / sc["factor"] + smooth * llama
                inv = torch.where(~(wavelen < hi) * ~(wavelen > lo), smoothed, llama)
            elif sc and sc["type"] == "longrope":
                longest = max(spec.get("positions", range(src.shape[0]))) + 1
                ctx = spec.get("context_positions")
                if ctx is not None:
                    longest = max(longest, max(ctx) + 1)
                ext = t(sc["long_factors"] if longest > sc["original_positions"] else sc["short_factors"])
                inv = 1.0 / (ext * base_ ** (torch.arange(0, R, 2, dtype=torch.int64).double() / R))
                af = sc.get("attention_factor", 1.0)
            freqs = torch.outer(p, inv)
            if rope.get("style", "half") != "half":
                continue  # the complex form is checked by gen_fixtures_modern.py
            emb = torch.cat((freqs, freqs), dim=-1)
            cos, sin = emb.cos() * af, emb.sin() * af
            x = src[:, :R]
            rot = torch.cat((-x[:, R // 2:], x[:, :R // 2]), dim=-1)
            out = src.clone()
            out[:, :R] = x * cos + rot * sin
            worst = max(worst, float((out - t(ref["heads"][h]["Q_rot"])).abs().max()))
    if spec.get("softcap"):
        cap = spec["softcap"]
        for h in ref["heads"]:
            capped = torch.tanh(t(h["scaled"]) / cap) * cap
            worst = max(worst, float((capped - t(h["capped"])).abs().max()))
    assert worst <= 1e-12, f"torch and NumPy disagree by {worst}"
    return worst


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------

def scenario_json(spec, layout, title):
    s = modern.scenario_json({k: v for k, v in spec.items() if k not in ("qk_norm", "softcap")}, layout, title)
    if "qk_norm" in spec:
        s["qk_norm"] = {k: (base.vec(v) if k.startswith("w_") else v) for k, v in spec["qk_norm"].items()}
    if "softcap" in spec:
        s["softcap"] = spec["softcap"]
    return s


def trace_json(tr, layout):
    return {"heads": [dict({k: base.mat(h[k], layout) for k in STAGES if k in h}, kv_head=h["kv_head"])
                      for h in tr["heads"]],
            "concat": base.mat(tr["concat"], layout), "output": base.mat(tr["output"], layout)}


CASES = []
case = modern.registry(CASES)


def W(rng, d_in, width, scale=0.7):
    return base.rnd(rng, d_in, width, scale)


@case("softcap_h2_causal")
def _(rng):
    n, d = 5, 6
    return {"X": base.rnd(rng, n, d, 1.5), "num_heads": 2, "W_q": W(rng, d, 8, 1.0), "W_k": W(rng, d, 8, 1.0),
            "W_v": W(rng, d, 6), "mask": "causal", "softcap": 5.0}, \
        "Gemma 2's softcap: runaway scores bent by 5 tanh(s / 5), causal"


@case("softcap_alibi_cross_window")
def _(rng):
    return {"X": base.rnd(rng, 3, 4, 2.0), "Z": base.rnd(rng, 5, 4, 2.0), "num_heads": 2, "W_q": W(rng, 4, 4, 2.0),
            "W_k": W(rng, 4, 4, 2.0), "W_v": W(rng, 4, 4), "alibi": [0.5, 0.25], "softcap": 3.0, "scale": 0.9,
            "positions": [4, 5, 6], "context_positions": [0, 2, 4, 6, 8], "mask": {"causal": True, "window": 5}}, \
        "A softcap of 3 before ALiBi's bias, cross-attention, a window and a scale of 0.9"


@case("qknorm_head_qwen3_gqa_rope")
def _(rng):
    n, d, H, G, dk = 5, 8, 4, 2, 4
    return {"X": base.rnd(rng, n, d), "num_heads": H, "num_kv_heads": G, "W_q": W(rng, d, H * dk, 2.0),
            "W_k": W(rng, d, G * dk, 2.0), "W_v": W(rng, d, G * dk), "b_q": base.rnd(rng, H * dk, None, 0.5),
            "b_k": base.rnd(rng, G * dk, None, 0.5), "W_o": W(rng, H * dk, d, 0.5), "mask": "causal",
            "rope": {"base": 1000000.0},
            "qk_norm": {"scope": "head", "eps": 1e-6, "w_q": base.rnd(rng, dk, None, 1.0),
                        "w_k": base.rnd(rng, dk, None, 1.0)}}, \
        "Qwen3's QK-norm per head over d_k (after the bias, before RoPE), GQA 4/2, causal, W_o"


@case("qknorm_plus_one_gemma3_perhead_softcap")
def _(rng):
    d, dk = 6, 4
    return {"X": base.rnd(rng, 5, d), "tokens": ["a", "b", "c", "d", "e"],
            "heads": [{"W_q": W(rng, d, dk), "b_q": base.rnd(rng, dk, None, 0.3)} for _ in range(2)],
            "kv_heads": [{"W_k": W(rng, d, dk), "W_v": W(rng, d, 3), "b_v": base.rnd(rng, 3, None, 0.3)}],
            "rope": {"style": "interleaved", "dims": 2}, "positions": [3, 4, 5, 6, 7], "mask": "causal",
            "scale": 0.25, "softcap": 2.0,
            "qk_norm": {"scope": "head", "plus_one": True, "eps": 1e-6, "w_q": base.rnd(rng, dk, None, 0.5),
                        "w_k": base.rnd(rng, dk, None, 0.5)}}, \
        "Gemma's RMSNorm (1 + w) per head, per-head weights with one kv head, partial interleaved RoPE, a softcap"


@case("qknorm_width_olmo2_gqa")
def _(rng):
    n, d, H, G, dk = 6, 8, 4, 2, 2
    return {"X": base.rnd(rng, n, d), "num_heads": H, "num_kv_heads": G, "W_q": W(rng, d, H * dk, 2.0),
            "W_k": W(rng, d, G * dk, 2.0), "W_v": W(rng, d, G * dk), "mask": "causal", "rope": {"base": 500000.0},
            "qk_norm": {"scope": "width", "eps": 1e-6, "w_q": base.rnd(rng, H * dk, None, 1.0),
                        "w_k": base.rnd(rng, G * dk, None, 1.0)}}, \
        "OLMo 2's QK-norm over the whole projected width (H d_k and G d_k) before the view into heads"


@case("qknorm_width_cross_no_weights")
def _(rng):
    return {"X": base.rnd(rng, 3, 4), "Z": base.rnd(rng, 4, 6), "num_heads": 2, "W_q": W(rng, 4, 4),
            "W_k": W(rng, 6, 4), "W_v": W(rng, 6, 4), "b_k": base.rnd(rng, 4, None, 0.5),
            "qk_norm": {"scope": "width", "eps": 0.01}}, \
        "QK-norm over the width in cross-attention, weights omitted (a gain of 1), eps 0.01"


@case("rope_linear_factor4")
def _(rng):
    n, d = 5, 8
    return {"X": base.rnd(rng, n, d), "num_heads": 2, "W_q": W(rng, d, 8), "W_k": W(rng, d, 8), "W_v": W(rng, d, 8),
            "positions": [0, 10, 20, 30, 40], "rope": {"scaling": {"type": "linear", "factor": 4.0}}}, \
        "Linear RoPE scaling (position interpolation): every frequency divided by 4"


@case("rope_llama3_three_bands")
def _(rng):
    n, d = 6, 8
    return {"X": base.rnd(rng, n, d), "W_q": W(rng, d, 8), "W_k": W(rng, d, 8), "mask": "causal",
            "positions": [0, 100, 200, 300, 400, 500],
            "rope": {"scaling": {"type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                 "original_positions": 1024}}}, \
        "Llama 3's rule with R = 8: two pairs kept, one blended, one divided by 8"


@case("rope_longrope_long_partial")
def _(rng):
    n, d = 5, 6
    return {"X": base.rnd(rng, n, d), "num_heads": 1, "W_q": W(rng, d, 6), "W_k": W(rng, d, 6), "W_v": W(rng, d, 6),
            "positions": [8, 9, 10, 11, 12], "mask": "causal",
            "rope": {"dims": 4, "scaling": {"type": "longrope", "original_positions": 8, "short_factors": [1.0, 1.5],
                                            "long_factors": [2.0, 6.0], "attention_factor": 1.2}}}, \
        "LongRoPE past its original length (13 > 8): the long factors, cos and sin times 1.2, dims 4 of 6"


@case("rope_longrope_short")
def _(rng):
    n, d = 4, 4
    return {"X": base.rnd(rng, n, d), "W_q": W(rng, d, 4), "W_k": W(rng, d, 4),
            "rope": {"scaling": {"type": "longrope", "original_positions": 16, "short_factors": [1.0, 1.5],
                                 "long_factors": [2.0, 6.0], "attention_factor": 1.1}}}, \
        "LongRoPE within its original length (4 <= 16): the short factors"


@case("everything_llama3_qknorm_softcap_alibi")
def _(rng):
    n, d, H, G, dk = 6, 8, 4, 1, 4
    return {"X": base.rnd(rng, n, d), "num_heads": H, "num_kv_heads": G, "W_q": W(rng, d, H * dk),
            "W_k": W(rng, d, G * dk), "W_v": W(rng, d, G * 2), "b_q": base.rnd(rng, H * dk, None, 0.5),
            "positions": [0, 300, 600, 900, 1200, 1500], "alibi": True, "softcap": 4.0,
            "mask": {"causal": True, "window": 1000},
            "rope": {"scaling": {"type": "llama3", "factor": 4.0, "low_freq_factor": 1.0, "high_freq_factor": 2.0,
                                 "original_positions": 64}},
            "qk_norm": {"scope": "head", "w_q": base.rnd(rng, dk, None, 1.0), "w_k": base.rnd(rng, dk, None, 1.0)}}, \
        "Everything: MQA, QK-norm, Llama 3 RoPE scaling, a softcap, ALiBi and a causal window"


def invariants():
    """Properties of the references themselves."""
    rng = np.random.default_rng(7)
    spec, _ = CASES[2][1](rng)
    big = dict(spec, W_q=spec["W_q"] * 100, W_k=spec["W_k"] * 100, b_q=spec["b_q"] * 100, b_k=spec["b_k"] * 100)
    a, b = reference(spec), reference(big)
    for ha, hb in zip(a["heads"], b["heads"]):  # QK-norm: scaling W and b changes the scores only through eps
        assert np.abs(ha["scores"] - hb["scores"]).max() <= 1e-5 * np.abs(ha["scores"]).max()
    spec, _ = CASES[0][1](rng)
    for h in reference(spec)["heads"]:  # runaway scores, none past the cap
        assert np.abs(h["scaled"]).max() > spec["softcap"] >= np.abs(h["capped"]).max()
    freq, _ = inv_freq({"scaling": {"type": "linear", "factor": 1.0}}, 8, 0)
    assert np.array_equal(freq, inv_freq({}, 8, 0)[0]), "factor 1 is no scaling"


def build():
    def make(spec):
        ref = reference(spec)
        if torch is not None:
            torch_check(spec, ref)
        return ref, "torch" if torch is not None else "numpy", scenario_json, trace_json
    files = modern.fixture_files(CASES, PREFIX, 2600, make)
    invariants()
    return files


def main():
    base.check_or_write(build(), base.check_flag(__doc__), "stage fixtures", "scripts/gen_fixtures_stages.py",
                        f", torch {'cross-checked' if torch else 'absent'}")


if __name__ == "__main__":
    main()
