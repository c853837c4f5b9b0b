#!/usr/bin/env python3
"""A GPT-2-small-shaped grid at a tiny width, for window tests of the Model view's grid: 12 layers of
12 heads (head size 2, n_embd 24), the tiny GPT-2 fixture's real vocabulary, random weights. Pure
Python (no numpy): the test suite runs on a fresh clone. The queries' and keys' weights are large
(std 0.8) so that the maps are sharp patterns rather than near-uniform rows.

usage: make_wide_model.py TOKENIZER_FOLDER OUT_FOLDER
"""
import json
import os
import random
import shutil
import struct
import sys

LAYERS, HEADS, HEAD_SIZE, POSITIONS = 12, 12, 2, 128


def main():
    source, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for name in ("vocab.json", "merges.txt"):
        shutil.copy(os.path.join(source, name), os.path.join(out, name))
    config = json.load(open(os.path.join(source, "config.json")))
    d = HEADS * HEAD_SIZE
    config.update(n_layer=LAYERS, n_head=HEADS, n_embd=d, n_ctx=POSITIONS, n_positions=POSITIONS)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    vocab = config["vocab_size"]
    shapes = {"wte.weight": (vocab, d), "wpe.weight": (POSITIONS, d), "ln_f.weight": (d,), "ln_f.bias": (d,)}
    for i in range(LAYERS):
        p = f"h.{i}."
        shapes.update({p + "ln_1.weight": (d,), p + "ln_1.bias": (d,), p + "attn.c_attn.weight": (d, 3 * d),
                       p + "attn.c_attn.bias": (3 * d,), p + "attn.c_proj.weight": (d, d),
                       p + "attn.c_proj.bias": (d,), p + "ln_2.weight": (d,), p + "ln_2.bias": (d,),
                       p + "mlp.c_fc.weight": (d, 4 * d), p + "mlp.c_fc.bias": (4 * d,),
                       p + "mlp.c_proj.weight": (4 * d, d), p + "mlp.c_proj.bias": (d,)})
    rng = random.Random(38)
    header, blobs, offset = {}, [], 0
    for name, shape in shapes.items():
        count = shape[0] * (shape[1] if len(shape) > 1 else 1)
        if name.endswith(("ln_1.weight", "ln_2.weight", "ln_f.weight")):
            values = [1.0] * count
        elif name.endswith("c_attn.weight"):  # columns: queries, keys, values (d each)
            values = [rng.gauss(0.0, 0.8 if (k % (3 * d)) < 2 * d else 0.1) for k in range(count)]
        else:
            values = [rng.gauss(0.0, 0.1) for _ in range(count)]
        blob = struct.pack(f"<{count}f", *values)
        header[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    head = json.dumps(header, separators=(",", ":")).encode()
    head += b" " * (-len(head) % 8)
    with open(os.path.join(out, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(head)) + head + b"".join(blobs))


if __name__ == "__main__":
    main()
