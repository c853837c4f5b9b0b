#!/usr/bin/python3
"""Independent references for `attnlab-cli sensitivity`: PyTorch autograd in float64.

    /usr/bin/python3 scripts/gen_fixtures_sensitivity.py            # writes tests/fixtures/sensitivity_*.json
    /usr/bin/python3 scripts/gen_fixtures_sensitivity.py --check    # regenerates in memory, compares

Each fixture reads an existing scenario (a preset in assets/presets/ or the scenario of a fixture in
tests/fixtures/), picks one cell of the trace and asks torch for the gradient of that cell with
respect to every matrix and vector the scenario holds:

    { "scenario": {the attnlab/1 scenario, without its "view"},
      "of": "output[0][1]",
      "value": v,
      "grad": {"X", "Z", "W_q", ..., "b_o", "heads": [{...}], "kv_heads": [{...}]},
      "source": "torch autograd (float64)",
      "description": "..." }

Every gradient has the shape of its matrix in the file (the file's layout; biases as plain arrays),
and there is one exactly where the file gives the matrix or the vector: an omitted W (identity) or
b (zero) is not a parameter. The forward pass is transcribed from docs/FORMAT.md (its tables, the
sections on positions, grouped-query heads, RoPE, ALiBi, windows and the sinusoidal encoding) and
shares no code with the C++ core or the other generators. The scale, the mask, ALiBi's bias and the
positions are constants.
"""

import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

try:
    import torch
except ImportError:
    sys.exit("gen_fixtures_sensitivity.py needs PyTorch: run it with /usr/bin/python3 (python3-torch)")
from gen_fixtures import check_flag, check_or_write, dumps  # noqa: E402  (the fixtures' JSON layout, --check)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
F64 = torch.float64

# (fixture name, scenario source, cell, what it covers)
CASES = [
    ("llama_gqa_rope_output", "assets/presets/modern-llama-gqa-rope.json", "output[3][2]",
     "rows layout, grouped-query heads (full matrices), RoPE, causal mask, W_o"),
    ("alg5_cross_perhead_output", "assets/presets/phuong-hutter-alg5-multihead.json", "output[1][2]",
     "columns layout, cross-attention, per-head weights, mask matrix, W_o and b_o"),
    ("alg4_cross_no_wo_output", "assets/presets/phuong-hutter-alg4-masked.json", "output[5][2]",
     "columns layout, cross-attention, per-head weights, mask matrix (one key per query), no W_o"),
    ("alibi_weights", "assets/presets/modern-alibi-slopes.json", "heads[1].weights[4][2]",
     "rows layout, ALiBi (the paper's slopes), causal mask; a weight cell"),
    ("sinusoidal_identity_output", "assets/presets/modern-vaswani-sinusoidal.json", "output[2][3]",
     "sinusoidal encoding, every projection omitted (identity): only X has a gradient"),
    ("torch_bias_columns_output", "tests/fixtures/torch_self_h2_bias_columns.json", "output[4][1]",
     "columns layout, every bias, two heads, W_o and b_o"),
    ("no_wo_h4_concat", "tests/fixtures/no_wo_h4_rows.json", "concat[2][5]",
     "rows layout, four heads, no W_o; a concat cell"),
    ("fully_masked_output", "tests/fixtures/fully_masked_row_causal_padding_rows.json", "output[0][1]",
     "a query that may attend nothing (causal + padding): only b_o moves its output"),
    ("everything_perhead_concat", "tests/fixtures/modern_everything_perhead_rows.json", "concat[4][3]",
     "per-head weights with kv_heads, RoPE interleaved on 2 dims, ALiBi, window + causal, sinusoidal, positions"),
    ("everything_full_g1_columns_weights", "tests/fixtures/modern_everything_full_h4_g1_columns.json",
     "heads[2].weights[3][3]",
     "columns layout, multi-query (G = 1), RoPE, ALiBi slopes given, window + causal, scale number"),
    ("rope_partial_cross_output", "tests/fixtures/modern_rope_partial_base500_cross_columns.json", "output[1][2]",
     "columns layout, cross-attention, partial RoPE (base 500), context positions, no W_o"),
]


def load_scenario(path):
    with open(os.path.join(ROOT, path)) as f:
        doc = json.load(f)
    if "scenario" in doc:  # a fixture: its input
        doc = doc["scenario"]
    doc = {k: v for k, v in doc.items() if k != "view"}
    return doc


# --------------------------------------------------------------------------------------------
# Parameters: one float64 leaf per matrix or vector the file holds, in the file's own shape.
# --------------------------------------------------------------------------------------------

MATRIX_NAMES = ("W_q", "W_k", "W_v")
VECTOR_NAMES = ("b_q", "b_k", "b_v")


def leaves(doc):
    """{path: tensor} with requires_grad, path like ("X",), ("heads", 1, "W_q")."""
    out = {}

    def add(path, value):
        out[path] = torch.tensor(value, dtype=F64, requires_grad=True)

    for key in ("X", "Z", "W_q", "W_k", "W_v", "b_q", "b_k", "b_v", "W_o", "b_o"):
        if key in doc:
            add((key,), doc[key])
    for group in ("heads", "kv_heads"):
        for h, head in enumerate(doc.get(group, [])):
            for key in MATRIX_NAMES + VECTOR_NAMES:
                if key in head:
                    add((group, h, key), head[key])
    return out


# --------------------------------------------------------------------------------------------
# The forward pass, rows convention (tokens are rows), as docs/FORMAT.md states it.
# --------------------------------------------------------------------------------------------

def sinusoidal(positions, d):
    """PE(p, 2i) = sin(p / 10000^(2i/d)), PE(p, 2i+1) = cos(p / 10000^(2i/d))."""
    pe = torch.zeros(len(positions), d, dtype=F64)
    for t, p in enumerate(positions):
        for c in range(d):
            i2 = c - c % 2
            angle = p / 10000 ** (i2 / d)
            pe[t, c] = math.sin(angle) if c % 2 == 0 else math.cos(angle)
    return pe


def paper_slopes(H):
    """m_k = 2^(-8k/H) for H a power of two; else the largest power of two n below H's slopes,
    then the 1st, 3rd, 5th, ... of 2n's until there are H."""
    def geometric(n):
        return [2.0 ** (-8.0 * k / n) for k in range(1, n + 1)]
    n = 1
    while n * 2 <= H:
        n *= 2
    slopes = geometric(n)
    slopes += geometric(2 * n)[0::2][:H - n]
    return slopes


def rope_matrices(positions, d_k, rope):
    """Per token t an orthogonal d_k by d_k M_t with q_rot = q M_t (q a row): pair (x, y) turns by
    the angle p theta_i, x' = x cos - y sin, y' = y cos + x sin; theta_i = base^(-2i/R)."""
    R = rope.get("dims", 0) or d_k
    base = rope.get("base", 10000.0)
    style = rope.get("style", "half")
    Ms = torch.zeros(len(positions), d_k, d_k, dtype=F64)
    for t, p in enumerate(positions):
        M = torch.eye(d_k, dtype=F64)
        for i in range(R // 2):
            x, y = (i, i + R // 2) if style == "half" else (2 * i, 2 * i + 1)
            a = p * base ** (-2.0 * i / R)
            c, s = math.cos(a), math.sin(a)
            M[x, x], M[y, x] = c, -s  # x' = x c - y s
            M[y, y], M[x, y] = c, s   # y' = y c + x s
        Ms[t] = M
    return Ms


def as_rows(M, layout):
    return M if layout == "rows" else M.T


def allowed_mask(doc, n_x, n_z, p, c, layout):
    mask = doc.get("mask", "none")
    allowed = torch.ones(n_x, n_z, dtype=torch.bool)
    causal, window, padding, cells = False, 0, [], None
    if mask == "causal":
        causal = True
    elif isinstance(mask, list):
        cells = mask
    elif isinstance(mask, dict):
        causal = mask.get("causal", False)
        window = mask.get("window", 0)
        padding = mask.get("padding", [])
        cells = mask.get("cells")
    for i in range(n_x):
        for j in range(n_z):
            if causal and c[j] > p[i]:
                allowed[i, j] = False
            if window and abs(p[i] - c[j]) >= window:
                allowed[i, j] = False
    for j in padding:
        allowed[:, j] = False
    if cells is not None:
        allowed &= as_rows(torch.tensor(cells, dtype=F64), layout) != 0
    return allowed


def forward(doc, P):
    """The trace's output, concat and per-head weights, scores and outputs (rows convention)."""
    layout = doc.get("layout", "rows")
    X = as_rows(P[("X",)], layout)
    cross = ("Z",) in P
    Z = as_rows(P[("Z",)], layout) if cross else X
    n_x, d_x = X.shape
    n_z, d_z = Z.shape
    p = doc.get("positions", list(range(n_x)))
    c = doc.get("context_positions", list(range(n_z))) if cross else p
    if doc.get("positional_encoding") == "sinusoidal":
        X = X + sinusoidal(p, d_x)
        Z = Z + sinusoidal(c, d_z) if cross else X

    def W(path, n_in):  # omitted: the identity
        return as_rows(P[path], layout) if path in P else torch.eye(n_in, dtype=F64)

    def b(path, width):  # omitted: zeros
        return P[path] if path in P else torch.zeros(width, dtype=F64)

    # One (W_q, b_q) per query head and one (W_k, b_k, W_v, b_v) per key/value head.
    if "heads" in doc:
        H = len(doc["heads"])
        q_heads = [(W(("heads", h, "W_q"), d_x),) for h in range(H)]
        kv_src = "kv_heads" if "kv_heads" in doc else "heads"
        G = len(doc[kv_src])
        kv_W = [(W((kv_src, g, "W_k"), d_z), W((kv_src, g, "W_v"), d_z)) for g in range(G)]
        d_k, d_v = q_heads[0][0].shape[1], kv_W[0][1].shape[1]
        q_heads = [(Wq, b(("heads", h, "b_q"), d_k)) for h, (Wq,) in enumerate(q_heads)]
        kv_heads = [(Wk, b((kv_src, g, "b_k"), d_k), Wv, b((kv_src, g, "b_v"), d_v))
                    for g, (Wk, Wv) in enumerate(kv_W)]
    else:
        H = doc.get("num_heads", 1)
        G = doc.get("num_kv_heads", 0) or H
        Wq, Wk, Wv = W(("W_q",), d_x), W(("W_k",), d_z), W(("W_v",), d_z)
        d_k = Wq.shape[1] // H if ("W_q",) in P else (Wk.shape[1] // G if ("W_k",) in P else d_x // H)
        d_v = Wv.shape[1] // G
        bq, bk, bv = b(("b_q",), H * d_k), b(("b_k",), G * d_k), b(("b_v",), G * d_v)
        # The full matrices split by columns into heads, head h taking block h.
        q_heads = [(Wq[:, h * d_k:(h + 1) * d_k], bq[h * d_k:(h + 1) * d_k]) for h in range(H)]
        kv_heads = [(Wk[:, g * d_k:(g + 1) * d_k], bk[g * d_k:(g + 1) * d_k],
                     Wv[:, g * d_v:(g + 1) * d_v], bv[g * d_v:(g + 1) * d_v]) for g in range(G)]

    scale = doc.get("scale", "inv_sqrt_dk")
    scale = 1.0 / math.sqrt(d_k) if scale == "inv_sqrt_dk" else 1.0 if scale == "none" else float(scale)
    allowed = allowed_mask(doc, n_x, n_z, p, c, layout)
    anything = allowed.any(dim=1, keepdim=True)  # a query that may attend nothing: zero weights
    alibi = doc.get("alibi")
    slopes = None if alibi is None else paper_slopes(H) if alibi is True else alibi
    distance = torch.tensor([[abs(pi - cj) for cj in c] for pi in p], dtype=F64)
    rope = doc.get("rope")
    if rope is not None:
        Mq, Mk = rope_matrices(p, d_k, rope), rope_matrices(c, d_k, rope)

    heads = []
    for h in range(H):
        Wq, bq = q_heads[h]
        Wk, bk, Wv, bv = kv_heads[h // (H // G)]  # Llama's repeat_kv: consecutive heads share
        Q, K, V = X @ Wq + bq, Z @ Wk + bk, Z @ Wv + bv
        if rope is not None:
            Q = torch.einsum("td,tde->te", Q, Mq)
            K = torch.einsum("td,tde->te", K, Mk)
        S = Q @ K.T
        L = scale * S
        if slopes is not None:
            L = L - slopes[h] * distance
        L = torch.where(allowed, L, torch.tensor(-math.inf, dtype=F64))
        L = torch.where(anything, L, torch.zeros_like(L))  # keeps the softmax of an empty row finite
        A = torch.softmax(L, dim=1) * anything
        heads.append({"scores": S, "weights": A, "output": A @ V})
    concat = torch.cat([hd["output"] for hd in heads], dim=1)
    output = concat
    if ("W_o",) in P:
        output = concat @ as_rows(P[("W_o",)], layout) + (P[("b_o",)] if ("b_o",) in P else 0)
    return {"output": output, "concat": concat, "heads": heads}


def parse_of(of):
    """'heads[1].weights[2][3]' -> (1, 'weights', 2, 3); 'output[0][1]' -> (None, 'output', 0, 1)."""
    head = None
    if of.startswith("heads["):
        head = int(of[len("heads["):of.index("]")])
        of = of[of.index("].") + 2:]
    name = of[:of.index("[")]
    r, c = (int(x) for x in of[of.index("[") + 1:-1].split("]["))
    return head, name, r, c


def target(doc, trace, of):
    head, name, r, c = parse_of(of)
    M = trace[name] if head is None else trace["heads"][head][name]
    if doc.get("layout", "rows") == "columns":  # indices address the stored (transposed) matrix
        r, c = c, r
    return M[r, c]


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------

def to_json(t):
    return t.detach().tolist()


def gradients(doc, P):
    """{"X": ..., "heads": [{...}], ...}: each leaf's gradient (zeros when the target does not
    depend on it) in the file's shape."""
    grad = {}
    for path, leaf in P.items():
        g = leaf.grad if leaf.grad is not None else torch.zeros_like(leaf)
        if len(path) == 1:
            grad[path[0]] = to_json(g)
    for group in ("heads", "kv_heads"):
        if group in doc:
            grad[group] = [{} for _ in doc[group]]
            for path, leaf in P.items():
                if path[0] == group:
                    g = leaf.grad if leaf.grad is not None else torch.zeros_like(leaf)
                    grad[group][path[1]][path[2]] = to_json(g)
    return grad


def build():
    files = {}
    for name, source, of, description in CASES:
        doc = load_scenario(source)
        P = leaves(doc)
        value = target(doc, forward(doc, P), of)
        value.backward()
        fixture = {"scenario": doc, "of": of, "value": value.item(), "grad": gradients(doc, P),
                   "source": "torch autograd (float64)", "description": f"{description} ({source})"}
        files[f"sensitivity_{name}.json"] = dumps(fixture) + "\n"
    return files


def main():
    check_or_write(build(), check_flag(__doc__), "sensitivity fixtures", "scripts/gen_fixtures_sensitivity.py")


if __name__ == "__main__":
    main()
