#!/usr/bin/env python3
"""attnlab's model forward pass beside PyTorch's, on the same GPT-2-small-shaped weights.

    bench/model_compare.py [--build build] [--dir /tmp/attnlab-gpt2-small] [--tokens 64] [--dtype F32|BF16]
                           [--shape gpt2-small|llama-1b]

Writes (once) a folder with config.json and model.safetensors: 12 layers, d 768, 12 heads, vocabulary
50257, 1024 positions, random weights (N(0, 0.02), about 500 MB in F32), or with --shape llama-1b one
shaped as Llama 3.2 1B (16 layers, d 2048, 32 query and 8 K/V heads of 64, MLP 8192, vocabulary
128256, tied; 1.24 G parameters, 2.5 GB in BF16, as Meta ships it), then runs
build/bench/attnlab_model_bench on it and a PyTorch float32 forward of the same weights in this
process (every layer's attention weights computed, as attnlab records them), and prints both side by
side with their ratio. A benchmark, not a test: nothing fails on time (docs/PERFORMANCE.md).
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
import gen_models  # noqa: E402  (re-executes under Debian's python3 when numpy/torch are missing)
import numpy as np  # noqa: E402
import torch  # noqa: E402

CONFIG = {"model_type": "gpt2", "n_layer": 12, "n_embd": 768, "n_head": 12, "n_positions": 1024, "n_ctx": 1024,
          "vocab_size": 50257, "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new"}


LLAMA_1B = {"model_type": "llama", "num_hidden_layers": 16, "hidden_size": 2048, "num_attention_heads": 32,
            "num_key_value_heads": 8, "head_dim": 64, "intermediate_size": 8192, "vocab_size": 128256,
            "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "rope_theta": 500000.0,
            "hidden_act": "silu", "tie_word_embeddings": True}


def llama_shapes():
    c = LLAMA_1B
    d, m, L = c["hidden_size"], c["intermediate_size"], c["num_hidden_layers"]
    q, kv = c["num_attention_heads"] * c["head_dim"], c["num_key_value_heads"] * c["head_dim"]
    shapes = {"model.embed_tokens.weight": (c["vocab_size"], d), "model.norm.weight": (d,)}
    for i in range(L):
        p = f"model.layers.{i}."
        shapes.update({p + "input_layernorm.weight": (d,), p + "post_attention_layernorm.weight": (d,),
                       p + "self_attn.q_proj.weight": (q, d), p + "self_attn.k_proj.weight": (kv, d),
                       p + "self_attn.v_proj.weight": (kv, d), p + "self_attn.o_proj.weight": (d, q),
                       p + "mlp.gate_proj.weight": (m, d), p + "mlp.up_proj.weight": (m, d),
                       p + "mlp.down_proj.weight": (d, m)})
    return shapes


def weights(rng, shape="gpt2-small"):
    if shape == "llama-1b":
        return {name: (rng.standard_normal(s, dtype=np.float32) * 0.02 + (1.0 if len(s) == 1 else 0.0))
                for name, s in llama_shapes().items()}
    d, V, P, L = CONFIG["n_embd"], CONFIG["vocab_size"], CONFIG["n_positions"], CONFIG["n_layer"]
    shapes = {"wte.weight": (V, d), "wpe.weight": (P, d), "ln_f.weight": (d,), "ln_f.bias": (d,)}
    for i in range(L):
        p = f"h.{i}."
        shapes.update({p + "ln_1.weight": (d,), p + "ln_1.bias": (d,), p + "attn.c_attn.weight": (d, 3 * d),
                       p + "attn.c_attn.bias": (3 * d,), p + "attn.c_proj.weight": (d, d), p + "attn.c_proj.bias": (d,),
                       p + "ln_2.weight": (d,), p + "ln_2.bias": (d,), p + "mlp.c_fc.weight": (d, 4 * d),
                       p + "mlp.c_fc.bias": (4 * d,), p + "mlp.c_proj.weight": (4 * d, d), p + "mlp.c_proj.bias": (d,)})
    out = {}
    for name, shape in shapes.items():
        a = rng.standard_normal(shape, dtype=np.float32) * 0.02
        if name.endswith("ln_1.weight") or name.endswith("ln_2.weight") or name == "ln_f.weight":
            a += 1.0
        out[name] = a
    return out


def write_model(folder, dtype, shape):
    if os.path.exists(os.path.join(folder, "model.safetensors")):
        return
    os.makedirs(folder, exist_ok=True)
    w = weights(np.random.default_rng(0), shape)
    data, _ = gen_models.safetensors_bytes({k: (dtype, v) for k, v in w.items()})
    with open(os.path.join(folder, "model.safetensors"), "wb") as f:
        f.write(data)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(LLAMA_1B if shape == "llama-1b" else CONFIG, f, indent=2)


def gpt2_forward(W, ids):
    """GPT-2 as PyTorch users write it (torch.nn.functional's fused layer_norm, gelu and softmax),
    keeping every layer's attention weights as attnlab does."""
    F = torch.nn.functional
    d, H, L = CONFIG["n_embd"], CONFIG["n_head"], CONFIG["n_layer"]
    n, dh = len(ids), d // H
    mask = torch.ones(n, n, dtype=torch.bool).tril()
    x = W["wte.weight"][ids] + W["wpe.weight"][:n]
    weights = []
    for i in range(L):
        p = f"h.{i}."
        a = F.layer_norm(x, (d,), W[p + "ln_1.weight"], W[p + "ln_1.bias"], 1e-5)
        q, k, v = (t.reshape(n, H, dh).transpose(0, 1)
                   for t in (a @ W[p + "attn.c_attn.weight"] + W[p + "attn.c_attn.bias"]).split(d, dim=1))
        A = torch.softmax((q @ k.transpose(-1, -2) / dh ** 0.5).masked_fill(~mask, float("-inf")), dim=-1)
        weights.append(A)
        x = x + (A @ v).transpose(0, 1).reshape(n, d) @ W[p + "attn.c_proj.weight"] + W[p + "attn.c_proj.bias"]
        m = F.layer_norm(x, (d,), W[p + "ln_2.weight"], W[p + "ln_2.bias"], 1e-5)
        x = x + F.gelu(m @ W[p + "mlp.c_fc.weight"] + W[p + "mlp.c_fc.bias"], approximate="tanh") \
            @ W[p + "mlp.c_proj.weight"] + W[p + "mlp.c_proj.bias"]
    x = F.layer_norm(x[-1:], (d,), W["ln_f.weight"], W["ln_f.bias"], 1e-5)
    return weights, torch.softmax(x[0] @ W["wte.weight"].T, dim=-1)


def llama_forward(W, ids):
    """Llama as PyTorch users write it (RMSNorm by hand, as PyTorch 1.13 has no rms_norm; rotate_half
    RoPE; repeat_kv), keeping every layer's attention weights as attnlab does."""
    F, c = torch.nn.functional, LLAMA_1B
    d, H, G, dh, L = (c[k] for k in ("hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim",
                                     "num_hidden_layers"))
    n = len(ids)
    inv = 1.0 / c["rope_theta"] ** (torch.arange(0, dh, 2, dtype=torch.float32) / dh)
    angles = torch.cat([torch.outer(torch.arange(n, dtype=torch.float32), inv)] * 2, dim=-1)
    cos, sin = angles.cos(), angles.sin()

    def rms(x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + c["rms_norm_eps"]) * w

    def rope(t):
        half = t.shape[-1] // 2
        return t * cos + torch.cat([-t[..., half:], t[..., :half]], dim=-1) * sin

    mask = torch.ones(n, n, dtype=torch.bool).tril()
    x = W["model.embed_tokens.weight"][ids]
    weights = []
    for i in range(L):
        p = f"model.layers.{i}."
        a = rms(x, W[p + "input_layernorm.weight"])
        q = rope((a @ W[p + "self_attn.q_proj.weight"].T).reshape(n, H, dh).transpose(0, 1))
        k = rope((a @ W[p + "self_attn.k_proj.weight"].T).reshape(n, G, dh).transpose(0, 1))
        v = (a @ W[p + "self_attn.v_proj.weight"].T).reshape(n, G, dh).transpose(0, 1)
        k, v = k.repeat_interleave(H // G, dim=0), v.repeat_interleave(H // G, dim=0)
        A = torch.softmax((q @ k.transpose(-1, -2) / dh ** 0.5).masked_fill(~mask, float("-inf")), dim=-1)
        weights.append(A)
        x = x + (A @ v).transpose(0, 1).reshape(n, H * dh) @ W[p + "self_attn.o_proj.weight"].T
        m = rms(x, W[p + "post_attention_layernorm.weight"])
        x = x + (F.silu(m @ W[p + "mlp.gate_proj.weight"].T) * (m @ W[p + "mlp.up_proj.weight"].T)) \
            @ W[p + "mlp.down_proj.weight"].T
    x = rms(x[-1:], W["model.norm.weight"])
    return weights, torch.softmax(x[0] @ W["model.embed_tokens.weight"].T, dim=-1)


def torch_forward(folder, ids, repeats, shape="gpt2-small"):
    torch.set_default_dtype(torch.float32)
    torch.set_num_threads(os.cpu_count())
    start = time.perf_counter()
    W = {k: torch.tensor(v[1], dtype=torch.float32) for k, v in gen_models.read_safetensors(
        os.path.join(folder, "model.safetensors")).items()}
    load = time.perf_counter() - start
    times = []
    with torch.no_grad():
        for _ in range(repeats + 1):  # the first run warms PyTorch up: not counted
            start = time.perf_counter()
            (llama_forward if shape == "llama-1b" else gpt2_forward)(W, torch.tensor(ids))
            times.append(time.perf_counter() - start)
    times = times[1:]
    return load, sorted(times)[len(times) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--dir", default="/tmp/attnlab-gpt2-small")
    ap.add_argument("--tokens", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--dtype", default="F32", choices=["F32", "BF16"])
    ap.add_argument("--shape", default="gpt2-small", choices=["gpt2-small", "llama-1b"])
    a = ap.parse_args()
    if a.shape == "llama-1b" and a.dir == "/tmp/attnlab-gpt2-small":
        a.dir = "/tmp/attnlab-llama-1b"
    folder = a.dir + ("" if a.dtype == "F32" else "-" + a.dtype.lower())
    write_model(folder, a.dtype, a.shape)
    bench = os.path.join(a.build, "bench", "attnlab_model_bench")
    ours = json.loads(subprocess.run([bench, folder, str(a.tokens), str(a.repeats)], check=True,
                                     capture_output=True, text=True).stdout)
    vocab = (LLAMA_1B if a.shape == "llama-1b" else CONFIG)["vocab_size"]
    ids = [(i * 7919 + 13) % vocab for i in range(a.tokens)]
    load, forward = torch_forward(folder, ids, a.repeats, a.shape)
    if a.shape == "llama-1b":
        params = sum(int(np.prod(s)) for s in llama_shapes().values())
    else:
        params = sum(np.prod(s) for s in [(50257, 768), (1024, 768)]) + 12 * (4 * 768 * 768 + 8 * 768 * 768 + 13 * 768) + 2 * 768
    print(f"model: {ours['model']}, {ours['dtype']}, {a.tokens} tokens, {params / 1e6:.0f} M parameters")
    print(f"{'':28}{'attnlab':>12}{'PyTorch':>12}{'ratio':>8}")
    print(f"{'forward, every layer (s)':28}{ours['forward_s']:12.4f}{forward:12.4f}{ours['forward_s'] / forward:8.2f}")
    print(f"{'open (s)':28}{ours['open_s']:12.4f}{load:12.4f}   (PyTorch: parse + copy to tensors)")
    print(f"rerun from layer {ours['rerun_from_layer']} after an edit: {ours['rerun_s']:.4f} s; "
          f"the layer as a scenario and its trace: {ours['layer_scenario_s']:.4f} s")
    file_mib = os.path.getsize(os.path.join(folder, "model.safetensors")) / 2**20
    print(f"attnlab resident memory: {ours['rss_mib']:.0f} MiB now, {ours['peak_rss_mib']:.0f} MiB peak; "
          f"the weights file: {file_mib:.0f} MiB (peak / file: {ours['peak_rss_mib'] / file_mib:.2f})")
    print(f"PyTorch process peak: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
