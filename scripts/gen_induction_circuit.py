#!/usr/bin/python3
"""A hand-built induction circuit as a Hugging Face GPT-2 folder (issue 39): two layers of two heads,
attention only (the MLPs' weights are zero, so each adds exactly 0), every weight set by hand.

    python3 scripts/gen_induction_circuit.py   # rewrites assets/models/induction-circuit/ (same bytes
                                               # every run) and its float64 reference
                                               # tests/fixtures/instruments/induction-circuit.json

The vocabulary is 30 lowercase words, " ." and <|bos|>, one token each (tokenizer.json: byte-level BPE
with ignore_merges and no merges, so a word is its own token and anything else is refused; the
post-processor puts <|bos|> first). The residual stream (d_model 72) has named blocks of dimensions:

  TOK[0..31]   the token, one-hot (word w at TOK[w], <|bos|> at TOK[31])
  BAL_TOK      -1 for every token: keeps the stream's mean at 0, so each LayerNorm only rescales
  POS[0..3]    the position i: (cos i t, sin i t, -cos i t, -sin i t), t = pi / 48 (a mean of 0, a norm of 1)
  PREV[0..31]  the previous token, one-hot: written by head 0.0
  BAL_PREV     minus what head 0.0 writes into PREV, again for a mean of 0
  two unused dimensions (d_model a multiple of the two heads)

Every token's vector has norm 2 at layer 0 (TOK, BAL_TOK and POS), so ln_1 multiplies every row by the
same s0 = 1 / sqrt(4 / 72 + eps).

  Head 0.0, the previous-token head: q = beta_A R(-t) (cos i t, sin i t), k = (cos j t, sin j t), so
  q.k = beta_A s0^2 cos((i - 1 - j) t): largest at j = i - 1 and falling off on both sides (every
  offset stays within [-t, pi]); beta_A makes the nearest rival 15 below it after the 1/sqrt(36) scale.
  v = TOK; W_o writes it to PREV (and -1 to BAL_PREV), scaled by 1 / s0 so PREV holds exactly 1.
  Head 1.1, the induction head (K-composition: its keys read what 0.0 wrote): q = beta_C TOK (the
  current token), k = PREV (the token before key j), so the query's token matches the key whose
  previous token it is: the token after its earlier occurrence. A second q/k pair gives every query
  half that score on the <|bos|> key (q reads -BAL_TOK, k reads TOK[31]), so a query without an earlier
  occurrence rests on <|bos|>, whose value is 0. v = the words of TOK; W_o adds 4 / s1 times the token
  it found to TOK (and its negative to BAL_TOK): the prediction.
  Heads 0.1 and 1.0 are idle: zero weights, uniform attention, output 0.
  ln_f multiplies TOK and BAL_TOK by 2; the LM head is the token embedding (tied), so the logit of word
  w is 2 s2 (TOK[w] - BAL_TOK): about 10 more for the copied token than for the others.
"""
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_models as g  # noqa: E402  (re-executes under Debian's python3 when numpy/torch are missing)
import numpy as np  # noqa: E402
import torch  # noqa: E402

FOLDER = os.path.join(HERE, "..", "assets", "models", "induction-circuit")
REFERENCE = os.path.join(HERE, "..", "tests", "fixtures", "instruments", "induction-circuit.json")

WORDS = ["the", "a", "cat", "dog", "bird", "fish", "mary", "john", "sat", "ran", "sang", "swam", "gave", "went",
         "saw", "on", "in", "to", "and", "mat", "park", "tree", "sea", "store", "drink", "cake", "big", "small",
         "red", "blue", "."]
BOS = len(WORDS)                   # <|bos|>, the added token after the words
K = len(WORDS) + 1                 # TOK's and PREV's width
D, H, DH, P, EPS = 72, 2, 36, 48, 1e-5
TOK, BAL_TOK, POS = 0, K, K + 1
PREV, BAL_PREV = K + 5, 2 * K + 5
assert BAL_PREV < D
THETA = math.pi / P
S0 = 1 / math.sqrt(4 / D + EPS)    # ln_1's factor at layer 0: every row has norm 2
S1 = 1 / math.sqrt(6 / D + EPS)    # at layer 1: plus PREV's 1 and BAL_PREV's -1
SHARP = 15.0                       # the score gap to the nearest rival, after the 1/sqrt(DH) scale
BETA_A = SHARP * math.sqrt(DH) / (S0 * S0 * (1 - math.cos(THETA)))
BETA_C = 2 * SHARP * math.sqrt(DH) / (S1 * S1)   # match 2 SHARP, <|bos|> SHARP, others 0
COPY = 4.0                         # what head 1.1 adds to TOK, after ln_1's factor
LN_F_TOK = 2.0


def token_text(w):
    return "\u0120" + w     # GPT-2's byte symbol for a leading space: words, and "." are written apart


def weights():
    w = {}
    wte = np.zeros((K, D))
    for t in range(K):
        wte[t, TOK + t], wte[t, BAL_TOK] = 1.0, -1.0
    wpe = np.zeros((P, D))
    for i in range(P):
        c, s = math.cos(i * THETA), math.sin(i * THETA)
        wpe[i, POS:POS + 4] = [c, s, -c, -s]
    w["wte.weight"], w["wpe.weight"] = wte, wpe
    for layer in range(2):
        p = f"h.{layer}."
        attn = np.zeros((D, 3 * D))                   # x W: columns q | k | v, each head 0 then head 1
        proj = np.zeros((D, D))                       # rows: [z_0 | z_1], columns: the stream
        q, k, v = 0, D, 2 * D
        if layer == 0:                                # head 0.0, previous token
            ct, st = math.cos(THETA), math.sin(THETA)
            attn[POS + 0, q + 0], attn[POS + 1, q + 0] = BETA_A * ct, BETA_A * st    # R(-t) (cos, sin)
            attn[POS + 0, q + 1], attn[POS + 1, q + 1] = -BETA_A * st, BETA_A * ct
            attn[POS + 0, k + 0], attn[POS + 1, k + 1] = 1.0, 1.0
            for t in range(K):
                attn[TOK + t, v + t] = 1.0
                proj[t, PREV + t], proj[t, BAL_PREV] = 1 / S0, -1 / S0
        else:                                         # head 1.1, induction
            h = DH
            for t in range(len(WORDS)):
                attn[TOK + t, q + h + t] = BETA_C
                attn[PREV + t, k + h + t] = 1.0
                attn[TOK + t, v + h + t] = 1.0
                proj[h + t, TOK + t], proj[h + t, BAL_TOK] = COPY / S1, -COPY / S1
            attn[BAL_TOK, q + h + K] = -BETA_C / 2    # every query: half a match on <|bos|>
            attn[TOK + BOS, k + h + K] = 1.0
        w[p + "ln_1.weight"], w[p + "ln_1.bias"] = np.ones(D), np.zeros(D)
        w[p + "attn.c_attn.weight"], w[p + "attn.c_attn.bias"] = attn, np.zeros(3 * D)
        w[p + "attn.c_proj.weight"], w[p + "attn.c_proj.bias"] = proj, np.zeros(D)
        w[p + "ln_2.weight"], w[p + "ln_2.bias"] = np.ones(D), np.zeros(D)
        w[p + "mlp.c_fc.weight"], w[p + "mlp.c_fc.bias"] = np.zeros((D, 4)), np.zeros(4)
        w[p + "mlp.c_proj.weight"], w[p + "mlp.c_proj.bias"] = np.zeros((4, D)), np.zeros(D)
    ln_f = np.ones(D)
    ln_f[TOK:BAL_TOK + 1] = LN_F_TOK
    w["ln_f.weight"], w["ln_f.bias"] = ln_f, np.zeros(D)
    return w


CONFIG = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_layer": 2, "n_embd": D, "n_head": H,
          "n_inner": 4, "n_positions": P, "n_ctx": P, "vocab_size": K, "layer_norm_epsilon": EPS,
          "activation_function": "gelu_new", "bos_token_id": BOS, "eos_token_id": BOS,
          "tie_word_embeddings": True}


def tokenizer():
    vocab = {token_text(w): i for i, w in enumerate(WORDS)}
    added = [("<|bos|>", BOS)]
    template = {
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "<|bos|>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
        "pair": [{"SpecialToken": {"id": "<|bos|>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                 {"SpecialToken": {"id": "<|bos|>", "type_id": 1}}, {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {"<|bos|>": {"id": "<|bos|>", "ids": [BOS], "tokens": ["<|bos|>"]}}}
    text = g.tokenizer_json(added, None, g.byte_level(True, True, True), template, g.byte_level(True, True, True),
                            vocab, [], merges_as_pairs=True, ignore_merges=True, none_affixes=True)
    ref = g.RefTokenizer(vocab, [], lambda s: g.pre_gpt2(s if s.startswith(" ") else " " + s), added=added,
                         bos=BOS, ignore_merges=True)
    return text, ref


def main():
    w = weights()
    if os.path.isdir(FOLDER):
        for f in os.listdir(FOLDER):
            os.remove(os.path.join(FOLDER, f))
    g.write_json(os.path.join(FOLDER, "config.json"), CONFIG)
    text, ref = tokenizer()
    g.write(os.path.join(FOLDER, "tokenizer.json"), text)
    files = g.write_weights(FOLDER, {k: ("F32", v.astype(np.float32)) for k, v in w.items()}, None, "")
    W, _ = g.load_weights(FOLDER, files, "")
    ids = ref.encode("the cat sat on a mat . the cat")
    assert ids == [BOS, 0, 2, 8, 15, 1, 19, 30, 0, 2], ids
    layers, logits = g.forward_gpt2(CONFIG, W, ids)
    # what the heads were built to do, in float64 on the stored weights
    prev, induction = layers[0]["weights"][0], layers[1]["weights"][1]
    assert all(prev[i, i - 1] > 0.999 for i in range(1, len(ids)))
    assert induction[-1, 3] > 0.999                                  # "cat" -> after the earlier "cat": "sat"
    assert induction[-2, 2] > 0.999                                  # "the" -> after the earlier "the": "cat"
    assert induction[4, 0] > 0.999                                   # "on" never came before: <|bos|>
    assert int(logits.argmax()) == 8 and float(torch.softmax(logits, -1)[8]) > 0.99   # "sat"
    repeated = [BOS] + list(range(0, 10)) + list(range(0, 10))
    doc = {"heads": [g.head_scores_case(g.forward_gpt2, CONFIG, W, ids),
                     g.head_scores_case(g.forward_gpt2, CONFIG, W, repeated, (10, 1))],
           "lens": g.lens_case(g.forward_gpt2, g.unembed_gpt2, CONFIG, W, ids, 8),
           # the earlier "cat" replaced: nothing to copy, so the answer "sat" is lost
           "patch": g.patch_case(g.forward_gpt2, CONFIG, W, ids, ids[:2] + [3] + ids[3:], 8, 9, H, 2)}
    g.write(REFERENCE, g.dumps(doc) + "\n")
    size = sum(os.path.getsize(os.path.join(FOLDER, f)) for f in os.listdir(FOLDER))
    print(f"{FOLDER}: {size} bytes; patching: clean {doc['patch']['ld_clean']:.3f}, "
          f"corrupted {doc['patch']['ld_corrupted']:.3f}, heads {doc['patch']['heads']}")


if __name__ == "__main__":
    main()
