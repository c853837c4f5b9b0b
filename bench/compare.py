#!/usr/bin/python3
"""attnlab vs NumPy vs PyTorch: full multi-head self-attention in float64, side by side.

Run with Debian's interpreter (python3-numpy, python3-torch, libopenblas0-pthread):
    /usr/bin/python3 bench/compare.py [--cli build/cli/attnlab-cli] [--rounds 3] [--shapes 8x16x2,...]

Every shape N x E x H: X (N x E), W_q, W_k, W_v, W_o (E x E), d_k = E / H, no mask, no biases.
Each peer computes projections, per-head scores, 1/sqrt(d_k), stable softmax, weights V, concat, W_o;
attnlab computes its whole trace (every stage the window shows) with `attnlab-cli bench`.
Each round times every shape with every tool in turn (best of several runs), so a machine that
slows down or speeds up mid-run affects all three alike; the table shows the median over rounds
of each best, and the median of the per-round ratios. Numbers, not verdicts.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

try:
    import torch
except ImportError:  # scripts/install-deps.sh --with-torch
    torch = None

SHAPES = ["8x16x2", "64x64x4", "256x256x8", "1024x512x8"]


def parse_shape(text):
    n, e, h = (int(v) for v in text.split("x"))
    return n, e, h


def flops(n, e):
    """Matrix-product FLOPs: Q, K, V and W_o projections 4 x 2NE^2; scores and A V 2 x 2N^2E."""
    return 8.0 * n * e * e + 4.0 * n * n * e


def best_time(fn, min_seconds, min_runs=3, max_runs=2000):
    """Best wall time of fn() over at least min_runs runs and about min_seconds in total."""
    fn()  # warm-up: first-call allocations, thread pools, lazy imports
    times, start = [], time.perf_counter()
    while len(times) < max_runs and (len(times) < min_runs or time.perf_counter() - start < min_seconds):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), len(times)


def inputs(n, e, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, e))
    bound = np.sqrt(6.0 / (2 * e))  # Xavier-uniform, as attnlab-cli bench
    w = [rng.uniform(-bound, bound, (e, e)) for _ in range(4)]
    return x, w


def numpy_attention(x, wq, wk, wv, wo, h):
    n, e = x.shape
    dk = e // h
    # (N, E) -> (H, N, d_k), contiguous so that every batched product goes to BLAS
    q = np.ascontiguousarray((x @ wq).reshape(n, h, dk).transpose(1, 0, 2))
    k = np.ascontiguousarray((x @ wk).reshape(n, h, dk).transpose(1, 0, 2))
    v = np.ascontiguousarray((x @ wv).reshape(n, h, dk).transpose(1, 0, 2))
    scores = q @ k.transpose(0, 2, 1)
    scaled = scores * (1.0 / np.sqrt(dk))
    weights = np.exp(scaled - scaled.max(axis=-1, keepdims=True))  # stable softmax over the keys
    weights /= weights.sum(axis=-1, keepdims=True)
    y = weights @ v
    concat = y.transpose(1, 0, 2).reshape(n, e)
    return concat @ wo


def torch_attention(x, wq, wk, wv, wo, h):
    n, e = x.shape
    dk = e // h
    q = (x @ wq).view(n, h, dk).transpose(0, 1)
    k = (x @ wk).view(n, h, dk).transpose(0, 1)
    v = (x @ wv).view(n, h, dk).transpose(0, 1)
    scores = q @ k.transpose(-2, -1)
    scaled = scores * (1.0 / dk**0.5)
    weights = torch.softmax(scaled, dim=-1)  # subtracts the row maximum
    y = weights @ v
    concat = y.transpose(0, 1).reshape(n, e)
    return concat @ wo


def run_attnlab(cli, shape, repeats):
    out = subprocess.run([cli, "bench", "--shape", shape, "--json", "--repeats", str(repeats)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def repeats_for(n, e):
    """About 0.3 s of attnlab runs per shape and round (at least 5)."""
    seconds = flops(n, e) / 50e9 + 2e-6
    return int(min(2000, max(5, 0.3 / seconds)))


def dgemm_rate():
    a, b = np.random.rand(1024, 1024), np.random.rand(1024, 1024)
    best, _ = best_time(lambda: a @ b, 0.5)
    return 2.0 * 1024**3 / best / 1e9


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", default=os.path.join(here, "..", "build", "cli", "attnlab-cli"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--threads", type=int, default=2, help="PyTorch intra-op threads (issue: 2)")
    ap.add_argument("--json", action="store_true", help="also print every measurement as JSON")
    args = ap.parse_args()
    if not os.access(args.cli, os.X_OK):
        sys.exit(f"no attnlab-cli at {args.cli} (build first, or pass --cli)")
    if torch is not None:
        torch.set_num_threads(args.threads)
    shapes = args.shapes.split(",")

    print(f"numpy {np.__version__}, torch {torch.__version__ if torch else 'missing'} "
          f"({args.threads} threads), {os.cpu_count()} CPUs, {args.rounds} rounds")
    rates = []
    rows = {s: {"attnlab": [], "numpy": [], "torch": [], "rss": [], "r_numpy": [], "r_torch": []} for s in shapes}
    for rnd in range(args.rounds):
        rates.append(dgemm_rate())
        for s in shapes:
            n, e, h = parse_shape(s)
            r = rows[s]
            mine = run_attnlab(args.cli, s, repeats_for(n, e))
            r["attnlab"].append(mine["seconds"])
            r["rss"].append(mine["peak_rss_mb"])
            x, (wq, wk, wv, wo) = inputs(n, e, seed=rnd)
            min_s = 0.3
            t_np, _ = best_time(lambda: numpy_attention(x, wq, wk, wv, wo, h), min_s)
            r["numpy"].append(t_np)
            r["r_numpy"].append(t_np / mine["seconds"])
            if torch is not None:
                tx, tw = torch.from_numpy(x), [torch.from_numpy(w) for w in (wq, wk, wv, wo)]
                with torch.no_grad():
                    t_t, _ = best_time(lambda: torch_attention(tx, *tw, h), min_s)
                r["torch"].append(t_t)
                r["r_torch"].append(t_t / mine["seconds"])
        print(f"  round {rnd + 1}/{args.rounds} done", file=sys.stderr)

    med = statistics.median
    rate = med(rates)
    print(f"\nNumPy/OpenBLAS dgemm 1024x1024: {rate:.1f} GFLOP/s (median of {len(rates)} best-ofs)\n")
    print("| shape N x E x H | attnlab | NumPy | PyTorch | NumPy / attnlab | PyTorch / attnlab "
          "| attnlab GFLOP/s | of dgemm | attnlab peak RSS |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")

    def ms(v):
        return f"{v * 1e3:.3g} ms" if v >= 1e-3 else f"{v * 1e6:.3g} us"

    for s in shapes:
        n, e, h = parse_shape(s)
        r = rows[s]
        t = med(r["attnlab"])
        gf = flops(n, e) / t / 1e9
        torch_cells = (ms(med(r["torch"])), f"{med(r['r_torch']):.2f}x") if r["torch"] else ("-", "-")
        print(f"| {s} | {ms(t)} | {ms(med(r['numpy']))} | {torch_cells[0]} | {med(r['r_numpy']):.2f}x "
              f"| {torch_cells[1]} | {gf:.1f} | {gf / rate:.0%} | {med(r['rss']):.0f} MB |")
    if args.json:
        print(json.dumps({"dgemm_gflops": rates, "shapes": rows}))


if __name__ == "__main__":
    main()
