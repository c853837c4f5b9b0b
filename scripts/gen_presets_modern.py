#!/usr/bin/python3
"""Writes the presets of attention as today's models run it: assets/presets/modern-*.json.

    /usr/bin/python3 scripts/gen_presets_modern.py            # write them
    /usr/bin/python3 scripts/gen_presets_modern.py --check    # only check, write nothing

Each preset switches on one feature of a model of today on small, readable numbers, with notes
that say what changed since 2017 and what to try, and a lesson for the presenter. Weights are
drawn from a seeded NumPy generator and rounded to two decimals, so the files stay readable and
the same script writes the same bytes. Before a preset is written, the NumPy reference of
scripts/gen_fixtures_modern.py (independent of the C++ core) computes it and the script asserts
that it shows what its notes claim.
"""
import json
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_presets  # noqa: E402  (to_json_text: the presets' layout on disk)
from gen_fixtures_modern import alibi_slopes, reference  # noqa: E402

OUT_DIR = gen_presets.OUT_DIR
SENTENCE = ["The", "cat", "sat", "on", "the", "mat"]


def draw(seed, rows, cols, scale=0.6):
    return np.round(np.random.default_rng(seed).normal(0.0, scale, size=(rows, cols)), 2)


def spec_of(p):
    """The preset as the reference reads it: matrices as arrays."""
    s = {k: (np.array(v, dtype=float) if k in ("X", "Z", "W_q", "W_k", "W_v", "W_o", "b_q", "b_k", "b_v", "b_o") else v) for k, v in p.items()}
    if "heads" in p:
        s["heads"] = [{k: np.array(v, dtype=float) for k, v in h.items()} for h in p["heads"]]
    return s


def lesson(title, steps):
    return {"lesson": {"title": title, "steps": steps}}


def step(stage, caption, **extra):
    return dict({"stage": stage, "caption": caption}, **extra)


def preset_llama():
    d, H, G, dk = 8, 4, 2, 2
    p = {"format": "attnlab/1",
         "title": "Llama-style: 4 query heads sharing 2 K/V heads, RoPE, causal",
         "layout": "rows", "tokens": SENTENCE,
         "X": draw(140, 6, d).tolist(), "num_heads": H, "num_kv_heads": G,
         "W_q": draw(141, d, H * dk).tolist(), "W_k": draw(142, d, G * dk).tolist(),
         "W_v": draw(143, d, G * dk).tolist(), "W_o": draw(144, H * dk, d, 0.4).tolist(),
         "mask": "causal", "rope": {"style": "half", "base": 10000}}
    t = reference(spec_of(p))
    assert [h["kv_head"] for h in t["heads"]] == [0, 0, 1, 1]
    assert np.array_equal(t["heads"][0]["K"], t["heads"][1]["K"]) and not np.array_equal(t["heads"][1]["K"], t["heads"][2]["K"])
    assert not np.allclose(t["heads"][0]["Q_rot"][1:], t["heads"][0]["Q"][1:])  # every token but the first turns
    assert np.array_equal(t["heads"][0]["Q_rot"][0], t["heads"][0]["Q"][0])    # position 0 does not
    p["notes"] = (
        "What Llama 2 and 3, Mistral and most open models of today run, on numbers small enough to read. "
        "Two things changed since 2017's attention.\n\n"
        "Grouped-query attention (Ainslie et al., 2023). There are 4 query heads but only 2 key/value heads: "
        "heads 0 and 1 read the same K and V, heads 2 and 3 the other pair (Llama's repeat_kv). W_q is 8 x 8 "
        "(4 heads of d_k = 2), but W_k and W_v are only 8 x 4 (2 heads). Each query head still asks its own "
        "question, so the four weight patterns in the Heads panel differ; but a model generating text must keep "
        "every past token's K and V in memory, and here that K/V cache is 8 numbers per token instead of 16 "
        "(Setup shows it). Llama 3 70B shares each K/V head among 8 query heads.\n\n"
        "Rotary position embedding (RoPE, Su et al.). Nothing is added to X; instead each query and key is turned, "
        "pair by pair, by an angle that grows with its position: compare Q with Q_rot in the Pipeline (the first "
        "token, at position 0, does not move). The dot product of two turned vectors depends only on how far apart "
        "the tokens are, so the model learns relative positions. Hover a Q_rot cell: the Inspector draws the pair "
        "turning on a circle.\n\n"
        "Try: set K/V heads to 4 (plain multi-head attention) or 1 (multi-query) and watch the cache line; "
        "switch RoPE off in Setup > Positions and see which stages change (Q_rot and K_rot vanish, scores and "
        "weights move, V does not).")
    p["view"] = lesson("Grouped-query attention with RoPE", [
        step("inputs", "Six tokens, eight numbers each: 'The cat sat on the mat'."),
        step("Q", "Four query heads: each token asks four questions, two numbers each.", head=0),
        step("K", "Only two key heads. Heads 0 and 1 share this K; heads 2 and 3 share the other.", head=0),
        step("Q_rot", "RoPE turns each query by its position. Which row does not move?", head=0,
             predict=True, highlight=[[0, 0], [0, 1]]),
        step("K_rot", "The keys turn by their positions too, the same angles.", head=0),
        step("scores", "Turned queries against turned keys: only the distance between two tokens matters.", head=0),
        step("weights", "Causal: each token looks back only. Where does 'mat' look?", head=0, predict=True,
             highlight=[[5, 0], [5, 1], [5, 2], [5, 3], [5, 4], [5, 5]]),
        step("heads", "Four query heads, four patterns, though they share two K/V heads."),
        step("output", "W_o mixes the four heads back into eight numbers per token.")])
    return "modern-llama-gqa-rope.json", p


def preset_mqa():
    d, H, dk = 8, 4, 2
    p = {"format": "attnlab/1",
         "title": "MQA: 4 heads, one K/V head",
         "layout": "rows", "tokens": SENTENCE,
         "X": draw(150, 6, d).tolist(), "num_heads": H, "num_kv_heads": 1,
         "W_q": draw(151, d, H * dk).tolist(), "W_k": draw(152, d, dk).tolist(),
         "W_v": draw(153, d, dk).tolist(), "mask": "causal"}
    t = reference(spec_of(p))
    assert all(np.array_equal(h["K"], t["heads"][0]["K"]) and np.array_equal(h["V"], t["heads"][0]["V"]) for h in t["heads"])
    assert not np.allclose(t["heads"][0]["weights"], t["heads"][1]["weights"])
    p["notes"] = (
        "Multi-query attention (Shazeer, 2019; PaLM, Falcon): every query head shares one key head and one value "
        "head. W_q is 8 x 8 (4 heads of d_k = 2); W_k and W_v are 8 x 2.\n\n"
        "What to look at: K and V are the same in every head (select heads 0 to 3 in the Pipeline), but the "
        "queries differ, so the four weight patterns in the Heads panel still differ. The K/V cache a generating "
        "model keeps is 4 numbers per token instead of 16: a quarter of the memory, which is why long-context "
        "models share keys and values. The price is less freedom: all heads must find what they look for in the "
        "same keys.\n\n"
        "Try: K/V heads 2 (grouped-query, the compromise Llama 2 70B chose) or 4 (2017's multi-head attention).")
    p["view"] = lesson("One key/value head for four query heads", [
        step("inputs", "Six tokens, eight numbers each."),
        step("K", "The one key head every query head reads.", head=0),
        step("Q", "Each head's own queries: here head 0.", head=0),
        step("Q", "Head 1 asks something else of the same keys.", head=1),
        step("heads", "Will the four patterns be the same, since the keys are shared?", predict=True),
        step("concat", "Four heads' outputs side by side: mixes of the same values, weighted differently.")])
    return "modern-mqa-one-kv-head.json", p


def preset_mistral():
    tokens = ["the", "quick", "brown", "fox", "jumps", "over", "lazy", "dogs"]
    d = 4
    p = {"format": "attnlab/1",
         "title": "Mistral: sliding window 3 over 8 tokens",
         "layout": "rows", "tokens": tokens,
         "X": draw(160, 8, d).tolist(), "num_heads": 2,
         "W_q": draw(161, d, d).tolist(), "W_k": draw(162, d, d).tolist(), "W_v": draw(163, d, d).tolist(),
         "mask": {"causal": True, "window": 3}}
    t = reference(spec_of(p))
    w = t["heads"][0]["weights"]
    for i in range(8):
        for j in range(8):
            assert (w[i, j] > 0) == (i - 3 < j <= i), (i, j)
    p["notes"] = (
        "Sliding-window attention (Mistral 7B; Longformer, Beltagy et al. 2020): each token attends only to the "
        "last w = 3 positions, itself included, instead of every earlier one. The Mask panel marks the cells the "
        "window forbids with W, the causal ones with C.\n\n"
        "Why: full causal attention costs n^2 scores and a cache that grows with the text; a window costs n w and "
        "a fixed cache. Information still travels further than w: in the next layer a token reads tokens that "
        "had read theirs, so after k layers the reach is about k w (Mistral: 4096 x 32 layers).\n\n"
        "What to look at: in the weights, each row has at most three non-zero cells on and left of the diagonal; "
        "'dogs' never sees 'the'. Try: widen the window to 8 (it becomes plain causal attention), or turn causal "
        "off (a symmetric band, as in Longformer's local attention). Mistral also uses RoPE and grouped-query "
        "heads: see the Llama-style preset.")
    p["view"] = lesson("A sliding window of 3", [
        step("inputs", "Eight tokens."),
        step("masked", "Causal and a window of 3: which keys may 'dogs' see?", head=0, predict=True,
             highlight=[[7, 5], [7, 6], [7, 7]]),
        step("weights", "Each row spreads its attention over three keys at most.", head=0),
        step("heads", "Both heads obey the same window.")])
    return "modern-mistral-sliding-window.json", p


def preset_alibi():
    d, H = 8, 4
    p = {"format": "attnlab/1",
         "title": "ALiBi: 4 heads and their slopes",
         "layout": "rows", "tokens": SENTENCE,
         "X": draw(170, 6, d).tolist(), "num_heads": H,
         "W_q": draw(171, d, d).tolist(), "W_k": draw(172, d, d).tolist(), "W_v": draw(173, d, d).tolist(),
         "mask": "causal", "alibi": True}
    t = reference(spec_of(p))
    assert alibi_slopes(4) == [0.25, 0.0625, 0.015625, 0.00390625]
    assert alibi_slopes(1) == [1 / 256] and round(5 / 256, 2) == 0.02  # the notes' one-head case
    assert t["heads"][0]["bias"][5, 0] == -1.25 and t["heads"][3]["bias"][5, 0] == -5 * 0.00390625
    # The steep head attends closer: its weight on the first token is smaller than the flat head's.
    assert t["heads"][0]["weights"][5, 0] < t["heads"][3]["weights"][5, 0]
    p["notes"] = (
        "ALiBi, attention with linear biases (Press et al., 2022; BLOOM, MPT): no position is added to the tokens "
        "and nothing is rotated. Instead each head subtracts a penalty proportional to the distance, "
        "B[i, j] = -m |i - j|, from its scaled scores before the softmax.\n\n"
        "The slopes m are fixed, not learned: for 4 heads, 1/4, 1/16, 1/64 and 1/256 (2^(-8k/H)). Head 0 is "
        "short-sighted: a token 5 places back loses 1.25 of score. Head 3 barely notices distance (0.02). Compare "
        "the bias heatmaps of heads 0 and 3 in the Pipeline, and their weights in the Heads panel: head 0 keeps "
        "to its neighbours, head 3 looks far back.\n\n"
        "Because the penalty only grows with distance, a model trained on short texts still behaves on longer "
        "ones.\n\n"
        "Try: type your own slopes in Setup > Positions, one a head on one line (\"1 0.5 0.25 0\": a 0 slope is "
        "plain attention; empty the line for the paper's again), or shift the positions: ALiBi reads only their "
        "differences. With one head (Heads: 1) the paper's slope is 2^-8 = 1/256: a token 5 places back loses only "
        "0.02, and the weights hardly change; type a steeper slope such as 1 to see the penalty at work.")
    p["view"] = lesson("ALiBi: the farther, the lower", [
        step("inputs", "Six tokens."),
        step("scaled", "Head 0's scaled scores, before any position.", head=0),
        step("bias", "The penalty: slope 1/4 times the distance.", head=0),
        step("bias", "Head 3's slope is 1/256: how much does distance cost here?", head=3, predict=True,
             highlight=[[5, 0]]),
        step("weights", "Head 0 stays near the diagonal.", head=0),
        step("weights", "Head 3 looks far back.", head=3),
        step("heads", "Four slopes, four reaches.")])
    return "modern-alibi-slopes.json", p


def preset_sinusoidal():
    tokens = ["the", "cat", "saw", "the", "dog"]
    vocab = {"the": [0.5, -0.2, 0.3, 0.1], "cat": [-0.4, 0.6, 0.2, -0.3], "saw": [0.1, 0.1, -0.6, 0.4],
             "dog": [-0.3, 0.5, 0.4, -0.2]}
    p = {"format": "attnlab/1",
         "title": "Vaswani: sinusoidal positions",
         "layout": "rows", "tokens": tokens,
         "X": [vocab[w] for w in tokens], "positional_encoding": "sinusoidal"}
    t = reference(spec_of(p))
    without = reference(spec_of({k: v for k, v in p.items() if k != "positional_encoding"}))
    w0 = without["heads"][0]["weights"]
    assert np.allclose(w0[0], w0[3][[0, 1, 2, 3, 4]]) and np.array_equal(without["heads"][0]["output"][0], without["heads"][0]["output"][3])
    assert not np.allclose(t["heads"][0]["output"][0], t["heads"][0]["output"][3])
    assert np.allclose(t["X_pos"][0], np.array(vocab["the"]) + [0, 1, 0, 1])   # PE at position 0: sin 0, cos 0
    p["notes"] = (
        "The positional encoding of 'Attention Is All You Need' (Vaswani et al., 2017, section 3.5). Attention "
        "itself ignores order: without positions, the two 'the' tokens (the same embedding) get exactly the same "
        "output, wherever they stand. The fix of 2017 adds to each embedding a pattern of sines and cosines of its "
        "position, PE(p, 2i) = sin(p / 10000^(2i/d)), PE(p, 2i+1) = cos(p / 10000^(2i/d)), before the projections.\n\n"
        "What to look at: the Pipeline starts with X + PE. Position 0 adds [0, 1, 0, 1]; later positions add "
        "other patterns, fast-turning in the first coordinates, slow in the last. The projections are omitted "
        "(identities), so Q = K = V = X + PE and the numbers stay easy to follow. Now the two 'the' rows of the "
        "weights and of the output differ.\n\n"
        "Try: untick Sinusoidal encoding in Setup > Positions: rows 0 and 3 become identical. Today's models "
        "mostly rotate instead (RoPE) or penalise distance (ALiBi): see those presets.")
    p["view"] = lesson("Order through sines and cosines", [
        step("inputs", "'the' appears twice with the same four numbers."),
        step("X_pos", "Each token gets its position's pattern added: the two 'the' rows now differ.",
             highlight=[[0, 0], [3, 0]]),
        step("weights", "Do the two 'the' rows attend alike?", predict=True, highlight=[[0, 0], [3, 3]]),
        step("output", "Different positions, different outputs for the same word.")])
    return "modern-vaswani-sinusoidal.json", p


def preset_rope_relative():
    tokens = ["to", "be", "or", "not"]
    d = 4
    p = {"format": "attnlab/1",
         "title": "RoPE sees only relative positions",
         "layout": "rows", "tokens": tokens,
         "X": draw(180, 4, d).tolist(), "W_q": draw(181, d, d).tolist(), "W_k": draw(182, d, d).tolist(),
         "W_v": draw(183, d, d).tolist(), "positions": [100, 101, 102, 103], "rope": {}}
    here = reference(spec_of(p))
    start = reference(spec_of(dict(p, positions=[0, 1, 2, 3])))
    far = reference(spec_of(dict(p, positions=[5000, 5001, 5002, 5003])))
    for other in (start, far):
        err = np.abs(other["heads"][0]["scores"] - here["heads"][0]["scores"]).max()
        assert err < 1e-12, err
        assert np.abs(other["heads"][0]["Q_rot"] - here["heads"][0]["Q_rot"]).max() > 0.1
    p["notes"] = (
        "Why RoPE works: the same four tokens, 'to be or not', at positions 100 to 103, as if they continued a "
        "text of 100 tokens. Each query and key is turned by an angle proportional to its position. Turning q by "
        "p theta and k by c theta and taking their dot product gives the same number as turning q by (p - c) "
        "theta alone: only the distance p - c survives.\n\n"
        "Try: type positions 0 1 2 3 in Setup > Positions (or 5000 5001 5002 5003). Q_rot and K_rot change "
        "completely; the scores and weights do not change at all (to 1e-12). Then type 0 1 2 10: now the "
        "distances changed, and so do the scores.\n\n"
        "This is why a model with RoPE can continue a text from a cached prefix: the new tokens' attention does "
        "not depend on where the text began.")
    p["view"] = lesson("Shift every position: the scores stay", [
        step("inputs", "Four tokens at positions 100 to 103."),
        step("Q_rot", "Each query turned by 100, 101, 102 or 103 times its angles."),
        step("scores", "The scores. Now imagine the tokens at positions 0 to 3: what changes here?",
             predict=True),
        step("weights", "Type 0 1 2 3 in Positions and step back: Q_rot changes, these do not.")])
    return "modern-rope-relative-positions.json", p


def decode_cache(spec, prefill):
    """The KV cache a decoder holds after each step t = P .. n - 1 (docs/FORMAT.md): the keys j <= t
    that query t or a later one may still attend, from the NumPy reference's weights' mask."""
    allowed = np.isfinite(reference(spec)["heads"][0]["masked"])
    n = allowed.shape[0]
    return [[j for j in range(t + 1) if allowed[t:, j].any()] for t in range(prefill, n)]


def preset_kv_cache():
    tokens = ["<s>", "Once", "upon", "a", "time", "there", "was", "a", "tiny", "robot", "who", "dreamed"]
    d, H, G, dk = 8, 4, 2, 2
    p = {"format": "attnlab/1",
         "title": "KV cache with a sliding window and sinks: prefill 3, decode to 12",
         "layout": "rows", "tokens": tokens,
         "X": draw(170, 12, d).tolist(), "num_heads": H, "num_kv_heads": G,
         "W_q": draw(171, d, H * dk).tolist(), "W_k": draw(172, d, G * dk).tolist(),
         "W_v": draw(173, d, G * dk).tolist(), "W_o": draw(174, H * dk, d, 0.4).tolist(),
         "mask": {"causal": True, "window": 4, "sinks": 2}, "rope": {"style": "half", "base": 10000}}
    caches = decode_cache(spec_of(p), 3)
    assert caches[0] == [0, 1, 2, 3] and caches[-1] == [0, 1, 8, 9, 10, 11], caches
    assert max(len(c) for c in caches) == 6  # the window's 4 and the 2 sinks
    p["notes"] = (
        "How a model generating text computes attention: the KV cache, token by token (open the Decode tab "
        "beside the Pipeline).\n\n"
        "Prefill: the first 3 tokens are computed at once, like any attention. Then each new token is decoded "
        "alone: its query, key and value are computed (the key turned once by RoPE, at its own position), the "
        "key and value are appended to the cache, and the new query attends over what the cache holds. The row "
        "it produces is exactly row t of the full causal computation: the Decode view says so, with the "
        "difference.\n\n"
        "The cache: 4 query heads share 2 key/value heads (grouped-query attention), so there are two K and two "
        "V caches, each 2 numbers a token. A sliding window of 4 lets each query see only its 4 most recent "
        "tokens, so the cache evicts a key as soon as no later query can see it: watch the greyed columns. But "
        "the first 2 tokens are attention sinks (StreamingLLM, Xiao et al. 2024): they stay visible to every "
        "query and stay in the cache, so it never holds more than 4 + 2 = 6 tokens, however long the text.\n\n"
        "The lesson (View > Present) steps the same timeline: the prefill, token 3, token 6 evicting token 2, "
        "and token 11 with the sinks kept.\n\n"
        "Try: step with the arrow keys (hover the Decode view) or press Play; set sinks to 0 in the Mask panel "
        "(the cache becomes Mistral's rolling buffer of 4) or the window off (the cache grows with every token); "
        "set K/V heads to 4 or 1 and read the cache-size line: MHA, GQA and MQA side by side.")
    # The lesson's decode steps: token 6 evicts 2 (outside every later window), the sinks stay.
    assert caches[6 - 3] == [0, 1, 3, 4, 5, 6] and caches[5 - 3] == [0, 1, 2, 3, 4, 5], caches
    p["view"] = dict(lesson("The KV cache, token by token", [
        step("inputs", "Twelve tokens. The first 3 are prefilled at once; then one token at a time."),
        step("decode", "Prefill: tokens 0-2 at once. Their keys and values fill the cache of each K/V head.",
             prefill=3, head=0),
        step("decode", "Token 3 is decoded alone: one query, one new key and value appended.", prefill=3, token=3,
             head=0),
        step("decode", "Token 6: the window of 4 moves past token 2, which no later query can see. Which tokens "
                       "does the cache hold now?", prefill=3, token=6, head=0, predict=True),
        step("decode", "Token 11, the last: the cache holds the 2 sinks and the window of 4, never more than 6 "
                       "tokens however long the text.", prefill=3, token=11, head=0),
        step("masked", "Causal, a window of 4 and 2 sinks: which keys may 'dreamed' see?", head=0, predict=True,
             highlight=[[11, 0], [11, 1], [11, 8], [11, 9], [11, 10], [11, 11]]),
        step("weights", "Each row spreads its attention over the sinks and its window: the 6 keys its cache holds.",
             head=0),
        step("K", "The keys of K/V head 0: what the cache stores, 2 numbers a token.", head=0)]),
        decode={"prefill": 3})
    return "modern-kv-cache-window-sinks.json", p


def preset_sink_head():
    tokens = ["<s>", "the", "old", "lighthouse", "keeper", "watched", "the", "grey", "sea", "roll"]
    n, d = len(tokens), 4
    X = draw(180, n, d, 0.5)
    X[0] = [3.0, 0.0, 0.0, 0.0]  # the first token, like a BOS, stands apart
    X[1:, 0] = 0.0
    W_q, W_k = draw(181, d, 4), draw(182, d, 4)
    W_q[:, 0:2], W_k[:, 0:2] = 0.0, 0.0
    W_k[0, 0] = 2.0  # head 0 reads the first token's own direction: its key stands out
    W_k[0, 2:] = 0.0  # head 1 does not: its key of '<s>' is 0
    p = {"format": "attnlab/1",
         "title": "A sink head next to a window head",
         "layout": "rows", "tokens": tokens,
         "X": X.tolist(), "num_heads": 2,
         "W_q": W_q.tolist(), "W_k": W_k.tolist(), "W_v": draw(183, d, 4).tolist(),
         "b_q": [2.0, 0.0, 0.0, 0.0],
         "mask": {"causal": True, "window": 3, "sinks": 1}}
    t = reference(spec_of(p))
    first = [float(np.mean(h["weights"][3:, 0])) for h in t["heads"]]  # queries the window alone hides it from
    assert first[0] > 0.9 and first[1] < 0.35, first
    p["notes"] = (
        "Two heads under the same mask (causal, a window of 3, 1 sink), doing different things. Head 0 is a sink "
        "head: almost all of every query's attention goes to the first token, '<s>', whatever the query. Head 1 "
        "reads its window, the 3 most recent tokens.\n\n"
        "Why models do this: softmax must put its weight somewhere, even when a head has nothing to add. Trained "
        "models park that weight on the first token (Xiao et al. 2024 call it an attention sink), which is why "
        "a sliding-window cache that evicts the first token breaks them, and why StreamingLLM keeps it.\n\n"
        "What to look at: Head stats, measure 'weight on the first key': head 0 near 1, head 1 near 0. In the "
        "Heads panel, head 0's weights are one bright column. Try: set sinks to 0 in the Mask panel: from "
        "query 3 on, head 0 can no longer see '<s>' and its attention scatters over its window.")
    p["view"] = lesson("A sink head next to a window head", [
        step("heads", "Two heads, one mask. Which one is the sink head?", predict=True),
        step("weights", "Head 0: every query parks its weight on '<s>'.", head=0),
        step("weights", "Head 1: a window of the 3 most recent tokens.", head=1)])
    return "modern-sink-head.json", p


def write_presets(builds, only_check, script):
    """Writes (or with only_check compares) each build()'s (file name, preset) in assets/presets."""
    for build in builds:
        name, p = build()
        p["notes"] = re.sub(r" +\n", "\n", p["notes"]).strip()
        text = gen_presets.to_json_text(p)
        assert text.isascii(), f"{name}: keep the text ASCII (the window's default font)"
        assert json.loads(text) == json.loads(json.dumps(p)), f"{name}: JSON text does not round-trip"
        path = os.path.join(OUT_DIR, name)
        if only_check:
            with open(path, encoding="utf-8") as f:
                assert f.read() == text, f"{path} is stale: rerun {script}"
            print(f"up to date: {path}")
        else:
            with open(path, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
            print(f"wrote {path}")


def main(argv):
    write_presets((preset_llama, preset_mqa, preset_mistral, preset_alibi, preset_sinusoidal, preset_rope_relative,
                   preset_kv_cache, preset_sink_head), "--check" in argv, "scripts/gen_presets_modern.py")


if __name__ == "__main__":
    main(sys.argv[1:])
