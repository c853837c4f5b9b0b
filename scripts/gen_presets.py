#!/usr/bin/python3
"""Writes the textbook presets in assets/presets/*.json (format attnlab/1, docs/FORMAT.md).

Run with Debian's interpreter, which has NumPy (1.24):

    /usr/bin/python3 scripts/gen_presets.py            # write assets/presets/*.json
    /usr/bin/python3 scripts/gen_presets.py --check    # only check, write nothing

Each preset reproduces one of the notebooks in /work/shared/seeds (see its README). Weights that a
notebook draws from NumPy's seeded generator are drawn here with the notebook's exact calls, in the
notebook's exact order, and shipped as literal matrices, so attnlab never has to reproduce NumPy's
generator.

Before a preset is written, a plain NumPy reference implementation of the file format (reference()
below, written from docs/FORMAT.md and independent of the C++ core) computes the preset, and the
script asserts that the numbers the notebook prints are reproduced to the notebook's printed
precision. Output is deterministic: same script, same bytes.
"""
import json
import math
import os
import re
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "assets", "presets")

# Tolerances: half a unit in the last place the notebook prints, plus a hair for rounding order.
NUMPY_TOL = 0.5e-8 + 1e-12   # NumPy's default printing: 8 decimals, trailing zeros dropped
TORCH_TOL = 0.5e-4 + 1e-12   # PyTorch's default printing: 4 decimals
UDL_TOL = 0.5e-3 + 1e-12     # notebook 002 sets np.set_printoptions(precision=3)


# --------------------------------------------------------------------------------------------
# Reference implementation of attnlab/1 (docs/FORMAT.md), plain NumPy
# --------------------------------------------------------------------------------------------

def _softmax_rows(m):
    """Softmax along each row; -inf entries get weight 0; an all -inf row becomes all zeros."""
    out = np.zeros_like(m)
    for i, row in enumerate(m):
        finite = np.isfinite(row)
        if not finite.any():
            continue
        e = np.exp(row[finite] - row[finite].max())
        out[i, finite] = e / e.sum()
    return out


def reference(p):
    """Computes a preset dict the way docs/FORMAT.md specifies. Returns the trace in the preset's
    own layout: {"heads": [{"Q","K","V","scores","scaled","masked","weights","output"}], "concat",
    "output", "fully_masked": [query indices]}."""
    columns = p.get("layout", "rows") == "columns"

    def mat(m):  # file matrix -> rows-convention matrix
        a = np.array(m, dtype=float)
        return a.T if columns else a

    def vec(v, n):
        return np.zeros(n) if v is None else np.array(v, dtype=float)

    X = mat(p["X"])
    Z = mat(p["Z"]) if "Z" in p else X
    n_x, d_x = X.shape
    n_z, d_z = Z.shape

    heads = []
    if "heads" in p:
        assert "num_heads" not in p or p["num_heads"] == len(p["heads"])
        for h in p["heads"]:
            Wq = mat(h["W_q"]) if "W_q" in h else np.eye(d_x)
            Wk = mat(h["W_k"]) if "W_k" in h else np.eye(d_z)
            Wv = mat(h["W_v"]) if "W_v" in h else np.eye(d_z)
            heads.append((Wq, vec(h.get("b_q"), Wq.shape[1]), Wk, vec(h.get("b_k"), Wk.shape[1]),
                          Wv, vec(h.get("b_v"), Wv.shape[1])))
    else:
        H = p.get("num_heads", 1)
        Wq = mat(p["W_q"]) if "W_q" in p else np.eye(d_x)
        Wk = mat(p["W_k"]) if "W_k" in p else np.eye(d_z)
        Wv = mat(p["W_v"]) if "W_v" in p else np.eye(d_z)
        bq, bk, bv = (vec(p.get("b_q"), Wq.shape[1]), vec(p.get("b_k"), Wk.shape[1]),
                      vec(p.get("b_v"), Wv.shape[1]))
        assert Wq.shape[1] % H == 0 and Wv.shape[1] % H == 0
        dk, dv = Wq.shape[1] // H, Wv.shape[1] // H
        for h in range(H):
            sk, sv = slice(h * dk, (h + 1) * dk), slice(h * dv, (h + 1) * dv)
            heads.append((Wq[:, sk], bq[sk], Wk[:, sk], bk[sk], Wv[:, sv], bv[sv]))

    allowed = np.ones((n_x, n_z), dtype=bool)
    mask = p.get("mask", "none")
    if mask == "causal":
        mask = {"causal": True}
    if isinstance(mask, list):
        mask = {"cells": mask}
    if isinstance(mask, dict):
        if mask.get("causal"):
            allowed &= np.arange(n_z)[None, :] <= np.arange(n_x)[:, None]
        for j in mask.get("padding", []):
            allowed[:, j] = False
        if "cells" in mask:
            allowed &= mat(mask["cells"]) != 0

    out_heads, ys = [], []
    for Wq, bq, Wk, bk, Wv, bv in heads:
        Q, K, V = X @ Wq + bq, Z @ Wk + bk, Z @ Wv + bv
        scale = p.get("scale", "inv_sqrt_dk")
        s = 1.0 / math.sqrt(Q.shape[1]) if scale == "inv_sqrt_dk" else 1.0 if scale == "none" \
            else float(scale)
        S = Q @ K.T
        scaled = S * s
        masked = np.where(allowed, scaled, -np.inf)
        A = _softmax_rows(masked)
        Y = A @ V
        ys.append(Y)
        out_heads.append(dict(Q=Q, K=K, V=V, scores=S, scaled=scaled, masked=masked, weights=A,
                              output=Y))
    concat = np.concatenate(ys, axis=1)
    if "W_o" in p:
        Wo = mat(p["W_o"])
        output = concat @ Wo + vec(p.get("b_o"), Wo.shape[1])
    else:
        output = concat

    lay = (lambda m: m.T) if columns else (lambda m: m)
    return {
        "heads": [{k: lay(v) for k, v in h.items()} for h in out_heads],
        "concat": lay(concat),
        "output": lay(output),
        "fully_masked": [i for i in range(n_x) if not allowed[i].any()],
    }


def check(name, got, want, tol):
    """Asserts |got - want| <= tol elementwise; prints the measured error."""
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert got.shape == want.shape, f"{name}: shape {got.shape} != {want.shape}"
    err = float(np.max(np.abs(got - want))) if got.size else 0.0
    status = "ok" if err <= tol else "FAIL"
    print(f"  {status:4} {name}: max |error| {err:.3g} (tolerance {tol:.3g})")
    assert err <= tol, f"{name}: max |error| {err} > {tol}\n got {got}\n want {want}"


def fmt(v, decimals):
    """A vector as '[a, b, c]' with fixed decimals, for notes."""
    return "[" + ", ".join(f"{x:.{decimals}f}" for x in np.ravel(v)) + "]"


def lit(v):
    """A vector of numbers the notebook printed, as it printed them (trailing zeros dropped)."""
    return "[" + ", ".join(repr(x) for x in v) + "]"


def fmt_int(v):
    return "[" + ", ".join(str(int(round(x))) for x in np.ravel(v)) + "]"


def fmt_mat_int(m):
    return "[" + ", ".join(fmt_int(r) for r in np.asarray(m)) + "]"


# --------------------------------------------------------------------------------------------
# JSON writer: stable key order (as built), one matrix row per line, full double precision
# --------------------------------------------------------------------------------------------

def _num(x):
    if isinstance(x, (bool, np.bool_)):
        raise TypeError("booleans are not numbers in attnlab/1")
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    f = float(x)
    assert math.isfinite(f)
    return repr(f)   # shortest string that round-trips the double exactly


def _is_vector(v):
    return isinstance(v, list) and all(
        isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool) for x in v)


def _is_matrix(v):
    return isinstance(v, list) and len(v) > 0 and all(_is_vector(r) for r in v)


def _emit(v, indent):
    pad, inner = " " * indent, " " * (indent + 2)
    if isinstance(v, dict):
        items = [f'{inner}{json.dumps(k)}: {_emit(x, indent + 2)}' for k, x in v.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}" if items else "{}"
    if _is_matrix(v):
        return "[\n" + ",\n".join(inner + _emit(r, indent + 2) for r in v) + "\n" + pad + "]"
    if _is_vector(v):
        return "[" + ", ".join(_num(x) for x in v) + "]"
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        return "[" + ", ".join(json.dumps(x, ensure_ascii=True) for x in v) + "]"
    if isinstance(v, list):
        return "[\n" + ",\n".join(inner + _emit(x, indent + 2) for x in v) + "\n" + pad + "]"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=True)
    if isinstance(v, bool):  # a flag ("causal", "predict"), never a matrix entry (_is_vector)
        return "true" if v else "false"
    return _num(v)


def to_json_text(preset):
    return _emit(preset, 0) + "\n"


def L(a):
    """NumPy array -> nested Python lists (ints stay ints, floats stay full doubles)."""
    return np.asarray(a).tolist()


# --------------------------------------------------------------------------------------------
# Notebook 000: Vaswani et al. scaled dot-product attention (rows)
# --------------------------------------------------------------------------------------------

NB000 = "notebook 000 (fd68dee9562e4594), scaled dot-product attention (Vaswani et al., 2017)"

H_E = np.array([[0.64, -0.27, 0.89, -0.12],    # this
                [-0.45, 0.33, 0.71, 0.08],     # is
                [0.19, -0.94, 0.56, 0.37],     # a
                [0.03, 0.85, -0.41, 0.76]])    # translation
H_D = np.array([[0.58, -0.13, 0.94, 0.22],
                [0.45, 0.11, -0.88, 0.67]])
W_Q0 = np.array([[0.12, -0.87, 0.33, 0.45],
                 [0.76, 0.21, -0.34, 0.67],
                 [-0.55, 0.18, 0.29, -0.73],
                 [0.03, -0.99, 0.42, 0.11]])
W_K0 = np.array([[0.64, -0.27, 0.89, -0.12],
                 [-0.45, 0.33, 0.71, 0.08],
                 [0.19, -0.94, 0.56, 0.37],
                 [0.03, 0.85, -0.41, 0.76]])
W_V0 = np.array([[0.58, -0.13, 0.94, 0.22],
                 [-0.31, 0.66, -0.74, 0.09],
                 [0.45, 0.11, -0.88, 0.67],
                 [-0.92, 0.37, 0.28, -0.50]])
TOKENS_Q2 = np.array([[0.12, -0.87, 0.33, 0.45],     # this
                      [0.76, 0.21, -0.34, 0.67],     # is
                      [0.03, -0.99, 0.42, 0.11]])    # translation


def preset_q1():
    printed_scores = [-0.6053, -0.7374, -0.2628, 0.977]
    printed_scaled = [-0.30265, -0.3687, -0.1314, 0.4885]
    printed_weights = [0.1876594, 0.17566497, 0.22271181, 0.41396383]
    printed_slip = [0.07694035, -0.00526995, 0.38974566, 0.45122057]

    p = {"format": "attnlab/1",
         "title": "Vaswani Q1: decoder states attend over encoder states (no projections)",
         "notes": "",
         "layout": "rows",
         "tokens": ["h_d[0]", "h_d[1]"],
         "context_tokens": ["this", "is", "a", "translation"],
         "X": L(H_D), "Z": L(H_E),
         "scale": "inv_sqrt_dk"}
    t = reference(p)
    h = t["heads"][0]
    check("Q1 scores row h_d[1]", h["scores"][1], printed_scores, NUMPY_TOL)
    check("Q1 scaled row h_d[1]", h["scaled"][1], printed_scaled, NUMPY_TOL)
    check("Q1 weights row h_d[1]", h["weights"][1], printed_weights, NUMPY_TOL)
    # What the notebook's get_context_vector really computes: sum(attention_weights * h_e)
    # broadcasts the weights across the columns of h_e, then sums the rows.
    slip = np.sum(h["weights"][1] * H_E, axis=0)
    check("Q1 slip reproduced by sum(w * h_e)", slip, printed_slip, NUMPY_TOL)
    true_context = h["weights"][1] @ H_E
    check("Q1 output row h_d[1] = weights @ h_e", t["output"][1], true_context, 1e-15)
    diff = float(np.max(np.abs(t["output"][1] - np.array(printed_slip))))
    assert diff > 0.1, "the slip should differ visibly from the true context vector"

    p["notes"] = (
        f"Source: {NB000}, Question 1. Cross-attention: the two decoder hidden states h_d are the "
        "queries (rows of X) and the four encoder hidden states of 'this is a translation' are the "
        "keys and values (rows of Z). There are no projections (Q = X, K = V = Z): score(h_d, h_e_j) "
        "= h_d . h_e_j, divided by sqrt(n) with n = 4 (the default 1/sqrt(d_k) scale), softmax over "
        "the encoder tokens, and the context vector c = sum_j alpha_j h_e_j is the output. "
        "\n\nWhat to look at: the notebook works out only the second decoder state, row h_d[1]: scores "
        f"{lit(printed_scores)}, scaled scores {lit(printed_scaled)} and weights "
        f"{lit(printed_weights)}, so 'translation' gets 41% of the attention. Row h_d[0] is "
        "the same computation for the first decoder state, which the notebook does not print. "
        "\n\nSlip (a teaching moment): the notebook's get_context_vector returns "
        "sum(attention_weights * h_i_e). NumPy broadcasting multiplies column j of h_e by alpha_j "
        "and sum() then adds up the rows, so it prints alpha_j times the sum of column j, "
        f"{lit(printed_slip)}, which is not a weighted sum of encoder states. The weights must "
        "weight the rows (tokens): attention_weights @ h_i_e, or "
        "sum(attention_weights[:, None] * h_i_e). The true context vector, shown here as output "
        f"row h_d[1], is {fmt(true_context, 8)}. The weights the notebook prints are right; only "
        "the last step is wrong.")
    return "vaswani-q1-decoder-over-encoder.json", p


def preset_q2():
    printed_Q = [0.4579, -1.3416, 0.3622, 0.8046]
    printed_K = [[0.5445, -0.2472, -0.5106, 0.3801],
                 [0.3474, 0.7532, 0.3604, 0.309],
                 [0.5478, -0.6361, -0.4861, 0.1562]]
    printed_V = [[0.0738, -0.387, 0.5922, -0.0558],
                 [-0.3937, 0.2503, 1.0458, -0.3767],
                 [0.4121, -0.5704, 0.422, 0.1439]]
    printed_weights = [0.3638497, 0.2022857, 0.4338646]
    printed_output = [0.12600783, -0.33765409, 0.61011304, -0.03407072]

    p = {"format": "attnlab/1",
         "title": "Vaswani Q2: what 'is' attends to in 'this is translation'",
         "notes": "",
         "layout": "rows",
         "tokens": ["this", "is", "translation"],
         "X": L(TOKENS_Q2),
         "W_q": L(W_Q0), "W_k": L(W_K0), "W_v": L(W_V0),
         "scale": "inv_sqrt_dk"}
    t = reference(p)
    h = t["heads"][0]
    check("Q2 Q row is", h["Q"][1], printed_Q, NUMPY_TOL)
    check("Q2 K", h["K"], printed_K, NUMPY_TOL)
    check("Q2 V", h["V"], printed_V, NUMPY_TOL)
    check("Q2 weights row is", h["weights"][1], printed_weights, NUMPY_TOL)
    check("Q2 output row is", t["output"][1], printed_output, NUMPY_TOL)

    p["notes"] = (
        f"Source: {NB000}, Question 2. Self-attention over the three tokens 'this is translation' "
        "(rows of X; the token vectors happen to equal rows 0, 1 and 3 of W_Q). Q = X W_Q, "
        "K = X W_K, V = X W_V with the notebook's 4x4 W_Q, W_K, W_V, scores Q K^T scaled by "
        "1/sqrt(4), softmax along each row, output = weights V. "
        "\n\nWhat to look at: the notebook computes only the query of 'is', so look at row 'is': "
        f"Q {lit(printed_Q)}, weights {lit(printed_weights)} (it attends most to "
        f"'translation', then 'this') and output {lit(printed_output)}; K and V are printed "
        "in full (3x4) and match the K and V panels. Rows 'this' and 'translation' are what the "
        "same code gives for the other two queries.")
    return "vaswani-q2-is-attends.json", p


def preset_q3():
    printed_heads = {
        "W_q": [[[0.12, -0.87], [0.76, 0.21], [-0.55, 0.18], [0.03, -0.99]],
                [[0.33, 0.45], [-0.34, 0.67], [0.29, -0.73], [0.42, 0.11]]],
        "W_k": [[[0.64, -0.27], [-0.45, 0.33], [0.19, -0.94], [0.03, 0.85]],
                [[0.89, -0.12], [0.71, 0.08], [0.56, 0.37], [-0.41, 0.76]]],
        "W_v": [[[0.58, -0.13], [-0.31, 0.66], [0.45, 0.11], [-0.92, 0.37]],
                [[0.94, 0.22], [-0.74, 0.09], [-0.88, 0.67], [0.28, -0.5]]],
    }
    full = {"W_q": W_Q0, "W_k": W_K0, "W_v": W_V0}
    for key, blocks in printed_heads.items():   # the split that num_heads 2 performs
        for h in range(2):
            check(f"Q3 {key} head {h + 1} = columns {2 * h}..{2 * h + 1}",
                  full[key][:, 2 * h:2 * h + 2], blocks[h], 0.0)

    p = {"format": "attnlab/1",
         "title": "Vaswani Q3: the same weights split into two heads",
         "notes": "",
         "layout": "rows",
         "tokens": ["this", "is", "translation"],
         "X": L(TOKENS_Q2),
         "W_q": L(W_Q0), "W_k": L(W_K0), "W_v": L(W_V0),
         "num_heads": 2,
         "scale": "inv_sqrt_dk"}
    t = reference(p)
    assert len(t["heads"]) == 2 and t["concat"].shape == (3, 4) and t["output"].shape == (3, 4)
    for h in range(2):   # each head is Q2's computation with its own 4x2 blocks
        Q = TOKENS_Q2 @ W_Q0[:, 2 * h:2 * h + 2]
        check(f"Q3 head {h + 1} Q = X W_Q block", t["heads"][h]["Q"], Q, 1e-15)

    p["notes"] = (
        f"Source: {NB000}, Question 3. Same tokens and W_Q, W_K, W_V as Question 2, now with "
        "num_heads = 2: each full 4x4 matrix is split by columns into two 4x2 blocks, head 0 "
        "taking columns 0-1 and head 1 columns 2-3, exactly the notebook's split_heads output "
        "(compare the per-head weights with the printed W_Q_heads, W_K_heads, W_V_heads). Each "
        "head has d_k = d_v = 2, so its scores are scaled by 1/sqrt(2), not 1/sqrt(4). "
        "Concat(head1, head2) is 3x4 (N x h d_v). The notebook discusses W^O (4x4, so that the "
        "layer maps 3x4 to 3x4) but gives no values, so this preset has no W_o and its output is "
        "the concatenation; add a 4x4 W_o to see the dimension-preserving projection. The notebook "
        "does not compute the heads: the head outputs here are attnlab's own. "
        "\n\nSlips (teaching moments): the text says each head's W is 'N x (dv/2) = 3 x 2', but a "
        "projection's rows follow the embedding width d_model = 4, not the sequence length N = 3; "
        "each head's W_i is d_model x d_model/h = 4 x 2, which is what the printed split shows. "
        "And the cell answering 'the dimension of Concat(head1, head2)' concatenates the two W_V "
        "blocks (giving back the 4x4 W_V), not the two head outputs, whose concatenation is 3x4.")
    return "vaswani-q3-two-heads.json", p


# --------------------------------------------------------------------------------------------
# Notebook 001: Machine Learning Mastery, general attention (rows)
# --------------------------------------------------------------------------------------------

def preset_mlm():
    words = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]])
    np.random.seed(42)   # exactly as the notebook
    W_Q = np.random.randint(3, size=(3, 3))
    W_K = np.random.randint(3, size=(3, 3))
    W_V = np.random.randint(3, size=(3, 3))

    printed_scores = [8, 2, 10, 2]
    printed_weights = [0.23608986, 0.00738988, 0.74913039, 0.00738988]
    printed_first = [0.98522025, 1.74174051, 0.75652026]
    printed_attention = [[0.98522025, 1.74174051, 0.75652026],
                         [0.90965265, 1.40965265, 0.5],
                         [0.99851226, 1.75849334, 0.75998108],
                         [0.99560386, 1.90407309, 0.90846923]]

    p = {"format": "attnlab/1",
         "title": "MLM general attention: four words, seeded integer weights",
         "notes": "",
         "layout": "rows",
         "tokens": ["word_1", "word_2", "word_3", "word_4"],
         "X": L(words),
         "W_q": L(W_Q), "W_k": L(W_K), "W_v": L(W_V),
         "scale": "inv_sqrt_dk"}
    t = reference(p)
    h = t["heads"][0]
    check("MLM scores row word_1", h["scores"][0], printed_scores, 0.0)
    check("MLM weights row word_1", h["weights"][0], printed_weights, NUMPY_TOL)
    check("MLM output row word_1", t["output"][0], printed_first, NUMPY_TOL)
    check("MLM output (matrix form)", t["output"], printed_attention, NUMPY_TOL)

    p["notes"] = (
        "Source: notebook 001 (7545103c0ae560a8), Machine Learning Mastery, 'The General Attention "
        "Mechanism with NumPy and SciPy' (section 8.3). Four word embeddings are the rows of X: "
        "word_1 = [1, 0, 0], word_2 = [0, 1, 0], word_3 = [1, 1, 0], word_4 = [0, 0, 1]. W_Q, W_K "
        "and W_V are the notebook's np.random.seed(42) followed by three calls "
        "np.random.randint(3, size=(3, 3)) in that order, stored here as the literal integers: "
        f"W_Q = {fmt_mat_int(W_Q)}, W_K = {fmt_mat_int(W_K)}, W_V = {fmt_mat_int(W_V)}. Scores "
        "Q K^T are divided by sqrt(3) (the default 1/sqrt(d_k)) before the row softmax. "
        "\n\nWhat to look at: row word_1 is the notebook's by-hand cell: scores "
        f"{fmt_int(printed_scores)}, weights {lit(printed_weights)} and output "
        f"{lit(printed_first)}. The whole 4x3 output equals the notebook's matrix-form "
        "attention. Integer weights give large, integer scores, so the softmax is nearly one-hot: "
        "word_1 puts 75% of its attention on word_3.")
    return "mlm-general-attention.json", p


# --------------------------------------------------------------------------------------------
# Notebook 002: Prince, Understanding Deep Learning, notebook 12.2 (columns)
# --------------------------------------------------------------------------------------------

def preset_udl():
    np.random.seed(3)    # exactly as the notebook
    N, D = 6, 8
    X = np.random.normal(size=(D, N))
    H = 2
    H_D = int(D / H)
    np.random.seed(0)    # exactly as the notebook, same draw order
    omega_q1 = np.random.normal(size=(H_D, D))
    omega_k1 = np.random.normal(size=(H_D, D))
    omega_v1 = np.random.normal(size=(H_D, D))
    beta_q1 = np.random.normal(size=(H_D, 1))
    beta_k1 = np.random.normal(size=(H_D, 1))
    beta_v1 = np.random.normal(size=(H_D, 1))
    omega_q2 = np.random.normal(size=(H_D, D))
    omega_k2 = np.random.normal(size=(H_D, D))
    omega_v2 = np.random.normal(size=(H_D, D))
    beta_q2 = np.random.normal(size=(H_D, 1))
    beta_k2 = np.random.normal(size=(H_D, 1))
    beta_v2 = np.random.normal(size=(H_D, 1))
    omega_c = np.random.normal(size=(D, D))

    printed_X = [[1.78862847, 0.43650985, 0.09649747, -1.8634927, -0.2773882, -0.35475898],
                 [-0.08274148, -0.62700068, -0.04381817, -0.47721803, -1.31386475, 0.88462238],
                 [0.88131804, 1.70957306, 0.05003364, -0.40467741, -0.54535995, -1.54647732],
                 [0.98236743, -1.10106763, -1.18504653, -0.2056499, 1.48614836, 0.23671627],
                 [-1.02378514, -0.7129932, 0.62524497, -0.16051336, -0.76883635, -0.23003072],
                 [0.74505627, 1.97611078, -1.24412333, -0.62641691, -0.80376609, -2.41908317],
                 [-0.92379202, -1.02387576, 1.12397796, -0.13191423, -1.62328545, 0.64667545],
                 [-0.35627076, -1.74314104, -0.59664964, -0.58859438, -0.8738823, 0.02971382]]
    check("UDL X (seed 3)", X, printed_X, NUMPY_TOL)
    X_prime_true = [[-21.207, -5.373, -20.933, -9.179, -11.319, -17.812],
                    [-1.995, 7.906, -10.516, 3.452, 9.863, -7.24],
                    [5.479, 1.115, 9.244, 0.453, 5.656, 7.089],
                    [-7.413, -7.416, 0.363, -5.573, -6.736, -0.848],
                    [-11.261, -9.937, -4.848, -8.915, -13.378, -5.761],
                    [3.548, 10.036, -2.244, 1.604, 12.113, -2.557],
                    [4.888, -5.814, 2.407, 3.228, -4.232, 3.71],
                    [1.248, 18.894, -6.409, 3.224, 19.717, -5.629]]

    def head(wq, bq, wk, bk, wv, bv):
        return {"W_q": L(wq), "b_q": L(bq.ravel()), "W_k": L(wk), "b_k": L(bk.ravel()),
                "W_v": L(wv), "b_v": L(bv.ravel())}

    p = {"format": "attnlab/1",
         "title": "UDL 12.2: multihead self-attention, tokens as columns",
         "notes": "",
         "layout": "columns",
         "tokens": [f"x_{n}" for n in range(1, N + 1)],
         "X": L(X),
         "num_heads": H,
         "heads": [head(omega_q1, beta_q1, omega_k1, beta_k1, omega_v1, beta_v1),
                   head(omega_q2, beta_q2, omega_k2, beta_k2, omega_v2, beta_v2)],
         "W_o": L(omega_c),
         "scale": "inv_sqrt_dk"}
    t = reference(p)
    check("UDL output = X' (printed, 3 decimals)", t["output"], X_prime_true, UDL_TOL)
    for h in t["heads"]:   # softmax_cols: every column of weights sums to 1
        check("UDL weights columns sum to 1", h["weights"].sum(axis=0), np.ones(N), 1e-12)

    p["notes"] = (
        "Source: notebook 002 (5c8046fafa7f4c7c), Prince, Understanding Deep Learning, notebook "
        "12.2 'Multihead Self-Attention' (figure 12.6). Columns layout, as in the book: each of "
        "the N = 6 tokens x_1..x_6 is a column of X (D = 8 rows), Q = omega_q X + beta_q 1^T, "
        "scores K^T Q (6x6: keys down, queries across) scaled by 1/sqrt(4), softmax down each "
        "column (the notebook's softmax_cols), head output V softmax(...). Two heads of size "
        "D/H = 4, each with its own weights and biases, stacked (head 0 on top) and multiplied "
        "by omega_c (8x8, W_o here; no output bias). "
        "\n\nData: X = np.random.seed(3); np.random.normal(size=(8, 6)). Then np.random.seed(0) and, "
        "in the notebook's order, omega_q1, omega_k1, omega_v1 (4x8), beta_q1, beta_k1, beta_v1 "
        "(4), the same six for the second head (0-based head 1), and omega_c (8x8), all np.random.normal; stored here as "
        "literal numbers. "
        "\n\nWhat to look at: the output is the notebook's X' (8x6); it equals the printed 'True "
        f"values' to the 3 decimals printed, e.g. first column {fmt(t['output'][:, 0], 3)}. "
        "Each column of a head's weights is one query's distribution over the 6 keys and sums "
        "to 1. The notebook's final hint applies: drop the scale (set scale to none) and X' no "
        "longer matches.")
    return "udl-12-2-multihead.json", p


# --------------------------------------------------------------------------------------------
# Notebook 003: PyTorch walk-through, no scaling (rows)
# --------------------------------------------------------------------------------------------

def preset_pytorch():
    v = np.array([[1, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]])
    W_k = np.array([[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]])
    W_q = np.array([[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]])
    W_v = np.array([[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]])
    printed_keys = [[0, 1, 1], [4, 4, 0], [2, 3, 1]]
    printed_queries = [[1, 0, 2], [2, 2, 2], [2, 1, 3]]
    printed_values = [[1, 2, 3], [2, 8, 0], [2, 6, 3]]
    printed_scores0 = [2, 4, 4]
    printed_weights0 = [0.0634, 0.4683, 0.4683]
    printed_slip = [[4, 7, 3], [12, 16, 4], [10, 15, 5]]

    p = {"format": "attnlab/1",
         "title": "PyTorch walk-through: keys, queries, values and an unscaled softmax",
         "notes": "",
         "layout": "rows",
         "tokens": ["v_1", "v_2", "v_3"],
         "X": L(v),
         "W_q": L(W_q), "W_k": L(W_k), "W_v": L(W_v),
         "scale": "none"}
    t = reference(p)
    h = t["heads"][0]
    check("PyTorch keys", h["K"], printed_keys, 0.0)
    check("PyTorch queries", h["Q"], printed_queries, 0.0)
    check("PyTorch values", h["V"], printed_values, 0.0)
    check("PyTorch scores row 0", h["scores"][0], printed_scores0, 0.0)
    check("PyTorch weights row 0", h["weights"][0], printed_weights0, TORCH_TOL)
    check("PyTorch slip: queries @ keys", h["Q"] @ h["K"], printed_slip, 0.0)
    assert np.any(h["Q"] @ h["K"] != h["scores"])
    scaled = dict(p, scale="inv_sqrt_dk")
    w_scaled = reference(scaled)["heads"][0]["weights"][0]

    p["notes"] = (
        "Source: notebook 003 (d4886b04eb600938), PyTorch walk-through, 'Example 3' and the "
        "second 'Example 2'. Rows layout: the three word embeddings v_1 = [1, 0, 1, 0], "
        "v_2 = [0, 2, 0, 2], v_3 = [1, 1, 1, 1] are the rows of X, and W_k, W_q, W_v (4x3) are "
        f"as printed. keys = v @ W_k = {fmt_mat_int(h['K'])}, queries = v @ W_q = "
        f"{fmt_mat_int(h['Q'])}, values = v @ W_v = {fmt_mat_int(h['V'])}: compare the K, Q and "
        "V panels. The notebook does not divide by sqrt(d_k), so this preset uses scale none. "
        "\n\nWhat to look at: row v_1 (query 0): raw scores queries[0] @ keys.t() = "
        f"{fmt_int(printed_scores0)} and softmax {lit(printed_weights0)}. With the usual "
        f"1/sqrt(3) scaling (set scale to inv_sqrt_dk) the same row becomes {fmt(w_scaled, 4)}: "
        "flatter, as the scaling intends. "
        "\n\nSlip (a teaching moment): the last cell computes queries @ keys, i.e. Q K instead of "
        f"Q K^T, and prints {fmt_mat_int(printed_slip)}; it runs only because K happens to be "
        f"square (3x3). The score matrix is Q K^T = {fmt_mat_int(h['scores'])}, whose first row "
        "is the [2, 4, 4] computed earlier with keys.t().")
    return "pytorch-unscaled.json", p


# --------------------------------------------------------------------------------------------
# Notebook 004: Phuong & Hutter, Formal Algorithms for Transformers (columns)
# --------------------------------------------------------------------------------------------

NB004 = ("notebook 004 (be391e7c84061541), exercise skeleton for Phuong & Hutter, 'Formal "
         "Algorithms for Transformers'")
PH_SEED = 1
PH_NOTE = (
    "\n\nThe notebook is a skeleton (generate_weight_bias is left as '...') and prints no numbers, "
    f"so the weights here are attnlab's choice, made in scripts/gen_presets.py: "
    f"np.random.seed({PH_SEED}), then for each generate_weight_bias(in_dim, out_dim) call in the "
    "notebook's order W = np.random.normal(size=(out_dim, in_dim)) / sqrt(in_dim) followed by "
    "b = np.random.normal(size=out_dim) / sqrt(in_dim) (scaled by 1/sqrt(d_in) so the scores "
    "stay moderate and the softmax is not saturated). The calls are query, key, value (used by "
    "Algorithms 3 and 4), then for each of the 4 heads query, key, value, then the combine "
    "weights W_o (10x40) and b_o (Algorithm 5). ")
PH_SLIP_BIAS = (
    "\n\nSlip in the notebook's formulas: the key and value steps write '+ b_q'; they mean b_k and "
    "b_v (k_t = W_k e_t + b_k, v_t = W_v e_t + b_v), which is what attnlab computes. ")


def ph_weights():
    """All Phuong & Hutter weights, drawn in the notebook's call order from one seed."""
    np.random.seed(PH_SEED)

    def generate_weight_bias(in_dim, out_dim):
        w = np.random.normal(size=(out_dim, in_dim)) / math.sqrt(in_dim)
        b = np.random.normal(size=out_dim) / math.sqrt(in_dim)
        return w, b

    d_attn = d_in = d_out = 10
    single = {}
    single["q"] = generate_weight_bias(d_attn, d_in)    # the notebook's argument order; all 10
    single["k"] = generate_weight_bias(d_attn, d_in)
    single["v"] = generate_weight_bias(d_in, d_out)
    n_head = 4
    heads = []
    for _ in range(n_head):
        heads.append({"q": generate_weight_bias(d_in, d_attn),
                      "k": generate_weight_bias(d_in, d_attn),
                      "v": generate_weight_bias(d_in, d_out)})
    combine = generate_weight_bias(n_head * d_out, d_out)
    return single, heads, combine


PH_E = np.ones(10, dtype=int)
PH_CONTEXT = np.array([[2] * 10, [3] * 10, [4] * 10])          # e_t, one token per row
PH_CURRENT = np.array([[1] * 10, [2] * 10, [3] * 10])          # notebook's current_matrix
PH_MASK = np.zeros((3, 3), dtype=int)                          # Mask[t_z, t_x], as the notebook
PH_MASK[1, 1] = 1
PH_MASK[2, 2] = 1


def _head_json(w):
    return {"W_q": L(w["q"][0]), "b_q": L(w["q"][1]), "W_k": L(w["k"][0]), "b_k": L(w["k"][1]),
            "W_v": L(w["v"][0]), "b_v": L(w["v"][1])}


def _single_query_numpy(Wq, bq, Wk, bk, Wv, bv, e, E):
    """Algorithm 3 literally: one query vector e, context tokens e_t (rows of E)."""
    q = Wq @ e + bq
    ks = [Wk @ et + bk for et in E]
    vs = [Wv @ et + bv for et in E]
    d_attn = len(q)
    a = np.array([q @ k / math.sqrt(d_attn) for k in ks])
    alpha = np.exp(a - a.max())
    alpha /= alpha.sum()
    return q, np.array(ks), np.array(vs), alpha, sum(al * v for al, v in zip(alpha, vs))


def preset_ph3(single):
    p = {"format": "attnlab/1",
         "title": "Phuong & Hutter Algorithm 3: single-query attention",
         "notes": "",
         "layout": "columns",
         "tokens": ["e (1s)"],
         "context_tokens": ["e_1 (2s)", "e_2 (3s)", "e_3 (4s)"],
         "X": L(PH_E.reshape(10, 1)),
         "Z": L(PH_CONTEXT.T),
         "heads": [_head_json(single)],
         "scale": "inv_sqrt_dk"}
    t = reference(p)
    q, K, V, alpha, out = _single_query_numpy(*single["q"], *single["k"], *single["v"],
                                              PH_E, PH_CONTEXT)
    h = t["heads"][0]
    check("P&H 3 q", h["Q"][:, 0], q, 1e-12)
    check("P&H 3 keys (columns)", h["K"], K.T, 1e-12)
    check("P&H 3 alpha", h["weights"][:, 0], alpha, 1e-12)
    check("P&H 3 output", t["output"][:, 0], out, 1e-12)
    assert 0.05 < alpha.min() and alpha.max() < 0.95, f"softmax saturated: {alpha}"

    p["notes"] = (
        f"Source: {NB004}, Algorithm 3 (basic single-query attention). Columns layout, as in the "
        "paper: the current token e = ones(10) is the single column of X, and the context tokens "
        "e_1, e_2, e_3 (all 2s, all 3s, all 4s) are the columns of Z. q = W_q e + b_q, "
        "k_t = W_k e_t + b_k, v_t = W_v e_t + b_v (W_q, W_k, W_v are 10x10 = d_attn x d_in, as in "
        "the paper), alpha_t = softmax_t(q . k_t / sqrt(d_attn)) with d_attn = 10, and the "
        "output is v~ = sum_t alpha_t v_t (length d_out = 10). " + PH_NOTE +
        "\n\nWhat to look at: the weights column is alpha, here "
        f"{fmt(alpha, 4)}; it sums to 1, as the notebook's check sum(scores) expects, and the "
        "output has length d_out = 10 (the notebook's len(outputs), d_out). Because every context "
        "token is a multiple of the same vector, k_t = c_t W_k 1 + b_k, so the scores change "
        "linearly with c_t = 2, 3, 4. " + PH_SLIP_BIAS)
    return "phuong-hutter-alg3-single-query.json", p, t


def preset_ph4(single, t3):
    p = {"format": "attnlab/1",
         "title": "Phuong & Hutter Algorithm 4: masked attention (query x0 attends nothing)",
         "notes": "",
         "layout": "columns",
         "tokens": ["x0 (1s)", "x1 (2s)", "x2 (3s)"],
         "context_tokens": ["z0 (2s)", "z1 (3s)", "z2 (4s)"],
         "X": L(PH_CURRENT.T),
         "Z": L(PH_CONTEXT.T),
         "heads": [_head_json(single)],
         "scale": "inv_sqrt_dk",
         "mask": L(PH_MASK)}
    t = reference(p)
    h, h3 = t["heads"][0], t3["heads"][0]
    assert t["fully_masked"] == [0]
    check("P&H 4 Q column x0 = Algorithm 3 q", h["Q"][:, 0], h3["Q"][:, 0], 1e-12)
    check("P&H 4 K = Algorithm 3 K", h["K"], h3["K"], 1e-12)
    check("P&H 4 V = Algorithm 3 V", h["V"], h3["V"], 1e-12)
    check("P&H 4 weights column x0 all zero", h["weights"][:, 0], np.zeros(3), 0.0)
    check("P&H 4 output column x0 zero", t["output"][:, 0], np.zeros(10), 0.0)
    check("P&H 4 weights columns x1, x2", h["weights"][:, 1:], [[0, 0], [1, 0], [0, 1]], 1e-15)

    p["notes"] = (
        f"Source: {NB004}, Algorithm 4 (masked attention over a primary sequence X and a context "
        "Z). Columns layout: X = the notebook's current_matrix (tokens all 1s, all 2s, all 3s) as "
        "columns x0, x1, x2 (10x3), Z = context_matrix[0] (all 2s, 3s, 4s) as columns z0, z1, z2 "
        "(the same context as Algorithm 3), with Algorithm 3's weights. Q = W_q X + b_q 1^T, "
        "K = W_k Z + b_k 1^T, V = W_v Z + b_v 1^T, S = K^T Q (rows: context tokens t_z, columns: "
        "queries t_x), S[t_z, t_x] = -inf where Mask[t_z, t_x] = 0, output V softmax(S / "
        "sqrt(10)) with the softmax down each column. The mask is exactly the notebook's: all "
        "zeros except Mask[1, 1] = Mask[2, 2] = 1 (file mask is l_Z x l_X, i.e. Mask[t_z, t_x]). " +
        PH_NOTE +
        "\n\nWhat to look at: column x0 of the mask is all zeros, so query x0 may attend nothing. "
        "attnlab gives it an all-zero weights column and a zero output column, and warns that "
        "the query attends nothing; a plain softmax of an all -inf column would give 0/0 = NaN, "
        "which is what a literal NumPy version of the notebook would print. x1 can only see z1 "
        "and x2 only z2, so their weights are one-hot and their outputs are just the value vectors of z1 and z2. "
        "The notebook's checks: query_matrix[0] equals Algorithm 3's q (column x0 of Q) and "
        "key_matrix/value_matrix equal Algorithm 3's keys and values; but masked_outputs[0] "
        "cannot equal Algorithm 3's output with this mask, because x0 is fully masked (set the "
        "mask to none and column x0 reproduces Algorithm 3). "
        "\n\nSlips in the notebook's text: steps 2 and 3 write K <- W_k X + b_k 1^T and "
        "V <- W_v X + b_v 1^T; keys and values come from the context, W_k Z and W_v Z. The "
        "output is d_out x l_X (one column per primary token), not d_out x l_Z as written. " +
        PH_SLIP_BIAS)
    return "phuong-hutter-alg4-masked.json", p


def preset_ph5(heads, combine):
    p = {"format": "attnlab/1",
         "title": "Phuong & Hutter Algorithm 5: four heads, W_o and b_o",
         "notes": "",
         "layout": "columns",
         "tokens": ["x0 (1s)", "x1 (2s)", "x2 (3s)"],
         "context_tokens": ["z0 (2s)", "z1 (3s)", "z2 (4s)"],
         "X": L(PH_CURRENT.T),
         "Z": L(PH_CONTEXT.T),
         "num_heads": 4,
         "heads": [_head_json(w) for w in heads],
         "W_o": L(combine[0]),
         "b_o": L(combine[1]),
         "scale": "inv_sqrt_dk",
         "mask": L(PH_MASK)}
    t = reference(p)
    assert len(t["heads"]) == 4 and t["concat"].shape == (40, 3) and t["output"].shape == (10, 3)
    check("P&H 5 output column x0 = b_o", t["output"][:, 0], combine[1], 1e-15)
    nomask = reference(dict(p, mask="none"))
    for h in nomask["heads"]:
        w = h["weights"]
        assert w.max() < 0.95, f"softmax saturated: {w}"

    p["notes"] = (
        f"Source: {NB004}, Algorithm 5 (multi-head attention). Same X, Z and mask as the "
        "Algorithm 4 preset (the notebook passes mask_matrix to multi_head_masked_attention), "
        "H = 4 heads, each with its own W_q, W_k (d_attn x d_X = 10x10), W_v (d_mid x d_Z = "
        "10x10) and biases. Y^h = Attention(X, Z | W_qkv^h, Mask), Y = [Y^1; Y^2; Y^3; Y^4] "
        "stacked (40x3), output W_o Y + b_o 1^T with W_o 10x40 (d_out x H d_mid) and b_o of "
        "length 10. " + PH_NOTE +
        "\n\nWhat to look at: concat is 40x3 (the notebook's shape check, transposed to columns), "
        "the output 10x3. Query x0 is fully masked in every head (attnlab warns that it attends nothing), so its "
        "concat column is zero and its output column is exactly b_o: the bias is all that is "
        "left. x1 and x2 see one context token each, so every head's weights are one-hot and "
        "the heads differ only in their values. Set the mask to none to see four different "
        "attention patterns over all three context tokens. " + PH_SLIP_BIAS)
    return "phuong-hutter-alg5-multihead.json", p


# --------------------------------------------------------------------------------------------

def main(argv):
    only_check = "--check" in argv
    presets = []
    for build in [preset_q1, preset_q2, preset_q3, preset_mlm, preset_udl, preset_pytorch]:
        print(build.__name__)
        presets.append(build())
    single, heads, combine = ph_weights()
    print("preset_ph3")
    name3, p3, t3 = preset_ph3(single)
    presets.append((name3, p3))
    print("preset_ph4")
    presets.append(preset_ph4(single, t3))
    print("preset_ph5")
    presets.append(preset_ph5(heads, combine))

    names = [n for n, _ in presets]
    assert len(set(names)) == len(names)
    for name, p in presets:
        p["notes"] = re.sub(r" +\n", "\n", p["notes"]).strip()   # paragraphs: "\n\n"
        assert p["notes"] and p["title"] and p["format"] == "attnlab/1"
        text = to_json_text(p)
        assert text.isascii(), f"{name}: keep the text ASCII (the window's default font)"
        back = json.loads(text)
        assert back == json.loads(json.dumps(p)), \
            f"{name}: JSON text does not round-trip"
        # The reference on the re-read file must give the same numbers (exact doubles).
        t1, t2 = reference(p), reference(back)
        assert np.array_equal(t1["output"], t2["output"]), f"{name}: numbers changed on disk"
        path = os.path.join(OUT_DIR, name)
        if only_check:
            with open(path, encoding="utf-8") as f:
                assert f.read() == text, f"{path} is stale: rerun scripts/gen_presets.py"
            print(f"up to date: {path}")
        else:
            os.makedirs(OUT_DIR, exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
            print(f"wrote {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
