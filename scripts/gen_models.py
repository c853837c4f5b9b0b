#!/usr/bin/python3
"""Tiny random Hugging Face model folders and their independent forward-pass references, for the
tests of models/ (tests/models/, issue 24).

    python3 scripts/gen_models.py      # rewrites tests/fixtures/models/* (same bytes every run)

(A python3 without NumPy/PyTorch, e.g. pyenv's, re-runs the script with /usr/bin/python3.)

No real model can be downloaded here, so this script writes small folders shaped exactly as
Hugging Face ships them (config.json key names, safetensors tensor names, shapes and prefixes,
sharded index files, the two tokenizer formats), with random weights of a fixed seed; six for
GPT-2, Llama and Qwen2, then the family folders described further down:

  gpt2-f32            GPT-2, F32, one model.safetensors without prefix (as openai-community/gpt2),
                      the attention's causal-mask buffer h.{i}.attn.bias stored as F32 [1,1,P,P]
                      (an extra tensor the reader must ignore), vocab.json + merges.txt, and the
                      original minimal config.json (no n_inner / scale_attn_weights / tie keys:
                      their defaults apply).
  gpt2-f16-sharded    GPT-2, F16, two shards + model.safetensors.index.json, every name with the
                      `transformer.` prefix, attn.bias as U8 and attn.masked_bias as a 0-d tensor
                      (old checkpoints' buffers), a config.json as save_pretrained writes it.
  llama-gqa-bf16      Llama, BF16, 4 query heads / 2 KV heads, head_dim 8 given explicitly
                      (d_model 24, so H head_dim = 32 != d_model), untied lm_head; tokenizer.json in
                      Llama 3's form: Split(regex, Isolated) + ByteLevel(use_regex false), merges as
                      ["a", "b"] pairs, ignore_merges true, post-processor Sequence[ByteLevel,
                      TemplateProcessing] putting <|begin_of_text|> first; specials only in
                      added_tokens, after the vocabulary; one vocabulary entry ("Ġlazy") that no
                      merge reaches, so ignore_merges decides the encode case "the lazy dog".
  llama-mqa-f32       Llama, F32, d 18, 3 query heads / 1 KV head (MQA), no head_dim key, tied
                      embeddings, rope_theta 500000; tokenizer.json in SmolLM2's form: Digits
                      (individual) + ByteLevel(use_regex true), merges as "a b" strings, specials at
                      ids 0-2 inside model.vocab, ByteLevel post-processor (no BOS).
  qwen2-f32           Qwen2, F32, q/k/v biases (no o bias), 4 heads / 2 KV heads, tied; tokenizer.json
                      in Qwen2's form: NFC normalizer, Split(regex, Isolated) + ByteLevel(use_regex
                      false), added tokens <|endoftext|> <|im_start|> <|im_end|>; vocab_size padded
                      past the tokenizer (as Qwen2's 151936 > 151665), so the top ids have no token.
  qwen2-bf16-sharded  Qwen2, BF16, two shards, 2 heads / 2 KV heads (G = H), untied lm_head.

The tokenizers are one small byte-level BPE learned here: the 256 byte symbols of GPT-2's
bytes_to_unicode table plus MERGES merges learned greedily from CORPUS (most frequent pair, ties
by the smaller pair). The tokenizer.json regexes use ASCII classes (Python's `re` has no \\p{L});
vocab.json / ByteLevel(use_regex true) imply GPT-2's own \\p{L}/\\p{N} regex, which the Python
reference emulates with [^\\W\\d_] / \\d (exact for the texts used, which are ASCII plus Latin-1
letters).

Each folder gets reference.json, computed in torch float64 from the weights READ BACK from the
written safetensors files (so F16/BF16 references use the rounded weights), by the published
architectures (written here, sharing nothing with attnlab's C++):

  {"cases": [{"ids": [...], "text": "..." (only for a case from text; ids include the BOS),
              "layers": [{"attn_in": n x d, "attn_out": n x d,
                          "heads": [{"weights": n x n} per query head]} per layer],
              "next": [{"id", "p"} x 5, p descending],
              "head_off": {"layer", "head", "next"},   query head's output zeroed before W_o
              "replaced": {"layer", "next"}}],         that layer's attention output set to 0
   "encode": [{"text", "ids"}]}                        tokenizer-only expectations

The cases of each model: its text(s), one list of ids (n 6-9, with special ids, and for Qwen2
the padded ids past the tokenizer), and one single token; head_off / replaced take the layer and
head (last, last), (0, 1), (1, 0) and the layer 0, last, 0 in that order.
attn_in is the normalised input of the layer (ln_1 / input_layernorm), attn_out the attention
block's contribution to the residual stream (after the output projection and its bias).
At the end the script checks itself: softmax rows, causal zeros, the GQA head mapping against an
explicit per-head loop, RoPE against the complex-number form, the per-head decomposition of
attn_out, torch.nn.functional's layer_norm / gelu(tanh) / silu against the written formulas, the
tokenizers' round trip, and the safetensors files against an independent parse.
Family folders (build_family_models, forward_family; the same reference.json schema). For them:
attn_in is exactly what the attention module receives (after its pre-norm; OLMo 2 has none: the
residual stream itself), attn_out the attention module's output (after o_proj / dense and its bias,
BEFORE any post-attention norm Gemma or OLMo 2 apply), "replaced" sets that output to zero (the
post-norms then see zero, as in HF), and each case has "logits_last", the last position's full
logits after any final softcap (written when vocab_size < 512, as here). No case is one token, and
every case is longer than its folder's sliding window. Masks follow transformers' masking_utils:
a sliding row q sees keys k with q - window < k <= q (its own position and window - 1 before it).
Tokenizer folders' texts are encoded with the tiny byte-level BPE above; SentencePiece families
ship no tokenizer files (cases as ids). Weights are named exactly as HF's checkpoints (no prefix
beyond the names shown). Reference math in float64 on the stored (rounded) weights.

  llama3-rope-f32     llama (Llama 3.2 1B's config keys), F32, d 24, 4 heads / 2 KV, head_dim 8
                      (H*head_dim 32 != d), rope_theta 500000, rope_scaling {rope_type llama3,
                      factor 32, low_freq_factor 1, high_freq_factor 4,
                      original_max_position_embeddings 8192}: the 4 frequencies have wavelengths
                      6.3 and 167 (kept), 4443 (smoothed), 118000 (divided by 32), asserted.
                      Tied (no lm_head.weight). model.embed_tokens / model.layers.{i}.
                      {input_layernorm, self_attn.{q,k,v,o}_proj, post_attention_layernorm,
                      mlp.{gate,up,down}_proj} / model.norm. Llama 3 tokenizer.json (as
                      llama-gqa-bf16). Cases: text (6 ids with BOS), ids (8).
  llama-linear-f32    llama, F32, d 16, 2 heads / 1 KV, no head_dim key, rope_theta 10000,
                      rope_scaling {rope_type linear, factor 4.0} (inv_freq / 4), untied lm_head.
                      Llama 3 tokenizer.json. Cases: text (6), ids (7).
  pythia-f16          gpt_neox (Pythia-70m's config keys), F16, d 32, 2 heads (head 16),
                      rotary_pct 0.25 (RoPE on the first 4 dims of each head, rotate_half within
                      those 4, the other 12 pass), rotary_emb_base 10000, use_parallel_residual
                      true: x + attn(ln1(x)) + mlp(ln2(x)); LayerNorm with bias (layer_norm_eps),
                      hidden_act gelu (erf), untied. Tensors: gpt_neox.embed_in.weight,
                      gpt_neox.layers.{i}.{input_layernorm,post_attention_layernorm}.{weight,bias},
                      .attention.query_key_value.{weight [3d, d], bias} (output rows per head h:
                      [q_h | k_h | v_h], each head_size wide: HF views the output as
                      (n, H, 3 * head_size) and chunks the last dim), .attention.dense.{weight,bias},
                      .mlp.dense_h_to_4h.{weight,bias}, .mlp.dense_4h_to_h.{weight,bias},
                      gpt_neox.final_layer_norm.{weight,bias}, embed_out.weight. vocab_size 384
                      padded past the 358 tokens. GPT-NeoX-20B's tokenizer.json form (NFC,
                      ByteLevel use_regex true, <|endoftext|> 0 and <|padding|> 1 in the vocab,
                      no BOS). Cases: text (6), ids (7).
  gpt-neox-sequential-f16  as pythia-f16 with use_parallel_residual false (a = x + attn(ln1(x));
                      a + mlp(ln2(a))) and 4 heads (head 8, 2 rotary dims). Cases: text (4), ids (8).
  qwen3-bf16          qwen3 (Qwen3-0.6B's keys), BF16, d 16, 4 heads / 2 KV, head_dim 8
                      (H*head_dim 32 != d), self_attn.q_norm.weight / k_norm.weight [head_dim]:
                      RMSNorm of each head's q / k (weight w, not 1 + w) before RoPE; no biases;
                      rope_theta 1000000; tied; use_sliding_window false. Qwen2 tokenizer.json.
                      Cases: text (10), ids (7, with the top padded id).
  gemma2-f32          gemma2 (gemma-2-2b's keys; F32 as gemma-2-2b ships), d 24, 4 heads / 2 KV,
                      head_dim 8, query_pre_attn_scalar 6 (scaling 6**-0.5, not head_dim's; as
                      gemma-2-27b's 144 with head_dim 128), attn_logit_softcapping 50 (scores *
                      scaling, then 50 tanh(s / 50), then the mask), final_logit_softcapping 30,
                      sliding_window 4 on layers 0 and 2, full on layer 1 (no layer_types key: HF
                      makes layer i sliding when (i + 1) % 2, i.e. the first layer slides),
                      RMSNorm x rsqrt(mean x^2 + eps) (1 + w), four norms per layer
                      (input_layernorm, post_attention_layernorm, pre_feedforward_layernorm,
                      post_feedforward_layernorm), embeddings * float32(sqrt(24)), MLP
                      down(gelu_tanh(gate) * up), tied. No tokenizer. Cases: ids (7), ids (8).
  gemma3-text-bf16    gemma3_text (gemma-3-270m / 1b keys), BF16, d 24, 4 heads / 1 KV, head_dim 8,
                      query_pre_attn_scalar 8, layer_types [sliding, sliding, full] (given, as
                      270M's config; _sliding_window_pattern 3), sliding_window 4, RoPE base
                      rope_local_base_freq 10000 on sliding layers and rope_theta 1000000 on the
                      full one, self_attn.q_norm / k_norm [head_dim] with (1 + w) before RoPE, no
                      softcaps (null), embeddings * bf16(float32(sqrt(24))) = 4.90625, otherwise
                      as gemma2. No tokenizer. Cases: ids (8), ids (6).
  mistral-f32         mistral (Mistral-7B-v0.1's keys), F32, d 16, 4 heads / 2 KV, sliding_window 3
                      on every layer, untied. No tokenizer. Cases: ids (7), ids (9).
  smollm3-f32         smollm3 (SmolLM3-3B's keys), F32, d 16, 4 heads / 2 KV, 4 layers,
                      no_rope_layers [1, 1, 1, 0] (HF: use_rope = no_rope_layers[layer]: 1 = RoPE,
                      0 = no RoPE at all: the last layer), no_rope_layer_interval 4,
                      rope_theta 5000000, use_sliding_window false, tied. Llama 3's vocabulary in
                      a tokenizer.json with a ByteLevel post-processor (bos_token_id null: no BOS).
                      Cases: text (4), ids (7).
  olmo2-f32           olmo2 (OLMo-2-0425-1B's keys), F32, d 16, 4 heads / 4 KV, no input norms;
                      per layer self_attn.{q,k,v,o}_proj, self_attn.q_norm.weight [H*head_dim] and
                      k_norm.weight [G*head_dim] (RMSNorm over the whole projected width, before
                      the head split and RoPE), post_attention_layernorm and
                      post_feedforward_layernorm on the block outputs inside the residual
                      (x + norm(attn(x)), x + norm(mlp(x))), mlp.{gate,up,down}_proj;
                      rope_theta 500000; untied. tokenizer.json with Llama 3's split regex,
                      <|endoftext|> <|pad|> after the vocabulary, no BOS. Cases: text (10), ids (7).
  phi3-longrope-f32   phi3 (Phi-4-mini-instruct's keys), F32, d 32, 4 heads / 2 KV (head 8, no
                      head_dim key), partial_rotary_factor 0.75 (RoPE on the first 6 dims),
                      rope_scaling {type longrope, short_factor [1, 1.25, 1.5], long_factor
                      [1, 3, 12.5]}, original_max_position_embeddings 8, max_position_embeddings
                      256: inv_freq_j = 1 / (ext_j theta^(2j/6)), ext = long_factor when the
                      sequence length (max position + 1) > 8, short_factor otherwise; cos and sin
                      both times sqrt(1 + ln(256/8) / ln 8) = 1.633 (all lengths, short too).
                      sliding_window 262144 (as Phi-4-mini: no effect here). Fused
                      self_attn.qkv_proj.weight [(H + 2G) head, d] (rows q | k | v) and
                      mlp.gate_up_proj.weight [2 I, d] (rows gate | up: down(up * silu(gate))).
                      Tied. No tokenizer. Cases: ids 5 and 8 (short factors; 8 = the boundary)
                      and 9 (long factors).

The family self-checks: softmax rows, zeros exactly outside the causal / sliding mask and
positive inside it, each query head recomputed on its own (scale, softcap, mask) against its
K head, the attention softcap bound (|s| < cap) and its effect, the final softcap bound and
effect, the per-head decomposition of attn_out, RoPE against the complex form with frequencies
computed a second time one scalar at a time (llama3's three branches all taken, longrope's short
and long sets both used, attention factor, pass-through dims unchanged, NoPE layers untouched),
GPT-NeoX's parallel residual against the sequential one (different logits).
"""

import hashlib
import json
import math
import os
import re
import struct
import sys
import unicodedata

try:
    import numpy as np
    import torch
except ImportError:  # a pyenv/virtualenv python3 without them: use Debian's, which has both
    if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") and \
            os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.exit("gen_models.py needs NumPy and PyTorch (Debian: apt-get install python3-numpy python3-torch)")

torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                     "tests", "fixtures", "models"))
MERGES = 100

# --------------------------------------------------------------------------------------------
# Byte-level BPE (GPT-2's bytes_to_unicode, greedy merges), the reference tokenizer.
# --------------------------------------------------------------------------------------------

def bytes_to_unicode():
    """GPT-2's table: printable bytes map to themselves, the others to U+0100 and up."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("\xa1"), ord("\xac") + 1)) + \
        list(range(ord("\xae"), ord("\xff") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return list(zip(bs, [chr(c) for c in cs]))  # in GPT-2's id order


BYTE_TABLE = bytes_to_unicode()
BYTE_TO_CHAR = dict(BYTE_TABLE)
CHAR_TO_BYTE = {c: b for b, c in BYTE_TABLE}

# GPT-2's pattern: 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
# in Python's re: \p{L} ~ [^\W\d_], \p{N} ~ \d, [^\s\p{L}\p{N}] ~ [^\s\w]|_ (exact on our texts).
GPT2_PATTERN = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[^\W\d_]+| ?\d+| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+""")
# Llama 3's and Qwen2's patterns with \p{L} -> [A-Za-z], \p{N} -> [0-9]: these are what the
# tokenizer.json files say, so the C++ (PCRE2) and Python run the same regex.
LLAMA3_REGEX = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\nA-Za-z0-9]?[A-Za-z]+|[0-9]{1,3}"
                r"| ?[^\sA-Za-z0-9]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN2_REGEX = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\nA-Za-z0-9]?[A-Za-z]+|[0-9]"
               r"| ?[^\sA-Za-z0-9]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")

CORPUS = """\
The cat sat on the mat. The dog sat on the log. A cat and a dog are friends, and they sit in
the sun. Attention is all you need: the model reads the tokens and attends to the ones that
matter. In 2024 there were 366 days; in 2023 there were 365. It's the end of the day, and we're
here to see the words the model writes. They'll say the cat is on the mat, and the dog is in
the house. Where is the cat? The cat is there, on the mat, in the sun. Hello world! Hello
there, my friend. The quick brown fox jumps over the lazy dog, then the fox rests.
The dog is in the house, my friend, and the cat is on the mat. Where is the house? Hello there.
"""


def learn_merges(corpus, count):
    words = {}
    for piece in GPT2_PATTERN.findall(corpus):
        w = tuple(BYTE_TO_CHAR[b] for b in piece.encode("utf-8"))
        words[w] = words.get(w, 0) + 1
    merges = []
    for _ in range(count):
        pairs = {}
        for w, c in words.items():
            for a, b in zip(w, w[1:]):
                pairs[(a, b)] = pairs.get((a, b), 0) + c
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        merged = {}
        for w, c in words.items():
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and (w[i], w[i + 1]) == best:
                    out.append(w[i] + w[i + 1])
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            merged[tuple(out)] = merged.get(tuple(out), 0) + c
        words = merged
    return merges


def split_isolated(pattern, text):
    """tokenizers' Split(Regex, behavior Isolated): matches and the gaps between them, in order."""
    out, last = [], 0
    for m in re.finditer(pattern, text):
        if m.start() > last:
            out.append(text[last:m.start()])
        if m.end() > m.start():
            out.append(m.group(0))
        last = m.end()
    if last < len(text):
        out.append(text[last:])
    return out


class RefTokenizer:
    """Byte-level BPE as tokenizers runs it: added tokens split out first (never normalised), then
    normaliser, pre-tokenizer, byte mapping, BPE by merge rank; the post-processor's BOS first."""

    def __init__(self, vocab, merges, pre, normalize=None, added=(), bos=None, ignore_merges=False):
        self.vocab = vocab                      # token string -> id (the BPE model's vocabulary)
        self.ranks = {m: i for i, m in enumerate(merges)}
        self.pre = pre                          # text -> list of pieces (not yet byte-mapped)
        self.normalize = normalize or (lambda s: s)
        self.added = dict(added)                # content -> id
        self.bos = bos
        self.ignore_merges = ignore_merges
        self.id_to_token = {i: t for t, i in vocab.items()}
        self.id_to_token.update({i: t for t, i in self.added.items()})

    def bpe(self, word):
        if self.ignore_merges and word in self.vocab:
            return [word]
        parts = list(word)
        while len(parts) > 1:
            ranked = [(self.ranks.get((a, b), math.inf), i) for i, (a, b) in enumerate(zip(parts, parts[1:]))]
            rank, i = min(ranked)
            if rank == math.inf:
                break
            parts[i:i + 2] = [parts[i] + parts[i + 1]]
        return parts

    def encode(self, text):
        ids = [self.bos] if self.bos is not None else []
        segments = [text]
        if self.added:
            alt = "|".join(re.escape(s) for s in sorted(self.added, key=lambda s: (-len(s), s)))
            segments = split_isolated(alt, text)
        for seg in segments:
            if seg in self.added:
                ids.append(self.added[seg])
                continue
            for piece in self.pre(self.normalize(seg)):
                mapped = "".join(BYTE_TO_CHAR[b] for b in piece.encode("utf-8"))
                ids.extend(self.vocab[t] for t in self.bpe(mapped))
        return ids

    def decode(self, ids):
        out = bytearray()
        for i in ids:
            t = self.id_to_token[i]
            if i in self.added.values():
                out += t.encode("utf-8")
            else:
                out += bytes(CHAR_TO_BYTE[c] for c in t)
        return out.decode("utf-8")


def pre_gpt2(text):
    return GPT2_PATTERN.findall(text)


def pre_llama3(text):
    return split_isolated(LLAMA3_REGEX, text)


def pre_qwen2(text):
    return split_isolated(QWEN2_REGEX, text)


def pre_smollm2(text):
    """Sequence[Digits(individual_digits), ByteLevel(use_regex true)]."""
    out = []
    for piece in split_isolated(r"[0-9]", text):
        out.extend(GPT2_PATTERN.findall(piece))
    return out


def bpe_vocab(merges, offset=0):
    """Byte symbols in GPT-2's id order from `offset`, then each merge's result."""
    vocab = {}
    for _, c in BYTE_TABLE:
        vocab[c] = offset + len(vocab)
    for a, b in merges:
        assert a + b not in vocab
        vocab[a + b] = offset + len(vocab)
    return vocab


def added_entry(i, content):
    return {"id": i, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
            "normalized": False, "special": True}


def byte_level(add_prefix_space, trim_offsets, use_regex):
    return {"type": "ByteLevel", "add_prefix_space": add_prefix_space, "trim_offsets": trim_offsets,
            "use_regex": use_regex}


def tokenizer_json(added, normalizer, pre_tokenizer, post_processor, decoder, vocab, merges,
                   merges_as_pairs, ignore_merges, none_affixes):
    model = {"type": "BPE", "dropout": None, "unk_token": None,
             "continuing_subword_prefix": None if none_affixes else "",
             "end_of_word_suffix": None if none_affixes else "",
             "fuse_unk": False, "byte_fallback": False, "ignore_merges": ignore_merges,
             "vocab": vocab,
             "merges": [[a, b] for a, b in merges] if merges_as_pairs else [f"{a} {b}" for a, b in merges]}
    doc = {"version": "1.0", "truncation": None, "padding": None,
           "added_tokens": [added_entry(i, c) for c, i in added],
           "normalizer": normalizer, "pre_tokenizer": pre_tokenizer, "post_processor": post_processor,
           "decoder": decoder, "model": model}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


# --------------------------------------------------------------------------------------------
# safetensors, written and read back (independently of attnlab).
# --------------------------------------------------------------------------------------------

def to_bf16_bits(a32):
    """float32 -> bfloat16 bit patterns, round to nearest even (no NaNs here)."""
    bits = np.ascontiguousarray(a32, dtype="<f4").view("<u4").astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype("<u2")


def encode_tensor(array, dtype):
    a = np.asarray(array)
    if dtype == "F32":
        return a.astype("<f4").tobytes()
    if dtype == "F16":
        return a.astype("<f2").tobytes()
    if dtype == "BF16":
        return to_bf16_bits(a.astype(np.float32)).tobytes()
    if dtype == "U8":
        return a.astype("u1").tobytes()
    raise ValueError(dtype)


def safetensors_bytes(tensors):
    """tensors: name -> (dtype, np array). Header keys and data in name order, contiguous."""
    header = {"__metadata__": {"format": "pt"}}
    blobs, offset = [], 0
    for name in sorted(tensors):
        dtype, array = tensors[name]
        blob = encode_tensor(array, dtype)
        header[name] = {"dtype": dtype, "shape": list(np.shape(array)), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs), offset


def read_safetensors(path):
    """An independent parse: name -> float64 numpy array (U8 kept as uint8)."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    assert n % 8 == 0, path
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    data = raw[8 + n:]
    out, end_max = {}, 0
    for name, e in header.items():
        if name == "__metadata__":
            continue
        b, e_ = e["data_offsets"]
        chunk = data[b:e_]
        count = int(np.prod(e["shape"])) if e["shape"] else 1
        if e["dtype"] == "F32":
            a = np.frombuffer(chunk, "<f4").astype(np.float64)
        elif e["dtype"] == "F16":
            a = np.frombuffer(chunk, "<f2").astype(np.float64)
        elif e["dtype"] == "BF16":
            a = (np.frombuffer(chunk, "<u2").astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        elif e["dtype"] == "U8":
            a = np.frombuffer(chunk, "u1").copy()
        else:
            raise ValueError(e["dtype"])
        assert a.size == count, name
        out[name] = (e["dtype"], a.reshape(e["shape"]))
        end_max = max(end_max, e_)
    assert end_max == len(data), f"{path}: trailing bytes"
    return out


# --------------------------------------------------------------------------------------------
# Random weights with Hugging Face's names and shapes.
# --------------------------------------------------------------------------------------------

class Rand:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def normal(self, shape, std):
        return (self.rng.standard_normal(shape) * std).astype(np.float32)

    def norm_weight(self, n):
        return (1.0 + self.rng.standard_normal(n) * 0.1).astype(np.float32)


def gpt2_weights(c, r):
    d, P, V, L = c["n_embd"], c["n_positions"], c["vocab_size"], c["n_layer"]
    inner = c.get("n_inner") or 4 * d
    w = {"wte.weight": r.normal((V, d), 0.3), "wpe.weight": r.normal((P, d), 0.1)}
    for i in range(L):
        p = f"h.{i}."
        w[p + "ln_1.weight"] = r.norm_weight(d)
        w[p + "ln_1.bias"] = r.normal(d, 0.1)
        w[p + "attn.c_attn.weight"] = r.normal((d, 3 * d), 0.3)   # Conv1D: x W + b, columns q | k | v
        w[p + "attn.c_attn.bias"] = r.normal(3 * d, 0.1)
        w[p + "attn.c_proj.weight"] = r.normal((d, d), 0.3)
        w[p + "attn.c_proj.bias"] = r.normal(d, 0.1)
        w[p + "ln_2.weight"] = r.norm_weight(d)
        w[p + "ln_2.bias"] = r.normal(d, 0.1)
        w[p + "mlp.c_fc.weight"] = r.normal((d, inner), 0.3)
        w[p + "mlp.c_fc.bias"] = r.normal(inner, 0.1)
        w[p + "mlp.c_proj.weight"] = r.normal((inner, d), 0.3)
        w[p + "mlp.c_proj.bias"] = r.normal(d, 0.1)
    w["ln_f.weight"] = r.norm_weight(d)
    w["ln_f.bias"] = r.normal(d, 0.1)
    return w


def llama_weights(c, r):
    d, V, L = c["hidden_size"], c["vocab_size"], c["num_hidden_layers"]
    H, G = c["num_attention_heads"], c["num_key_value_heads"]
    dh = c.get("head_dim") or d // H
    m = c["intermediate_size"]
    bias = c["model_type"] == "qwen2"
    w = {"model.embed_tokens.weight": r.normal((V, d), 0.3)}
    for i in range(L):
        p = f"model.layers.{i}."
        w[p + "input_layernorm.weight"] = r.norm_weight(d)
        w[p + "self_attn.q_proj.weight"] = r.normal((H * dh, d), 0.3)   # nn.Linear: x W^T + b
        w[p + "self_attn.k_proj.weight"] = r.normal((G * dh, d), 0.3)
        w[p + "self_attn.v_proj.weight"] = r.normal((G * dh, d), 0.3)
        if bias:
            w[p + "self_attn.q_proj.bias"] = r.normal(H * dh, 0.2)
            w[p + "self_attn.k_proj.bias"] = r.normal(G * dh, 0.2)
            w[p + "self_attn.v_proj.bias"] = r.normal(G * dh, 0.2)
        w[p + "self_attn.o_proj.weight"] = r.normal((d, H * dh), 0.3)
        w[p + "post_attention_layernorm.weight"] = r.norm_weight(d)
        w[p + "mlp.gate_proj.weight"] = r.normal((m, d), 0.3)
        w[p + "mlp.up_proj.weight"] = r.normal((m, d), 0.3)
        w[p + "mlp.down_proj.weight"] = r.normal((d, m), 0.3)
    w["model.norm.weight"] = r.norm_weight(d)
    if not c["tie_word_embeddings"]:
        w["lm_head.weight"] = r.normal((V, d), 0.3)
    return w


# --------------------------------------------------------------------------------------------
# The reference forward passes (torch float64), from the published architectures.
# --------------------------------------------------------------------------------------------

def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + eps) * w + b


def rms_norm(x, w, eps):
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * w


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def silu(x):
    return x / (1.0 + torch.exp(-x))


def causal_softmax(scores):
    n = scores.shape[-1]
    allowed = torch.ones(n, n, dtype=torch.bool).tril()
    return torch.softmax(scores.masked_fill(~allowed, -math.inf), dim=-1)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rope_cos_sin(n, dh, theta):
    inv_freq = 1.0 / (theta ** (torch.arange(0, dh, 2, dtype=torch.float64) / dh))
    freqs = torch.outer(torch.arange(n, dtype=torch.float64), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def top5(logits):
    p = torch.softmax(logits, dim=-1)
    vals, idx = torch.sort(p, descending=True, stable=True)
    return [{"id": int(i), "p": float(v)} for i, v in zip(idx[:5], vals[:5])]


def patch_residual(x, i, patch_resid):
    """The residual stream entering layer i with row `pos` replaced when patch_resid = (i, pos, row)."""
    if patch_resid is not None and patch_resid[0] == i:
        x = x.clone()
        x[patch_resid[1]] = patch_resid[2]
    return x


def patch_head(o, i, patch_z):
    """The heads' outputs o (H, n, dh) of layer i with head h's replaced when patch_z = (i, h, z)."""
    if patch_z is not None and patch_z[0] == i:
        o = o.clone()
        o[patch_z[1]] = patch_z[2]
    return o


def forward_gpt2(c, W, ids, zero_head=None, replace=None, patch_z=None, patch_resid=None):
    d, H, L = c["n_embd"], c["n_head"], c["n_layer"]
    dh, eps, n = d // H, c["layer_norm_epsilon"], len(ids)
    x = W["wte.weight"][ids] + W["wpe.weight"][:n]
    layers = []
    for i in range(L):
        p = f"h.{i}."
        x = patch_residual(x, i, patch_resid)
        resid_pre = x
        a = layer_norm(x, W[p + "ln_1.weight"], W[p + "ln_1.bias"], eps)
        qkv = a @ W[p + "attn.c_attn.weight"] + W[p + "attn.c_attn.bias"]
        q, k, v = (t.reshape(n, H, dh).transpose(0, 1) for t in qkv.split(d, dim=1))
        weights = causal_softmax(q @ k.transpose(-1, -2) / math.sqrt(dh))
        o = weights @ v                                   # H, n, dh
        if zero_head is not None and zero_head[0] == i:
            o = o.clone()
            o[zero_head[1]] = 0.0
        o = patch_head(o, i, patch_z)
        merged = o.transpose(0, 1).reshape(n, d)
        out = merged @ W[p + "attn.c_proj.weight"] + W[p + "attn.c_proj.bias"]
        layers.append({"attn_in": a, "attn_out": out, "weights": weights, "o": o, "v": v, "q": q, "k": k,
                       "resid_pre": resid_pre})
        if replace is not None and replace[0] == i:
            out = replace[1]
        x = x + out
        m = layer_norm(x, W[p + "ln_2.weight"], W[p + "ln_2.bias"], eps)
        x = x + gelu_new(m @ W[p + "mlp.c_fc.weight"] + W[p + "mlp.c_fc.bias"]) @ W[p + "mlp.c_proj.weight"] \
            + W[p + "mlp.c_proj.bias"]
        layers[-1]["resid_post"] = x
    x = layer_norm(x, W["ln_f.weight"], W["ln_f.bias"], eps)
    return layers, x[-1] @ W["wte.weight"].T


def unembed_gpt2(c, W, x):
    """Every row of a residual stream through ln_f and the tied unembedding: n x vocab logits."""
    return layer_norm(x, W["ln_f.weight"], W["ln_f.bias"], c["layer_norm_epsilon"]) @ W["wte.weight"].T


def forward_llama(c, W, ids, zero_head=None, replace=None, patch_z=None, patch_resid=None):
    d, H, G, L = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"], c["num_hidden_layers"]
    dh, eps, n = c.get("head_dim") or d // H, c["rms_norm_eps"], len(ids)
    cos, sin = rope_cos_sin(n, dh, c["rope_theta"])
    x = W["model.embed_tokens.weight"][ids]
    layers = []
    for i in range(L):
        p = f"model.layers.{i}."
        x = patch_residual(x, i, patch_resid)
        resid_pre = x
        a = rms_norm(x, W[p + "input_layernorm.weight"], eps)

        def proj(name, heads):
            t = a @ W[p + f"self_attn.{name}.weight"].T
            if p + f"self_attn.{name}.bias" in W:
                t = t + W[p + f"self_attn.{name}.bias"]
            return t.reshape(n, heads, dh).transpose(0, 1)

        q, k, v = proj("q_proj", H), proj("k_proj", G), proj("v_proj", G)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        rep = H // G                                       # repeat_kv: head h reads K/V head h // rep
        k_rep = k[:, None].expand(G, rep, n, dh).reshape(H, n, dh)
        v_rep = v[:, None].expand(G, rep, n, dh).reshape(H, n, dh)
        weights = causal_softmax(q @ k_rep.transpose(-1, -2) / math.sqrt(dh))
        o = weights @ v_rep
        if zero_head is not None and zero_head[0] == i:
            o = o.clone()
            o[zero_head[1]] = 0.0
        o = patch_head(o, i, patch_z)
        out = o.transpose(0, 1).reshape(n, H * dh) @ W[p + "self_attn.o_proj.weight"].T
        layers.append({"attn_in": a, "attn_out": out, "weights": weights, "o": o, "q": q, "k": k, "v": v,
                       "resid_pre": resid_pre})
        if replace is not None and replace[0] == i:
            out = replace[1]
        x = x + out
        m = rms_norm(x, W[p + "post_attention_layernorm.weight"], eps)
        x = x + (silu(m @ W[p + "mlp.gate_proj.weight"].T) * (m @ W[p + "mlp.up_proj.weight"].T)) \
            @ W[p + "mlp.down_proj.weight"].T
        layers[-1]["resid_post"] = x
    x = rms_norm(x, W["model.norm.weight"], eps)
    head = W["lm_head.weight"] if "lm_head.weight" in W else W["model.embed_tokens.weight"]
    return layers, x[-1] @ head.T


def unembed_llama(c, W, x):
    """Every row of a residual stream through the final RMSNorm and the LM head: n x vocab logits."""
    head = W["lm_head.weight"] if "lm_head.weight" in W else W["model.embed_tokens.weight"]
    return rms_norm(x, W["model.norm.weight"], c["rms_norm_eps"]) @ head.T


# --------------------------------------------------------------------------------------------
# Output.
# --------------------------------------------------------------------------------------------

def dumps(obj, indent=0):
    """JSON with one matrix row per line, floats as repr (shortest round-trip form)."""
    pad, pad1 = "  " * indent, "  " * (indent + 1)

    def scalar(v):
        if isinstance(v, float):
            assert math.isfinite(v)
            return repr(v)
        return json.dumps(v, ensure_ascii=False)

    if isinstance(obj, dict):
        items = [f"{pad1}{json.dumps(k)}: {dumps(v, indent + 1)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list):
        if all(not isinstance(v, (list, dict)) for v in obj):
            return "[" + ", ".join(scalar(v) for v in obj) + "]"
        return "[\n" + ",\n".join(pad1 + dumps(v, indent + 1) for v in obj) + "\n" + pad + "]"
    return scalar(obj)


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(path, "wb") as f:
        f.write(data)


def write_json(path, obj):
    """As transformers' save_pretrained writes config.json and the index: indent 2, sorted keys."""
    write(path, json.dumps(obj, indent=2, sort_keys=True) + "\n")


def write_weights(folder, tensors, shards, prefix):
    """tensors: name (without prefix) -> (dtype, array); shards: None or a name -> shard index."""
    full = {prefix + k: v for k, v in tensors.items()}
    if shards is None:
        blob, _ = safetensors_bytes(full)
        write(os.path.join(folder, "model.safetensors"), blob)
        return ["model.safetensors"]
    names = [f"model-{s + 1:05d}-of-00002.safetensors" for s in range(2)]
    weight_map, total = {}, 0
    for s in range(2):
        part = {prefix + k: v for k, v in tensors.items() if shards(k) == s}
        blob, size = safetensors_bytes(part)
        total += size
        write(os.path.join(folder, names[s]), blob)
        weight_map.update({k: names[s] for k in part})
    write_json(os.path.join(folder, "model.safetensors.index.json"),
               {"metadata": {"total_size": total}, "weight_map": weight_map})
    return names


def load_weights(folder, files, prefix):
    """Reads the files back (independent parse) into float64 torch tensors without the prefix."""
    W, raw = {}, {}
    for f in files:
        for name, (dtype, a) in read_safetensors(os.path.join(folder, f)).items():
            assert name.startswith(prefix), name
            raw[name[len(prefix):]] = (dtype, a)
            if dtype != "U8":
                W[name[len(prefix):]] = torch.from_numpy(np.ascontiguousarray(a, dtype=np.float64))
    return W, raw


def mat(t):
    return [[float(v) for v in row] for row in t]


# --------------------------------------------------------------------------------------------
# The models.
# --------------------------------------------------------------------------------------------

def shard_by_layer(first_layers):
    """Embeddings and layers < first_layers in shard 0, the rest (final norm, lm_head) in shard 1."""
    def which(name):
        m = re.match(r"(?:h|model\.layers)\.(\d+)\.", name)
        if m:
            return 0 if int(m.group(1)) < first_layers else 1
        return 0 if ("wte" in name or "wpe" in name or "embed_tokens" in name) else 1
    return which


def build_models(merges):
    models = []

    # a / b: GPT-2, vocab.json + merges.txt; <|endoftext|> is the last id, as in GPT-2.
    vocab = bpe_vocab(merges)
    eot = len(vocab)
    gpt2_vocab = dict(vocab)
    gpt2_vocab["<|endoftext|>"] = eot
    gpt2_tok = RefTokenizer(vocab, merges, pre_gpt2)
    gpt2_files = {
        "vocab.json": json.dumps(gpt2_vocab, separators=(", ", ": ")),  # one line, \u escapes, as GPT-2's
        "merges.txt": "#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in merges),
    }
    models.append(dict(
        name="gpt2-f32", arch="gpt2", dtype="F32", prefix="", shards=None, seed=1001,
        config={  # openai-community/gpt2's own config.json: no n_inner, scale_attn_weights, tie keys
            "activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"], "attn_pdrop": 0.1,
            "bos_token_id": eot, "embd_pdrop": 0.1, "eos_token_id": eot, "initializer_range": 0.02,
            "layer_norm_epsilon": 1e-05, "model_type": "gpt2", "n_ctx": 32, "n_embd": 16, "n_head": 2,
            "n_layer": 2, "n_positions": 32, "resid_pdrop": 0.1, "summary_activation": None,
            "summary_first_dropout": 0.1, "summary_proj_to_labels": True, "summary_type": "cls_index",
            "summary_use_proj": True,
            "task_specific_params": {"text-generation": {"do_sample": True, "max_length": 50}},
            "vocab_size": eot + 1},
        buffers="f32", tok=gpt2_tok, tok_files=gpt2_files,
        texts=["The cat sat on the mat."],
        encode=["Hello world!", "It's 2024, and we're here.", "naïve café", "  two  spaces\nnew line ",
                "they'll say: 365 days"],
        ids_case=[5, 300, 17, eot, 256, 99, 331]))
    models.append(dict(
        name="gpt2-f16-sharded", arch="gpt2", dtype="F16", prefix="transformer.", shards=shard_by_layer(1),
        seed=1002,
        config={  # as save_pretrained writes it (every key)
            "_name_or_path": "attnlab/tiny-gpt2", "activation_function": "gelu_new",
            "architectures": ["GPT2LMHeadModel"], "attn_pdrop": 0.1, "bos_token_id": eot, "embd_pdrop": 0.1,
            "eos_token_id": eot, "initializer_range": 0.02, "layer_norm_epsilon": 1e-05, "model_type": "gpt2",
            "n_ctx": 48, "n_embd": 24, "n_head": 4, "n_inner": None, "n_layer": 2, "n_positions": 48,
            "reorder_and_upcast_attn": False, "resid_pdrop": 0.1, "scale_attn_by_inverse_layer_idx": False,
            "scale_attn_weights": True, "summary_activation": None, "summary_first_dropout": 0.1,
            "summary_proj_to_labels": True, "summary_type": "cls_index", "summary_use_proj": True,
            "tie_word_embeddings": True, "torch_dtype": "float16", "transformers_version": "4.46.3",
            "use_cache": True, "vocab_size": eot + 1},
        buffers="u8", tok=gpt2_tok, tok_files=gpt2_files,
        texts=["Hello there, my friend."],
        encode=["Where is the cat?"],
        ids_case=[eot, 12, 300, 44, 70, 259, 3]))

    # c: Llama 3 style tokenizer; specials after the vocabulary, only in added_tokens. One extra
    # vocabulary entry no merge leads to, "Ġlazy": with ignore_merges (true, as Llama 3's) " lazy" is
    # that one token; without it, BPE splits it (the "encode" case "the lazy dog").
    vocab = bpe_vocab(merges)
    assert "\u0120lazy" not in vocab
    vocab["\u0120lazy"] = len(vocab)
    specials = ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"]
    added = [(s, len(vocab) + i) for i, s in enumerate(specials)]
    bos = added[0][1]
    llama3_tok = RefTokenizer(vocab, merges, pre_llama3, added=added, bos=bos, ignore_merges=True)
    template = {
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
        "pair": [{"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                 {"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 1}}, {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {"<|begin_of_text|>": {"id": "<|begin_of_text|>", "ids": [bos], "tokens": ["<|begin_of_text|>"]}}}
    llama3_json = tokenizer_json(
        added, None,
        {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": LLAMA3_REGEX}, "behavior": "Isolated", "invert": False},
            byte_level(False, True, False)]},
        {"type": "Sequence", "processors": [byte_level(True, False, True), template]},
        byte_level(True, True, True), vocab, merges, merges_as_pairs=True, ignore_merges=True, none_affixes=True)
    V = len(vocab) + len(specials)
    TOKENIZERS["llama3"] = (llama3_tok, llama3_json, V)
    models.append(dict(
        name="llama-gqa-bf16", arch="llama", dtype="BF16", prefix="", shards=None, seed=1003,
        config={
            "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
            "bos_token_id": bos, "eos_token_id": bos + 1, "head_dim": 8, "hidden_act": "silu", "hidden_size": 24,
            "initializer_range": 0.02, "intermediate_size": 48, "max_position_embeddings": 64, "mlp_bias": False,
            "model_type": "llama", "num_attention_heads": 4, "num_hidden_layers": 2, "num_key_value_heads": 2,
            "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_scaling": None, "rope_theta": 10000.0,
            "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.46.3",
            "use_cache": True, "vocab_size": V},
        tok=llama3_tok, tok_files={"tokenizer.json": llama3_json},
        texts=["The dog is in the house."],
        encode=["the lazy dog", "12345 apples", "(hello) world", "HE'S here, isn't he?", "a\n\nb", "<|eot_id|>end"],
        ids_case=[bos, 70, 300, 9, V - 1, 258]))

    # d: SmolLM2 style: specials at ids 0-2 inside model.vocab, Digits + ByteLevel(use_regex true).
    smol_specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    vocab = {s: i for i, s in enumerate(smol_specials)}
    vocab.update(bpe_vocab(merges, offset=len(smol_specials)))
    added = [(s, i) for i, s in enumerate(smol_specials)]
    smol_tok = RefTokenizer(vocab, merges, pre_smollm2, added=added)
    smol_json = tokenizer_json(
        added, None,
        {"type": "Sequence", "pretokenizers": [{"type": "Digits", "individual_digits": True},
                                               byte_level(False, True, True)]},
        byte_level(True, False, True), byte_level(True, True, True), vocab, merges,
        merges_as_pairs=False, ignore_merges=False, none_affixes=True)
    V = len(vocab)
    models.append(dict(
        name="llama-mqa-f32", arch="llama", dtype="F32", prefix="", shards=None, seed=1004,
        config={
            "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
            "bos_token_id": 0, "eos_token_id": 0, "hidden_act": "silu", "hidden_size": 18,
            "initializer_range": 0.041666666666666664, "intermediate_size": 32, "is_llama_config": True,
            "max_position_embeddings": 64, "mlp_bias": False, "model_type": "llama", "num_attention_heads": 3,
            "num_hidden_layers": 2, "num_key_value_heads": 1, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
            "rope_interleaved": False, "rope_scaling": None, "rope_theta": 500000.0, "tie_word_embeddings": True,
            "torch_dtype": "float32", "transformers_version": "4.46.3", "use_cache": True, "vocab_size": V},
        tok=smol_tok, tok_files={"tokenizer.json": smol_json},
        texts=["The cat is 12."],
        encode=["<|im_start|>user", "In 2024 it rained.", "x=123", "Hello world!", "  spaces  "],
        ids_case=[0, 1, 40, 303, 7, 2, V - 1]))

    # e / f: Qwen2 style: NFC, Split + ByteLevel(use_regex false), specials after the vocabulary.
    vocab = bpe_vocab(merges)
    q_specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    added = [(s, len(vocab) + i) for i, s in enumerate(q_specials)]
    qwen_tok = RefTokenizer(vocab, merges, pre_qwen2, normalize=lambda s: unicodedata.normalize("NFC", s),
                            added=added)
    qwen_json = tokenizer_json(
        added, {"type": "NFC"},
        {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": QWEN2_REGEX}, "behavior": "Isolated", "invert": False},
            byte_level(False, False, False)]},
        byte_level(False, False, False), byte_level(False, False, False), vocab, merges,
        merges_as_pairs=False, ignore_merges=False, none_affixes=False)
    n_tok = len(vocab) + len(q_specials)
    V = (n_tok + 31) // 32 * 32  # padded, as Qwen2's embedding (151936 rows for 151665 tokens)
    TOKENIZERS["qwen2"] = (qwen_tok, qwen_json, V)
    eos = added[0][1]
    qwen_common = {
        "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": eos,
        "eos_token_id": eos, "hidden_act": "silu", "initializer_range": 0.02,
        "max_position_embeddings": 64, "model_type": "qwen2", "num_hidden_layers": 2, "rms_norm_eps": 1e-06,
        "rope_theta": 1000000.0, "transformers_version": "4.46.3", "use_cache": True,
        "use_sliding_window": False, "vocab_size": V}
    models.append(dict(
        name="qwen2-f32", arch="qwen2", dtype="F32", prefix="", shards=None, seed=1005,
        config=dict(qwen_common, hidden_size=16, intermediate_size=32, num_attention_heads=4,
                    num_key_value_heads=2, max_window_layers=2, sliding_window=4096, tie_word_embeddings=True,
                    torch_dtype="float32"),
        tok=qwen_tok, tok_files={"tokenizer.json": qwen_json},
        texts=["<|im_start|>user\nHello there!"],
        encode=["cafe\u0301 au lait", "caf\u00e9 au lait", "It's 365 DAYS", "a\r\nb  c",
                "<|im_end|><|endoftext|>"],
        ids_case=[added[1][1], 70, 5, 300, 260, 14, 99, 2]))
    models.append(dict(
        name="qwen2-bf16-sharded", arch="qwen2", dtype="BF16", prefix="", shards=shard_by_layer(1), seed=1006,
        config=dict(qwen_common, hidden_size=24, intermediate_size=48, num_attention_heads=2,
                    num_key_value_heads=2, max_window_layers=28, sliding_window=64, rope_scaling=None,
                    tie_word_embeddings=False, torch_dtype="bfloat16"),
        tok=qwen_tok, tok_files={"tokenizer.json": qwen_json},
        texts=["Where is the cat?"],
        encode=["Hello world!"],
        ids_case=[11, 300, n_tok - 1, V - 1, 50, 64]))
    assert all(m["config"]["vocab_size"] >= max(m["ids_case"]) + 1 for m in models)
    return models


def reference_case(forward, c, W, ids, text, ci, H, L):
    """One case of reference.json: the forward pass's layers and prediction, then the same ids with a
    head zeroed and with a layer's attention output replaced by zeros (which ones rotates with ci)."""
    layers, logits = forward(c, W, ids)
    case = {"ids": list(ids)}
    if text is not None:
        case["text"] = text
    case["layers"] = [{"attn_in": mat(l["attn_in"]), "attn_out": mat(l["attn_out"]),
                       "heads": [{"weights": mat(l["weights"][h])} for h in range(H)]} for l in layers]
    case["next"] = top5(logits)
    hl, hh = [(L - 1, H - 1), (0, 1 % H), (1 % L, 0)][ci % 3]
    _, lo = forward(c, W, ids, zero_head=(hl, hh))
    case["head_off"] = {"layer": hl, "head": hh, "next": top5(lo)}
    rl = [0, L - 1, 0][ci % 3]
    d = layers[0]["attn_in"].shape[1]
    _, lo = forward(c, W, ids, replace=(rl, torch.zeros(len(ids), d)))
    case["replaced"] = {"layer": rl, "next": top5(lo)}
    return case, layers, logits


# --------------------------------------------------------------------------------------------
# Issue 39's instruments (instruments.json of the folders INSTRUMENTED names), in float64 from the
# same definitions as docs/MODELS.md, written here without anything of attnlab's C++:
#   head scores   of weights w (H x n x n): previous-token mean_{i>=1} w[i, i-1]; first-token
#                 mean_i w[i, 0]; duplicate-token mean over the i with an earlier t_j = t_i of
#                 sum_{j<i, t_j=t_i} w[i, j]; induction (R tokens repeated from position f) mean over
#                 i in [f+R, f+2R) of w[i, i-R+1]; local span mean_i sum_j w[i, j] (i - j);
#                 null where the set of queries is empty.
#   logit lens    each layer's outgoing residual stream through the final norm and the unembedding,
#                 softmax per position: the top id and its p, and p of a chosen id.
#   patching      LD = logit(answer) - logit(wrong) at the last position; per layer x head the
#                 corrupted run with that head's output (before W_o, every position) from the clean
#                 run, per layer x position the corrupted run with the residual stream entering the
#                 layer at that position from the clean run; (LD - LD_corrupted) / (LD_clean - LD_corrupted).
# --------------------------------------------------------------------------------------------

INSTRUMENTED = ("gpt2-f32", "llama-gqa-bf16", "qwen2-f32")


def head_scores(weights, ids, repeat=None):
    """One layer's scores: {name: [score per head or None]} for weights H x n x n."""
    H, n, _ = weights.shape
    t = torch.tensor(ids)
    earlier_same = ((t[:, None] == t[None, :]) & torch.ones(n, n, dtype=torch.bool).tril(-1)).double()
    has_earlier = earlier_same.sum(-1) > 0
    distance = (torch.arange(n)[:, None] - torch.arange(n)[None, :]).double().clamp(min=0)
    none = [None] * H
    scores = {
        "previous_token": weights.diagonal(-1, dim1=1, dim2=2).mean(-1).tolist() if n > 1 else none,
        "first_token": weights[:, :, 0].mean(-1).tolist(),
        "duplicate_token": (weights * earlier_same).sum(-1)[:, has_earlier].mean(-1).tolist()
        if bool(has_earlier.any()) else none,
        "induction": none,
        "local_span": (weights * distance).sum(-1).mean(-1).tolist(),
    }
    if repeat is not None:
        R, first = repeat
        stripe = weights.diagonal(-(R - 1), dim1=1, dim2=2)   # stripe[h, k] = w[h, k + R - 1, k]
        scores["induction"] = stripe[:, first + 1:first + R + 1].mean(-1).tolist()
    return scores


def head_scores_case(forward, c, W, ids, repeat=None):
    layers, _ = forward(c, W, ids)
    per_layer = [head_scores(l["weights"], ids, repeat) for l in layers]
    case = {"ids": list(ids)}
    if repeat is not None:
        case["repeat"] = {"length": repeat[0], "first": repeat[1]}
    case["scores"] = {name: [s[name] for s in per_layer] for name in per_layer[0]}
    return case


def lens_case(forward, unembed, c, W, ids, chosen):
    layers, logits = forward(c, W, ids)
    out = []
    for l in layers:
        p = torch.softmax(unembed(c, W, l["resid_post"]), dim=-1)
        top_p, top_id = p.max(dim=-1)
        out.append({"top_id": top_id.tolist(), "top_p": top_p.tolist(), "chosen_p": p[:, chosen].tolist()})
    # after the last layer the lens is the model's own prediction
    assert torch.allclose(unembed(c, W, layers[-1]["resid_post"])[-1], logits, atol=1e-10)
    return {"ids": list(ids), "chosen": chosen, "layers": out}


def patch_case(forward, c, W, clean, corrupted, answer, wrong, H, L):
    def ld(logits):
        return float(logits[answer] - logits[wrong])

    clean_layers, clean_logits = forward(c, W, clean)
    ld_clean, ld_corrupted = ld(clean_logits), ld(forward(c, W, corrupted)[1])
    span = ld_clean - ld_corrupted
    heads = [[(ld(forward(c, W, corrupted, patch_z=(l, h, clean_layers[l]["o"][h]))[1]) - ld_corrupted) / span
              for h in range(H)] for l in range(L)]
    positions = [[(ld(forward(c, W, corrupted, patch_resid=(l, i, clean_layers[l]["resid_pre"][i]))[1])
                   - ld_corrupted) / span for i in range(len(clean))] for l in range(L)]
    # patching every position of layer 0's input restores the clean run exactly
    full = forward(c, W, corrupted, patch_resid=(0, slice(None), clean_layers[0]["resid_pre"]))[1]
    assert abs(ld(full) - ld_clean) < 1e-9
    return {"clean": list(clean), "corrupted": list(corrupted), "answer": answer, "wrong": wrong,
            "ld_clean": ld_clean, "ld_corrupted": ld_corrupted, "heads": heads, "positions": positions}


def instruments(forward, unembed, c, W, ids, bos, vocab, H, L, seed):
    """instruments.json of one folder: scores on `ids` and on a repeated random sequence, the lens on
    `ids`, patching `ids` against `ids` with two tokens replaced (answer: the clean top token, wrong:
    the corrupted run's top token other than it)."""
    rng = np.random.default_rng(seed)
    R = 5
    drawn = [int(v) for v in rng.choice([v for v in range(vocab) if v != bos], size=R, replace=False)]
    repeated = ([bos] if bos is not None else []) + drawn + drawn
    corrupted = list(ids)
    corrupted[1], corrupted[-2] = (corrupted[1] + 7) % vocab, (corrupted[-2] + 11) % vocab
    _, clean_logits = forward(c, W, ids)
    _, corrupted_logits = forward(c, W, corrupted)
    answer = int(clean_logits.argmax())
    order = [int(v) for v in corrupted_logits.argsort(descending=True)]
    wrong = order[0] if order[0] != answer else order[1]
    return {"heads": [head_scores_case(forward, c, W, ids),
                      head_scores_case(forward, c, W, repeated, (R, 1 if bos is not None else 0))],
            "lens": lens_case(forward, unembed, c, W, ids, wrong),
            "patch": patch_case(forward, c, W, ids, corrupted, answer, wrong, H, L)}


def make_model(spec):
    folder = os.path.join(ROOT, spec["name"])
    c = spec["config"]
    r = Rand(spec["seed"])
    if spec["arch"] == "gpt2":
        weights = gpt2_weights(c, r)
        tensors = {k: (spec["dtype"], v) for k, v in weights.items()}
        P = c["n_positions"]
        tril = np.tril(np.ones((P, P))).reshape(1, 1, P, P)
        for i in range(c["n_layer"]):
            if spec["buffers"] == "f32":
                tensors[f"h.{i}.attn.bias"] = ("F32", tril.astype(np.float32))
            else:
                tensors[f"h.{i}.attn.bias"] = ("U8", tril.astype(np.uint8))
                tensors[f"h.{i}.attn.masked_bias"] = ("F16", np.array(-1e4, dtype=np.float32))
        forward = forward_gpt2
        H, G, L = c["n_head"], c["n_head"], c["n_layer"]
    else:
        weights = llama_weights(c, r)
        tensors = {k: (spec["dtype"], v) for k, v in weights.items()}
        forward = forward_llama
        H, G, L = c["num_attention_heads"], c["num_key_value_heads"], c["num_hidden_layers"]
    # a fresh folder: nothing stale left behind
    if os.path.isdir(folder):
        for f in os.listdir(folder):
            os.remove(os.path.join(folder, f))
    write_json(os.path.join(folder, "config.json"), c)
    for fname, text in spec["tok_files"].items():
        write(os.path.join(folder, fname), text)
    files = write_weights(folder, tensors, spec["shards"], spec["prefix"])
    W, raw = load_weights(folder, files, spec["prefix"])
    assert set(raw) == set(tensors)
    for k, (dtype, a) in tensors.items():   # the read-back equals what was meant, rounded as stored
        expect = np.asarray(a, dtype=np.float64) if dtype in ("F32", "U8") else None
        if dtype == "F16":
            expect = np.asarray(a).astype(np.float16).astype(np.float64)
        if dtype == "BF16":
            expect = torch.from_numpy(np.asarray(a, dtype=np.float32)).to(torch.bfloat16).double().numpy()
        assert raw[k][0] == dtype and np.array_equal(raw[k][1].astype(np.float64), expect), k

    tok = spec["tok"]
    cases = []
    inputs = [(t, tok.encode(t)) for t in spec["texts"]] + [(None, spec["ids_case"]), (None, [spec["ids_case"][1]])]
    for ci, (text, ids) in enumerate(inputs):
        case, layers, logits = reference_case(forward, c, W, ids, text, ci, H, L)
        self_check_case(spec, c, W, ids, layers, logits, H, G)
        cases.append(case)
    encode = []
    for t in spec["encode"]:
        ids = tok.encode(t)
        encode.append({"text": t, "ids": ids})
    for t in spec["texts"] + spec["encode"]:   # round trip, without the BOS the post-processor adds
        ids = tok.encode(t)
        if tok.bos is not None:
            assert ids[0] == tok.bos
            ids = ids[1:]
        norm = unicodedata.normalize("NFC", t) if spec["arch"] == "qwen2" else t
        assert tok.decode(ids) == norm, (t, tok.decode(ids))
    write(os.path.join(folder, "reference.json"), dumps({"cases": cases, "encode": encode}) + "\n")
    if spec["name"] in INSTRUMENTED:
        unembed = unembed_gpt2 if spec["arch"] == "gpt2" else unembed_llama
        doc = instruments(forward, unembed, c, W, cases[0]["ids"], tok.bos, c["vocab_size"], H, L, spec["seed"])
        write(os.path.join(folder, "instruments.json"), dumps(doc) + "\n")
    return folder, inputs, encode


# --------------------------------------------------------------------------------------------
# Families beyond GPT-2 / Llama / Qwen2 (the "family" specs): one forward pass with the options
# each Hugging Face modeling file has. Which file and which lines each option follows:
#
#   RoPE inverse frequencies: transformers/modeling_rope_utils.py,
#     _compute_default_rope_parameters (dim = int(head_dim * partial_rotary_factor), head_dim from
#       config.head_dim else hidden_size // num_attention_heads; inv = 1 / base^(arange(0, dim, 2) / dim)),
#     _compute_linear_scaling_rope_parameters (inv /= factor),
#     _compute_llama3_parameters (wavelen = 2 pi / inv; wavelen < orig / high_freq_factor: kept;
#       wavelen > orig / low_freq_factor: inv / factor; otherwise smooth = (orig / wavelen - low) /
#       (high - low), (1 - smooth) inv / factor + smooth inv),
#     _compute_longrope_parameters (factor = max_position_embeddings / original_max_position_embeddings
#       when config has original_max_position_embeddings; attention_factor = sqrt(1 + ln factor /
#       ln original_max) unless given; ext = long_factor if seq_len > original_max else short_factor;
#       inv = 1 / (ext * base^(arange(0, dim, 2) / dim))),
#     dynamic_rope_update.longrope_frequency_update (seq_len = max(position_ids) + 1; the long
#       inverse frequencies when seq_len > original_max_position_embeddings, the short ones otherwise),
#     and every *RotaryEmbedding.forward: cos = cos(cat(freqs, freqs)) * attention_scaling, same for sin.
#   Masks: transformers/masking_utils.py causal_mask_function (kv_idx <= q_idx) and
#     sliding_window_overlay (kv_idx > q_idx - sliding_window): a sliding row sees its own
#     position and the sliding_window - 1 before it.
# The per-family notes are in forward_family.
# --------------------------------------------------------------------------------------------

def fam_dims(c):
    d, H = c["hidden_size"], c["num_attention_heads"]
    G = c.get("num_key_value_heads") or H
    dh = c.get("head_dim") or d // H
    return d, H, G, dh, c["num_hidden_layers"]


def fam_rope(c, layer, n):
    """None for a layer without RoPE, else (inv_freq, attention_scaling, rotary dim, rope kind)."""
    mt = c["model_type"]
    _, _, _, dh, _ = fam_dims(c)
    if mt == "smollm3" and not c["no_rope_layers"][layer]:
        return None      # modeling_smollm3.py SmolLM3Attention: self.use_rope = config.no_rope_layers[layer_idx]
    if mt == "gpt_neox":  # configuration_gpt_neox.py: rotary_pct -> partial_rotary_factor, rotary_emb_base -> rope_theta
        base, partial, scaling = c["rotary_emb_base"], c["rotary_pct"], None
    elif mt == "gemma3_text" and c["layer_types"][layer] == "sliding_attention":
        base, partial, scaling = c["rope_local_base_freq"], 1.0, None   # modeling_gemma3.py rotary_emb_local
    else:
        base, partial, scaling = c["rope_theta"], c.get("partial_rotary_factor", 1.0), c.get("rope_scaling")
    dim = int(dh * partial)
    shape = torch.arange(0, dim, 2, dtype=torch.float64) / dim
    inv = 1.0 / base ** shape
    att = 1.0
    kind = "default" if scaling is None else scaling.get("rope_type", scaling.get("type"))
    if kind == "linear":
        inv = inv / scaling["factor"]
    elif kind == "llama3":
        factor, lo, hi = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
        old = scaling["original_max_position_embeddings"]
        wavelen = 2 * math.pi / inv
        out = torch.where(wavelen > old / lo, inv / factor, inv)
        smooth = (old / wavelen - lo) / (hi - lo)
        smoothed = (1 - smooth) * out / factor + smooth * out
        medium = ~(wavelen < old / hi) & ~(wavelen > old / lo)
        inv = torch.where(medium, smoothed, out)
    elif kind == "longrope":
        orig = c["original_max_position_embeddings"]
        factor = c["max_position_embeddings"] / orig
        att = scaling.get("attention_factor")
        if att is None:
            att = 1.0 if factor <= 1.0 else math.sqrt(1 + math.log(factor) / math.log(orig))
        ext = scaling["long_factor"] if n > orig else scaling["short_factor"]
        inv = 1.0 / (torch.tensor(ext, dtype=torch.float64) * base ** shape)
    else:
        assert kind == "default", kind
    return inv, att, dim, kind


def apply_rope(x, rope):
    """x: heads, n, dh. rotate_half on the first `dim` dims (partial rotary: Phi3 / GPT-NeoX
    apply_rotary_pos_emb cat([(x_rot * cos) + (rotate_half(x_rot) * sin), x_pass]))."""
    if rope is None:
        return x
    inv, att, dim, _ = rope
    n = x.shape[-2]
    freqs = torch.outer(torch.arange(n, dtype=torch.float64), inv)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos() * att, emb.sin() * att
    xr = x[..., :dim]
    return torch.cat((xr * cos + rotate_half(xr) * sin, x[..., dim:]), dim=-1)


def fam_window(c, layer):
    """The sliding window of a layer, or None (full causal)."""
    mt = c["model_type"]
    if mt == "gemma2":
        # modeling_gemma2.py / configuration_gemma2.py: layer_types default
        # ["sliding_attention" if bool((i + 1) % 2) else "full_attention"] (older: sliding when
        # not bool(layer_idx % 2)): layer 0, 2, ... sliding, 1, 3, ... full.
        types = c.get("layer_types") or ["sliding_attention" if (i + 1) % 2 else "full_attention"
                                         for i in range(c["num_hidden_layers"])]
        return c["sliding_window"] if types[layer] == "sliding_attention" else None
    if mt == "gemma3_text":
        return c["sliding_window"] if c["layer_types"][layer] == "sliding_attention" else None
    if mt in ("mistral", "phi3"):   # every layer gets the window when config.sliding_window is set
        return c.get("sliding_window")
    if mt in ("qwen3", "smollm3"):
        assert not c.get("use_sliding_window")
    return None


def gelu_erf(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def softcap(x, cap):
    return x if cap is None else torch.tanh(x / cap) * cap


def embed_scale(c):
    """Gemma: hidden_size**0.5 cast to the weights' dtype (Gemma2Model.forward: normalizer =
    torch.tensor(hidden_size**0.5, dtype=hidden_states.dtype); Gemma3TextScaledWordEmbedding:
    embed_scale.to(self.weight.dtype))."""
    dt = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[c["torch_dtype"]]
    if c["model_type"] == "gemma2":     # torch.tensor(hidden_size**0.5, dtype=hidden dtype): one rounding
        return float(torch.tensor(c["hidden_size"] ** 0.5, dtype=dt).double())
    # Gemma 3: the buffer torch.tensor(embed_scale) is float32, then .to(weight dtype): two roundings
    return float(torch.tensor(c["hidden_size"] ** 0.5, dtype=torch.float32).to(dt).double())


def family_weights(c, r):
    mt = c["model_type"]
    d, H, G, dh, L = fam_dims(c)
    V = c["vocab_size"]
    m = c["intermediate_size"]
    gemma = mt in ("gemma2", "gemma3_text")
    nw = (lambda k: r.normal(k, 0.1)) if gemma else r.norm_weight    # Gemma stores w of (1 + w)
    sq = 0.6 if mt == "gemma2" else 0.3                            # larger scores: the softcap bites
    w = {}
    if mt == "gpt_neox":
        w["gpt_neox.embed_in.weight"] = r.normal((V, d), 0.3)
        for i in range(L):
            p = f"gpt_neox.layers.{i}."
            w[p + "input_layernorm.weight"] = r.norm_weight(d)
            w[p + "input_layernorm.bias"] = r.normal(d, 0.1)
            w[p + "post_attention_layernorm.weight"] = r.norm_weight(d)
            w[p + "post_attention_layernorm.bias"] = r.normal(d, 0.1)
            w[p + "attention.query_key_value.weight"] = r.normal((3 * d, d), 0.3)  # rows: per head [q|k|v]
            w[p + "attention.query_key_value.bias"] = r.normal(3 * d, 0.2)
            w[p + "attention.dense.weight"] = r.normal((d, d), 0.3)
            w[p + "attention.dense.bias"] = r.normal(d, 0.1)
            w[p + "mlp.dense_h_to_4h.weight"] = r.normal((m, d), 0.3)
            w[p + "mlp.dense_h_to_4h.bias"] = r.normal(m, 0.1)
            w[p + "mlp.dense_4h_to_h.weight"] = r.normal((d, m), 0.3)
            w[p + "mlp.dense_4h_to_h.bias"] = r.normal(d, 0.1)
        w["gpt_neox.final_layer_norm.weight"] = r.norm_weight(d)
        w["gpt_neox.final_layer_norm.bias"] = r.normal(d, 0.1)
        w["embed_out.weight"] = r.normal((V, d), 0.3)
        return w
    w["model.embed_tokens.weight"] = r.normal((V, d), 0.6 if mt == "gemma2" else 0.3)
    for i in range(L):
        p = f"model.layers.{i}."
        if mt != "olmo2":
            w[p + "input_layernorm.weight"] = nw(d)
        if mt == "phi3":
            w[p + "self_attn.qkv_proj.weight"] = r.normal(((H + 2 * G) * dh, d), 0.3)   # rows q | k | v
        else:
            w[p + "self_attn.q_proj.weight"] = r.normal((H * dh, d), sq)
            w[p + "self_attn.k_proj.weight"] = r.normal((G * dh, d), sq)
            w[p + "self_attn.v_proj.weight"] = r.normal((G * dh, d), 0.3)
        if mt in ("qwen3", "gemma3_text"):
            w[p + "self_attn.q_norm.weight"] = nw(dh)
            w[p + "self_attn.k_norm.weight"] = nw(dh)
        if mt == "olmo2":
            w[p + "self_attn.q_norm.weight"] = nw(H * dh)
            w[p + "self_attn.k_norm.weight"] = nw(G * dh)
        w[p + "self_attn.o_proj.weight"] = r.normal((d, H * dh), 0.3)
        w[p + "post_attention_layernorm.weight"] = nw(d)
        if gemma:
            w[p + "pre_feedforward_layernorm.weight"] = nw(d)
        if gemma or mt == "olmo2":
            w[p + "post_feedforward_layernorm.weight"] = nw(d)
        if mt == "phi3":
            w[p + "mlp.gate_up_proj.weight"] = r.normal((2 * m, d), 0.3)   # rows gate | up
        else:
            w[p + "mlp.gate_proj.weight"] = r.normal((m, d), 0.3)
            w[p + "mlp.up_proj.weight"] = r.normal((m, d), 0.3)
        w[p + "mlp.down_proj.weight"] = r.normal((d, m), 0.3)
    w["model.norm.weight"] = nw(d)
    if not c.get("tie_word_embeddings", True):
        w["lm_head.weight"] = r.normal((V, d), 0.3)
    return w


def forward_family(c, W, ids, zero_head=None, replace=None, parallel=None):
    """The forward pass of the new families, in float64 on the stored (rounded) weights.

    llama / mistral: modeling_llama.py LlamaAttention.forward, LlamaDecoderLayer.forward (pre-norm
      residual), LlamaMLP (down(silu(gate) * up)); MistralAttention: sliding_window=config.sliding_window
      to the attention interface, create_sliding_window_causal_mask in MistralModel.forward.
    qwen3: modeling_qwen3.py Qwen3Attention.forward: q_norm(q_proj(x).view(*, H, head_dim)),
      k_norm likewise (Qwen3RMSNorm over head_dim), then apply_rotary_pos_emb; sliding only with
      use_sliding_window.
    smollm3: modeling_smollm3.py SmolLM3Attention.__init__: self.use_rope =
      config.no_rope_layers[layer_idx]; forward: apply_rotary_pos_emb only `if self.use_rope`
      (1 = RoPE, 0 = NoPE, whatever the key's name suggests).
    olmo2: modeling_olmo2.py Olmo2Attention.forward: q_norm(q_proj(x)), k_norm(k_proj(x)) over the
      whole projected width (H*head_dim, G*head_dim) before the view and RoPE; Olmo2DecoderLayer:
      x = x + post_attention_layernorm(attn(x)); x = x + post_feedforward_layernorm(mlp(x)).
    gemma2: modeling_gemma2.py Gemma2RMSNorm (x * rsqrt(mean x^2 + eps) * (1 + w)), Gemma2Model.forward
      (embeddings * normalizer, normalizer cast to the hidden dtype), Gemma2Attention (scaling =
      query_pre_attn_scalar**-0.5; eager_attention_forward: scores * scaling, then tanh(s / cap) * cap,
      then the mask), Gemma2DecoderLayer (input_layernorm -> attn -> post_attention_layernorm -> +res;
      pre_feedforward_layernorm -> mlp -> post_feedforward_layernorm -> +res), Gemma2MLP
      (down(gelu_pytorch_tanh(gate) * up)), Gemma2ForCausalLM.forward (logits / final cap, tanh, * cap).
    gemma3_text: modeling_gemma3.py Gemma3Attention (q_norm / k_norm Gemma3RMSNorm (1 + w) over
      head_dim after the view, before RoPE; position_embeddings_local (rope_local_base_freq) on
      sliding layers, position_embeddings_global (rope_theta, rope_scaling) on full ones),
      Gemma3TextScaledWordEmbedding, softcaps None.
    phi3: modeling_phi3.py Phi3Attention.forward (qkv = qkv_proj(x); q = [:H*hd], k = [H*hd :
      H*hd + G*hd], v = rest), apply_rotary_pos_emb (rotary_dim = cos.shape[-1], the rest passes),
      Phi3MLP (gate, up = gate_up_proj(x).chunk(2); down(up * silu(gate))).
    gpt_neox: modeling_gpt_neox.py GPTNeoXAttention.forward (qkv.view(*, n, H, 3 * head_size), then
      chunk(3) on the last dim: per head [q | k | v]; scaling head_size**-0.5; dense with bias),
      GPTNeoXLayer.forward (parallel: x + attn(ln1(x)) + mlp(ln2(x)); else a = x + attn(ln1(x));
      a + mlp(ln2(a))), GPTNeoXMLP (dense_4h_to_h(gelu(dense_h_to_4h(x))), "gelu" = erf form),
      final_layer_norm, embed_out.
    """
    mt = c["model_type"]
    d, H, G, dh, L = fam_dims(c)
    n = len(ids)
    gemma = mt in ("gemma2", "gemma3_text")
    eps = c.get("layer_norm_eps") if mt == "gpt_neox" else c["rms_norm_eps"]
    if parallel is None:
        parallel = c.get("use_parallel_residual")

    def norm(x, name):
        if mt == "gpt_neox":
            return layer_norm(x, W[name + ".weight"], W[name + ".bias"], eps)
        w = W[name + ".weight"]
        return rms_norm(x, 1.0 + w if gemma else w, eps)

    def mlp(x, p):
        if mt == "gpt_neox":
            h = gelu_erf(x @ W[p + "mlp.dense_h_to_4h.weight"].T + W[p + "mlp.dense_h_to_4h.bias"])
            return h @ W[p + "mlp.dense_4h_to_h.weight"].T + W[p + "mlp.dense_4h_to_h.bias"]
        act = gelu_new if gemma else silu          # gelu_pytorch_tanh = the tanh form
        if mt == "phi3":
            gate, up = (x @ W[p + "mlp.gate_up_proj.weight"].T).chunk(2, dim=-1)
        else:
            gate, up = x @ W[p + "mlp.gate_proj.weight"].T, x @ W[p + "mlp.up_proj.weight"].T
        return (act(gate) * up) @ W[p + "mlp.down_proj.weight"].T

    if mt == "gpt_neox":
        x = W["gpt_neox.embed_in.weight"][ids]
    else:
        x = W["model.embed_tokens.weight"][ids]
        if gemma:
            x = x * embed_scale(c)
    scale = c["query_pre_attn_scalar"] ** -0.5 if gemma else dh ** -0.5
    cap = c.get("attn_logit_softcapping")
    rep = H // G
    layers = []
    for i in range(L):
        p = (f"gpt_neox.layers.{i}." if mt == "gpt_neox" else f"model.layers.{i}.")
        a = x if mt == "olmo2" else norm(x, p + "input_layernorm")
        if mt == "gpt_neox":
            qkv = a @ W[p + "attention.query_key_value.weight"].T + W[p + "attention.query_key_value.bias"]
            q, k, v = qkv.reshape(n, H, 3 * dh).transpose(0, 1).chunk(3, dim=-1)
        else:
            if mt == "phi3":
                qkv = a @ W[p + "self_attn.qkv_proj.weight"].T
                qf, kf, vf = qkv[:, :H * dh], qkv[:, H * dh:(H + G) * dh], qkv[:, (H + G) * dh:]
            else:
                def lin(name):
                    t = a @ W[p + f"self_attn.{name}.weight"].T
                    return t + W[p + f"self_attn.{name}.bias"] if p + f"self_attn.{name}.bias" in W else t
                qf, kf, vf = lin("q_proj"), lin("k_proj"), lin("v_proj")
            if mt == "olmo2":
                qf, kf = norm(qf, p + "self_attn.q_norm"), norm(kf, p + "self_attn.k_norm")
            q, k, v = (t.reshape(n, heads, dh).transpose(0, 1) for t, heads in ((qf, H), (kf, G), (vf, G)))
            if mt in ("qwen3", "gemma3_text"):
                q, k = norm(q, p + "self_attn.q_norm"), norm(k, p + "self_attn.k_norm")
        rope = fam_rope(c, i, n)
        q_pre, k_pre = q, k
        q, k = apply_rope(q, rope), apply_rope(k, rope)
        k_rep = k[:, None].expand(G, rep, n, dh).reshape(H, n, dh)
        v_rep = v[:, None].expand(G, rep, n, dh).reshape(H, n, dh)
        scores = softcap(q @ k_rep.transpose(-1, -2) * scale, cap)
        window = fam_window(c, i)
        qi, ki = torch.arange(n)[:, None], torch.arange(n)[None, :]
        allowed = ki <= qi
        if window is not None:
            allowed = allowed & (ki > qi - window)
        weights = torch.softmax(scores.masked_fill(~allowed, -math.inf), dim=-1)
        o = weights @ v_rep
        if zero_head is not None and zero_head[0] == i:
            o = o.clone()
            o[zero_head[1]] = 0.0
        merged = o.transpose(0, 1).reshape(n, H * dh)
        if mt == "gpt_neox":
            Wo, bo = W[p + "attention.dense.weight"], W[p + "attention.dense.bias"]
        else:
            Wo, bo = W[p + "self_attn.o_proj.weight"], torch.zeros(d)
        out = merged @ Wo.T + bo
        layers.append({"attn_in": a, "attn_out": out, "weights": weights, "scores": scores, "allowed": allowed,
                       "window": window, "rope": rope, "q": q, "k": k, "v": v, "q_pre": q_pre, "k_pre": k_pre,
                       "Wo": Wo, "bo": bo, "scale": scale, "cap": cap})
        if replace is not None and replace[0] == i:
            out = replace[1]
        if mt == "gpt_neox":
            if parallel:
                x = x + out + mlp(norm(x, p + "post_attention_layernorm"), p)
            else:
                x = x + out
                x = x + mlp(norm(x, p + "post_attention_layernorm"), p)
        elif gemma:
            x = x + norm(out, p + "post_attention_layernorm")
            x = x + norm(mlp(norm(x, p + "pre_feedforward_layernorm"), p), p + "post_feedforward_layernorm")
        elif mt == "olmo2":
            x = x + norm(out, p + "post_attention_layernorm")
            x = x + norm(mlp(x, p), p + "post_feedforward_layernorm")
        else:
            x = x + out
            x = x + mlp(norm(x, p + "post_attention_layernorm"), p)
    if mt == "gpt_neox":
        x = norm(x, "gpt_neox.final_layer_norm")
        head = W["embed_out.weight"]
    else:
        x = norm(x, "model.norm")
        head = W["lm_head.weight"] if "lm_head.weight" in W else W["model.embed_tokens.weight"]
    logits = softcap(x[-1] @ head.T, c.get("final_logit_softcapping"))
    return layers, logits


def direct_inv_freq(c, layer, n):
    """A second computation of the rotary frequencies, one scalar at a time (Python floats), with the
    branch each llama3 frequency took; (inv list, attention factor, rotary dim, branches)."""
    mt = c["model_type"]
    _, _, _, dh, _ = fam_dims(c)
    if mt == "smollm3" and c["no_rope_layers"][layer] == 0:
        return None
    if mt == "gpt_neox":
        theta, rot, sc = c["rotary_emb_base"], int(dh * c["rotary_pct"]), None
    elif mt == "gemma3_text" and c["layer_types"][layer] != "full_attention":
        theta, rot, sc = c["rope_local_base_freq"], dh, None
    else:
        theta, rot, sc = c["rope_theta"], int(dh * c.get("partial_rotary_factor", 1.0)), c.get("rope_scaling")
    out, branches, att = [], [], 1.0
    for j in range(rot // 2):
        f = theta ** (-(2 * j) / rot)
        if sc is None:
            pass
        elif sc.get("rope_type") == "linear":
            f = f / sc["factor"]
        elif sc.get("rope_type") == "llama3":
            lam = 2 * math.pi / f
            hi_len = sc["original_max_position_embeddings"] / sc["high_freq_factor"]
            lo_len = sc["original_max_position_embeddings"] / sc["low_freq_factor"]
            if lam < hi_len:
                branches.append("high")
            elif lam > lo_len:
                f, _ = f / sc["factor"], branches.append("low")
            else:
                t = (sc["original_max_position_embeddings"] / lam - sc["low_freq_factor"]) / \
                    (sc["high_freq_factor"] - sc["low_freq_factor"])
                f = f * (t + (1 - t) / sc["factor"])
                branches.append("mid")
        elif sc.get("type") == "longrope":
            orig = c["original_max_position_embeddings"]
            s = c["max_position_embeddings"] / orig
            att = math.sqrt(1 + math.log(s) / math.log(orig))
            f = f / (sc["long_factor"] if n > orig else sc["short_factor"])[j]
            branches.append("long" if n > orig else "short")
        else:
            raise ValueError(sc)
        out.append(f)
    return out, att, rot, branches


def self_check_family(spec, c, W, ids, layers, logits):
    mt = c["model_type"]
    d, H, G, dh, L = fam_dims(c)
    n, rep = len(ids), H // G
    branches = set()
    for i, l in enumerate(layers):
        w = l["weights"]
        assert torch.allclose(w.sum(-1), torch.ones(H, n), atol=1e-12, rtol=0)
        for qi in range(n):          # zeros exactly where the mask says, positive elsewhere
            for ki in range(n):
                inside = ki <= qi and (l["window"] is None or qi - ki < l["window"])
                assert bool((w[:, qi, ki] > 0).all()) if inside else bool((w[:, qi, ki] == 0).all()), (i, qi, ki)
        if l["window"] is not None and l["window"] < n:
            assert bool((w[:, -1, :n - l["window"]] == 0).all()) and bool((w[:, -1, n - l["window"]:] > 0).all())
        # each query head on its own, against K/V head h // rep, the mask built from the window
        capped = 0.0
        for h in range(H):
            g = h // rep
            s = (l["q"][h] @ l["k"][g].T) * l["scale"]
            if l["cap"] is not None:
                raw, s = s, l["cap"] * torch.tanh(s / l["cap"])
                assert float(s.abs().max()) < l["cap"] and float(l["scores"].abs().max()) < l["cap"]
                capped = max(capped, float((raw - s).abs().max()))
            for qi in range(n):
                row = [math.exp(float(s[qi, kj])) if kj <= qi and (l["window"] is None or kj > qi - l["window"])
                       else 0.0 for kj in range(n)]
                tot = sum(row)
                assert max(abs(row[kj] / tot - float(w[h, qi, kj])) for kj in range(n)) < 1e-12
        assert l["cap"] is None or capped > 1e-2, "the attention softcap has no effect here"
        # attn_out as the sum over heads of o_h W_o[:, h] (+ bias)
        total = l["bo"].expand(n, -1).clone()
        for h in range(H):
            total += (w[h] @ l["v"][h // rep]) @ l["Wo"][:, h * dh:(h + 1) * dh].T
        assert torch.allclose(total, l["attn_out"], atol=1e-12, rtol=0)
        # RoPE: the complex form with the directly computed frequencies, the pass-through dims kept
        direct = direct_inv_freq(c, i, n)
        if direct is None:
            assert l["rope"] is None and torch.equal(l["q"], l["q_pre"]) and torch.equal(l["k"], l["k_pre"])
            continue
        inv, att, rot, br = direct
        branches.update(br)
        assert torch.allclose(l["rope"][0], torch.tensor(inv, dtype=torch.float64), rtol=1e-13, atol=0)
        assert abs(l["rope"][1] - att) < 1e-15 and l["rope"][2] == rot
        half = rot // 2
        for src, dst in ((l["q_pre"], l["q"]), (l["k_pre"], l["k"])):
            z = torch.complex(src[..., :half], src[..., half:rot]) * torch.polar(
                torch.full((n, half), att), torch.outer(torch.arange(n, dtype=torch.float64),
                                                        torch.tensor(inv, dtype=torch.float64)))
            assert torch.allclose(torch.cat((z.real, z.imag), -1), dst[..., :rot], atol=1e-12, rtol=0)
            assert torch.equal(src[..., rot:], dst[..., rot:])
            if n > 1:
                assert not torch.allclose(src, dst)
    if (c.get("rope_scaling") or {}).get("rope_type") == "llama3":
        assert branches == {"high", "mid", "low"}, branches
    final_cap = c.get("final_logit_softcapping")
    if final_cap is not None:
        assert float(logits.abs().max()) < final_cap
        raw = torch.atanh(logits / final_cap) * final_cap      # the logits before the cap
        assert float((raw - logits).abs().max()) > 1e-2, "the final softcap has no effect here"
    if mt == "gpt_neox":   # the other residual order gives another result
        _, other = forward_family(c, W, ids, parallel=not c["use_parallel_residual"])
        assert float((other - logits).abs().max()) > 1e-3
    assert logits.shape[0] == c["vocab_size"]
    return branches


def make_family_model(spec):
    folder = os.path.join(ROOT, spec["name"])
    c = spec["config"]
    r = Rand(spec["seed"])
    tensors = {k: (spec["dtype"], v) for k, v in family_weights(c, r).items()}
    d, H, G, dh, L = fam_dims(c)
    if os.path.isdir(folder):
        for f in os.listdir(folder):
            os.remove(os.path.join(folder, f))
    write_json(os.path.join(folder, "config.json"), c)
    for fname, text in spec["tok_files"].items():
        write(os.path.join(folder, fname), text)
    files = write_weights(folder, tensors, spec.get("shards"), "")
    W, raw = load_weights(folder, files, "")
    assert set(raw) == set(tensors)
    for k, (dtype, a) in tensors.items():
        expect = np.asarray(a, dtype=np.float64)
        if dtype == "F16":
            expect = np.asarray(a).astype(np.float16).astype(np.float64)
        if dtype == "BF16":
            expect = torch.from_numpy(np.asarray(a, dtype=np.float32)).to(torch.bfloat16).double().numpy()
        assert raw[k][0] == dtype and np.array_equal(raw[k][1].astype(np.float64), expect), k
    tok = spec.get("tok")
    inputs = [(t, tok.encode(t)) for t in spec.get("texts", [])] + [(None, ids) for ids in spec["ids_cases"]]
    windows = [fam_window(c, i) for i in range(L)]
    cases, branches = [], set()
    for ci, (text, ids) in enumerate(inputs):
        n = len(ids)
        assert max(ids) < c["vocab_size"]
        # every case longer than the (small) windows; Phi-4-mini's 262144 exceeds max_position_embeddings
        assert all(wd is None or n > wd or wd > c["max_position_embeddings"] for wd in windows), "window"
        case, layers, logits = reference_case(forward_family, c, W, ids, text, ci, H, L)
        if c["vocab_size"] < 512:
            case["logits_last"] = [float(v) for v in logits]
        branches |= self_check_family(spec, c, W, ids, layers, logits)
        cases.append(case)
    if spec.get("expect_branches"):
        assert branches == set(spec["expect_branches"]), branches
    encode = []
    if tok is not None:
        for t in spec.get("encode", []):
            encode.append({"text": t, "ids": tok.encode(t)})
        for t in spec.get("texts", []) + spec.get("encode", []):
            ids = tok.encode(t)
            if tok.bos is not None:
                assert ids[0] == tok.bos
                ids = ids[1:]
            norm = unicodedata.normalize("NFC", t) if spec.get("nfc") else t
            assert tok.decode(ids) == norm, (t, tok.decode(ids))
    write(os.path.join(folder, "reference.json"), dumps({"cases": cases, "encode": encode}) + "\n")
    return folder, inputs, encode


# --------------------------------------------------------------------------------------------
# The family folders (their section of the docstring says what each holds).
# --------------------------------------------------------------------------------------------

TOKENIZERS = {}   # filled by build_models: name -> (RefTokenizer, tokenizer.json text, vocab_size)


def build_family_models(merges):
    models = []
    llama3_tok, llama3_json, llama3_V = TOKENIZERS["llama3"]
    bos = llama3_tok.bos
    llama32 = {  # meta-llama/Llama-3.2-1B's config.json, sizes shrunk
        "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "bos_token_id": bos, "eos_token_id": bos + 1, "head_dim": 8, "hidden_act": "silu", "hidden_size": 24,
        "initializer_range": 0.02, "intermediate_size": 32, "max_position_embeddings": 131072, "mlp_bias": False,
        "model_type": "llama", "num_attention_heads": 4, "num_hidden_layers": 2, "num_key_value_heads": 2,
        "pretraining_tp": 1, "rms_norm_eps": 1e-05,
        "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                         "original_max_position_embeddings": 8192, "rope_type": "llama3"},
        "rope_theta": 500000.0, "tie_word_embeddings": True, "torch_dtype": "float32",
        "transformers_version": "4.45.0.dev0", "use_cache": True, "vocab_size": llama3_V}
    # head_dim 8, theta 500000: wavelengths 2 pi theta^(j/4) = 6.3, 167 (< 2048: kept), 4443 (between
    # 2048 and 8192: smoothed), 118000 (> 8192: divided by 32); asserted in self_check_family.
    models.append(dict(
        name="llama3-rope-f32", dtype="F32", seed=2001, config=llama32, expect_branches=["high", "mid", "low"],
        tok=llama3_tok, tok_files={"tokenizer.json": llama3_json},
        texts=["The lazy dog sat."], encode=["Hello world!"],
        ids_cases=[[bos, 70, 300, 9, llama3_V - 1, 258, 44, 12]]))
    models.append(dict(
        name="llama-linear-f32", dtype="F32", seed=2002,
        config=dict({k: v for k, v in llama32.items() if k != "head_dim"}, hidden_size=16, intermediate_size=32, num_attention_heads=2, num_key_value_heads=1,
                    rope_scaling={"factor": 4.0, "rope_type": "linear"}, rope_theta=10000.0,
                    max_position_embeddings=256, tie_word_embeddings=False),
        tok=llama3_tok, tok_files={"tokenizer.json": llama3_json},
        texts=["Where is the cat?"], encode=[],
        ids_cases=[[bos, 12, 300, 41, 7, 355, 99]]))

    # GPT-NeoX (Pythia): EleutherAI/gpt-neox-20b's tokenizer.json form: <|endoftext|> 0 and
    # <|padding|> 1 inside model.vocab, NFC, ByteLevel(add_prefix_space false, use_regex true).
    neox_specials = ["<|endoftext|>", "<|padding|>"]
    vocab = {s: i for i, s in enumerate(neox_specials)}
    vocab.update(bpe_vocab(merges, offset=len(neox_specials)))
    added = [(s, i) for i, s in enumerate(neox_specials)]
    neox_tok = RefTokenizer(vocab, merges, pre_gpt2, normalize=lambda s: unicodedata.normalize("NFC", s),
                            added=added)
    neox_json = tokenizer_json(added, {"type": "NFC"}, byte_level(False, True, True), byte_level(False, True, True),
                               byte_level(False, True, True), vocab, merges, merges_as_pairs=False,
                               ignore_merges=False, none_affixes=True)
    V = (len(vocab) + 127) // 128 * 128   # padded as Pythia's 50304 rows for 50277 tokens
    pythia = {  # EleutherAI/pythia-70m's config.json, sizes shrunk
        "architectures": ["GPTNeoXForCausalLM"], "bos_token_id": 0, "eos_token_id": 0, "hidden_act": "gelu",
        "hidden_size": 32, "initializer_range": 0.02, "intermediate_size": 64, "layer_norm_eps": 1e-05,
        "max_position_embeddings": 2048, "model_type": "gpt_neox", "num_attention_heads": 2,
        "num_hidden_layers": 2, "rotary_emb_base": 10000, "rotary_pct": 0.25, "tie_word_embeddings": False,
        "torch_dtype": "float16", "transformers_version": "4.24.0", "use_cache": True,
        "use_parallel_residual": True, "vocab_size": V}
    models.append(dict(
        name="pythia-f16", dtype="F16", seed=2003, config=pythia, nfc=True,
        tok=neox_tok, tok_files={"tokenizer.json": neox_json},
        texts=["Hello there, my friend."], encode=["caf\u00e9 au lait", "It's 2024!"],
        ids_cases=[[0, 70, 300, 9, V - 1, 258, 44]]))
    models.append(dict(
        name="gpt-neox-sequential-f16", dtype="F16", seed=2004,
        config=dict(pythia, use_parallel_residual=False, num_attention_heads=4, hidden_size=32),
        nfc=True, tok=neox_tok, tok_files={"tokenizer.json": neox_json},
        texts=["The dog sat."], encode=[],
        ids_cases=[[0, 12, 300, 41, 7, 357, 99, 1]]))

    # Qwen3: Qwen2's tokenizer.json form (Qwen3 ships Qwen2.5's tokenizer).
    qwen_tok, qwen_json, qwen_V = TOKENIZERS["qwen2"]
    models.append(dict(
        name="qwen3-bf16", dtype="BF16", seed=2005, nfc=True,
        config={  # Qwen/Qwen3-0.6B's config.json, sizes shrunk
            "architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
            "bos_token_id": qwen_tok.added["<|endoftext|>"], "eos_token_id": qwen_tok.added["<|im_end|>"],
            "head_dim": 8, "hidden_act": "silu", "hidden_size": 16, "initializer_range": 0.02,
            "intermediate_size": 48, "max_position_embeddings": 40960, "max_window_layers": 28,
            "model_type": "qwen3", "num_attention_heads": 4, "num_hidden_layers": 2, "num_key_value_heads": 2,
            "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 1000000, "sliding_window": None,
            "tie_word_embeddings": True, "torch_dtype": "bfloat16", "transformers_version": "4.51.0",
            "use_cache": True, "use_sliding_window": False, "vocab_size": qwen_V},
        tok=qwen_tok, tok_files={"tokenizer.json": qwen_json},
        texts=["<|im_start|>user\nWhere is the house?"], encode=["Hello there!"],
        ids_cases=[[qwen_tok.added["<|im_start|>"], 70, 5, 300, qwen_V - 1, 14, 99]]))

    # Gemma 2: no tokenizer files (SentencePiece); cases as ids, 0 <pad>, 1 <eos>, 2 <bos>.
    gemma2 = {  # google/gemma-2-2b's config.json (float32 as shipped), sizes shrunk; query_pre_attn_scalar
                # = hidden_size / num_attention_heads != head_dim, as gemma-2-27b's 144 with head_dim 128
        "architectures": ["Gemma2ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "attn_logit_softcapping": 50.0, "bos_token_id": 2, "cache_implementation": "hybrid", "eos_token_id": 1,
        "final_logit_softcapping": 30.0, "head_dim": 8, "hidden_act": "gelu_pytorch_tanh",
        "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 24, "initializer_range": 0.02,
        "intermediate_size": 32, "max_position_embeddings": 8192, "model_type": "gemma2",
        "num_attention_heads": 4, "num_hidden_layers": 3, "num_key_value_heads": 2, "pad_token_id": 0,
        "query_pre_attn_scalar": 6, "rms_norm_eps": 1e-06, "rope_theta": 10000.0, "sliding_window": 4,
        "torch_dtype": "float32", "transformers_version": "4.42.4", "use_cache": True, "vocab_size": 256}
    models.append(dict(
        name="gemma2-f32", dtype="F32", seed=2006, config=gemma2, tok_files={},
        ids_cases=[[2, 45, 230, 17, 99, 5, 200], [2, 7, 7, 160, 31, 64, 150, 255]]))

    gemma3 = {  # google/gemma-3-270m / gemma-3-1b-pt's config.json, sizes shrunk: every third layer
                # full (as every sixth there), layer_types written out as the 270M's config has them
        "_sliding_window_pattern": 3, "architectures": ["Gemma3ForCausalLM"], "attention_bias": False,
        "attention_dropout": 0.0, "attn_logit_softcapping": None, "bos_token_id": 2, "eos_token_id": 1,
        "final_logit_softcapping": None, "head_dim": 8, "hidden_activation": "gelu_pytorch_tanh",
        "hidden_size": 24, "initializer_range": 0.02, "intermediate_size": 32,
        "layer_types": ["sliding_attention", "sliding_attention", "full_attention"],
        "max_position_embeddings": 32768, "model_type": "gemma3_text", "num_attention_heads": 4,
        "num_hidden_layers": 3, "num_key_value_heads": 1, "pad_token_id": 0, "query_pre_attn_scalar": 8,
        "rms_norm_eps": 1e-06, "rope_local_base_freq": 10000.0, "rope_scaling": None, "rope_theta": 1000000.0,
        "sliding_window": 4, "torch_dtype": "bfloat16", "transformers_version": "4.55.0.dev0",
        "use_bidirectional_attention": False, "use_cache": True, "vocab_size": 256}
    models.append(dict(
        name="gemma3-text-bf16", dtype="BF16", seed=2007, config=gemma3, tok_files={},
        ids_cases=[[2, 45, 230, 17, 99, 5, 200, 106], [2, 7, 7, 160, 31, 255]]))

    models.append(dict(
        name="mistral-f32", dtype="F32", seed=2008, tok_files={},
        config={  # mistralai/Mistral-7B-v0.1's config.json, sizes shrunk, sliding_window 3
            "architectures": ["MistralForCausalLM"], "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu",
            "hidden_size": 16, "initializer_range": 0.02, "intermediate_size": 40, "max_position_embeddings": 32768,
            "model_type": "mistral", "num_attention_heads": 4, "num_hidden_layers": 2, "num_key_value_heads": 2,
            "rms_norm_eps": 1e-05, "rope_theta": 10000.0, "sliding_window": 3, "tie_word_embeddings": False,
            "torch_dtype": "float32", "transformers_version": "4.34.0.dev0", "use_cache": True,
            "vocab_size": 320},
        ids_cases=[[1, 45, 300, 17, 99, 5, 200], [1, 9, 9, 9, 250, 31, 64, 2, 13]]))

    # SmolLM3: Llama 3's vocabulary, merges and specials (SmolLM3 uses Llama 3.2's), bos_token_id null:
    # here a ByteLevel post-processor, no BOS added.
    smol3_added = sorted(llama3_tok.added.items(), key=lambda e: e[1])
    smol3_tok = RefTokenizer(llama3_tok.vocab, merges, pre_llama3, added=smol3_added, ignore_merges=True)
    smol3_json = tokenizer_json(
        smol3_added, None,
        {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": LLAMA3_REGEX}, "behavior": "Isolated", "invert": False},
            byte_level(False, True, False)]},
        byte_level(True, False, True), byte_level(True, True, True), llama3_tok.vocab, merges,
        merges_as_pairs=True, ignore_merges=True, none_affixes=True)
    models.append(dict(
        name="smollm3-f32", dtype="F32", seed=2009, tok=smol3_tok, tok_files={"tokenizer.json": smol3_json},
        config={  # HuggingFaceTB/SmolLM3-3B's config.json, sizes shrunk (36 -> 4 layers: 1,1,1,0)
            "architectures": ["SmolLM3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
            "bos_token_id": None, "eos_token_id": bos + 4, "hidden_act": "silu", "hidden_size": 16,
            "initializer_range": 0.02, "intermediate_size": 32, "max_position_embeddings": 65536,
            "max_window_layers": 28, "mlp_bias": False, "model_type": "smollm3", "no_rope_layer_interval": 4,
            "no_rope_layers": [1, 1, 1, 0], "num_attention_heads": 4, "num_hidden_layers": 4,
            "num_key_value_heads": 2, "pad_token_id": bos + 1, "pretraining_tp": 2, "rms_norm_eps": 1e-06,
            "rope_scaling": None, "rope_theta": 5000000.0, "sliding_window": None, "tie_word_embeddings": True,
            "torch_dtype": "float32", "transformers_version": "4.53.0.dev0", "use_cache": False,
            "use_sliding_window": False, "vocab_size": llama3_V},
        texts=["The cat sat."], encode=["the lazy dog"],
        ids_cases=[[bos, 70, 300, 9, 258, 44, 12]]))

    # OLMo 2: a cl100k-style tokenizer.json (Split(regex) + ByteLevel(use_regex false), specials after
    # the vocabulary, no BOS), as allenai/OLMo-2's.
    vocab = bpe_vocab(merges)
    o_specials = ["<|endoftext|>", "<|pad|>"]
    added = [(s, len(vocab) + i) for i, s in enumerate(o_specials)]
    olmo_tok = RefTokenizer(vocab, merges, pre_llama3, added=added)
    olmo_json = tokenizer_json(
        added, None,
        {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": LLAMA3_REGEX}, "behavior": "Isolated", "invert": False},
            byte_level(False, True, False)]},
        byte_level(True, False, True), byte_level(True, True, True), vocab, merges,
        merges_as_pairs=False, ignore_merges=False, none_affixes=True)
    V = len(vocab) + len(o_specials)
    models.append(dict(
        name="olmo2-f32", dtype="F32", seed=2010, tok=olmo_tok, tok_files={"tokenizer.json": olmo_json},
        config={  # allenai/OLMo-2-0425-1B's config.json, sizes shrunk
            "architectures": ["Olmo2ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
            "bos_token_id": None, "eos_token_id": added[0][1], "hidden_act": "silu", "hidden_size": 16,
            "initializer_range": 0.02, "intermediate_size": 40, "max_position_embeddings": 4096,
            "model_type": "olmo2", "num_attention_heads": 4, "num_hidden_layers": 2, "num_key_value_heads": 4,
            "pad_token_id": added[1][1], "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 500000,
            "tie_word_embeddings": False, "torch_dtype": "float32", "transformers_version": "4.48.3",
            "use_cache": True, "vocab_size": V},
        texts=["A cat and a dog are friends."], encode=["<|endoftext|>Hello"],
        ids_cases=[[added[0][1], 70, 300, 9, 258, 44, V - 1]]))

    # Phi-3 / Phi-4-mini: longrope with partial rotary; no tokenizer files.
    models.append(dict(
        name="phi3-longrope-f32", dtype="F32", seed=2011, tok_files={},
        config={  # microsoft/Phi-4-mini-instruct's config.json, sizes shrunk: 4096 -> 8 original positions,
                  # 131072 -> 256 (the same factor 32); 3 = rotary dim / 2 factors each
            "architectures": ["Phi3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
            "bos_token_id": 255, "embd_pdrop": 0.0, "eos_token_id": 255, "full_attn_mod": 1, "hidden_act": "silu",
            "hidden_size": 32, "initializer_range": 0.02, "intermediate_size": 24, "interpolate_factor": 1,
            "lm_head_bias": False, "max_position_embeddings": 256, "mlp_bias": False, "model_type": "phi3",
            "num_attention_heads": 4, "num_hidden_layers": 2, "num_key_value_heads": 2,
            "original_max_position_embeddings": 8, "pad_token_id": 255, "partial_rotary_factor": 0.75,
            "resid_pdrop": 0.0, "rms_norm_eps": 1e-05,
            "rope_scaling": {"long_factor": [1.0, 3.0, 12.5], "short_factor": [1.0, 1.25, 1.5], "type": "longrope"},
            "rope_theta": 10000.0, "sliding_window": 262144, "tie_word_embeddings": True,
            "torch_dtype": "float32", "transformers_version": "4.45.0", "use_cache": True, "vocab_size": 256},
        expect_branches=["short", "long"],
        ids_cases=[[255, 45, 200, 17, 99], [255, 7, 7, 160, 31, 64, 150, 3], [255, 9, 250, 31, 64, 2, 13, 77, 4]]))
    return models


# --------------------------------------------------------------------------------------------
# Encoders (issue 40): tiny BERT, RoBERTa and DistilBERT folders for the masked-word prediction.
#
#   bert-f32        bert (google-bert/bert-base-uncased's config keys, sizes shrunk), F32, names with
#                   the "bert." prefix as BertForMaskedLM saves them, the decoder tied (not stored),
#                   the embeddings' LayerNorm as gamma/beta (the names of TF-converted checkpoints,
#                   which transformers renames on load); a WordPiece tokenizer.json as
#                   bert-base-uncased's (BertNormalizer, BertPreTokenizer, TemplateProcessing).
#   roberta-f32     roberta (FacebookAI/roberta-base's keys), F32, "roberta." prefix, lm_head, one
#                   token type, pad_token_id 1 (positions from 2); the byte-level BPE above with
#                   RobertaProcessing (<s> A </s></s> B </s>); one ids case with <pad> inside.
#   distilbert-f32  distilbert (distilbert-base-uncased's keys), F32, "distilbert." prefix,
#                   sinusoidal_pos_embds true (the stored position table holds the sinusoids, as
#                   create_sinusoidal_embeddings writes them), vocab_transform / vocab_layer_norm /
#                   vocab_projector; the same WordPiece tokenizer.json (types ignored: it has none).
# Reference (reference.json): {"cases": [{"ids", "types", "text"?, "pair"?, "layers": [{"attn_in",
# "attn_out", "heads": [{"weights"}]}], "masked": [{"position", "top": [{"id", "p"} x 5]}],
# "head_off": {"layer", "head", "masked"}}]}, in float64 from transformers'
# models/bert/modeling_bert.py (BertEmbeddings, BertSelfAttention, BertSelfOutput,
# BertIntermediate, BertOutput, BertLMPredictionHead), models/roberta/modeling_roberta.py
# (create_position_ids_from_input_ids, RobertaLMHead) and models/distilbert/modeling_distilbert.py
# (Embeddings, MultiHeadSelfAttention, TransformerBlock, DistilBertForMaskedLM): no attention mask
# (every key allowed), attn_in the block's input, attn_out the attention's output dense (before its
# residual add and LayerNorm); head_off multiplies that head's probabilities by 0 (head_mask).
# --------------------------------------------------------------------------------------------

WP_SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WP_WORDS = ["the", "cat", "dog", "sat", "on", "mat", "a", "is", "big", "red", "he", "she", "it", "was",
            "and", "play", "run", "walk", "park", "in", "happy", ".", ",", "!", "?", "##s", "##ing",
            "##ed", "##er", "##y", "b", "c", "d", "##a", "##e"]
WP_VOCAB = WP_SPECIALS + WP_WORDS
BERT_PUNCT = set(chr(c) for c in list(range(33, 48)) + list(range(58, 65)) + list(range(91, 97)) + list(range(123, 127)))


def wordpiece_encode(text):
    """bert-base-uncased's tokenizer on ASCII text: [MASK] split out, lowercase, whitespace and
    punctuation split, greedy longest-first WordPiece with ##, [UNK] for a word it cannot split."""
    ids = {t: i for i, t in enumerate(WP_VOCAB)}
    out = []
    for seg in re.split(r"(\[MASK\])", text):
        if seg == "[MASK]":
            out.append(ids[seg])
            continue
        words = []
        for w in seg.lower().split():
            cur = ""
            for ch in w:
                if ch in BERT_PUNCT:
                    words += [cur] if cur else []
                    words.append(ch)
                    cur = ""
                else:
                    cur += ch
            words += [cur] if cur else []
        for w in words:
            pieces, start = [], 0
            while start < len(w):
                end = len(w)
                while end > start and (("##" if start else "") + w[start:end]) not in ids:
                    end -= 1
                if end == start:
                    pieces = [ids["[UNK]"]]
                    break
                pieces.append(ids[("##" if start else "") + w[start:end]])
                start = end
            out += pieces
    return out


def wordpiece_pair(a, b):
    A, B = wordpiece_encode(a), wordpiece_encode(b) if b is not None else None
    ids = [2] + A + [3] + ([] if B is None else B + [3])
    types = [0] * (len(A) + 2) + ([] if B is None else [1] * (len(B) + 1))
    return ids, types


def wordpiece_json():
    special = lambda t, ty: {"SpecialToken": {"id": t, "type_id": ty}}
    seq = lambda s, ty: {"Sequence": {"id": s, "type_id": ty}}
    doc = {"version": "1.0", "truncation": None, "padding": None,
           "added_tokens": [added_entry(i, t) for i, t in enumerate(WP_SPECIALS)],
           "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                          "strip_accents": None, "lowercase": True},
           "pre_tokenizer": {"type": "BertPreTokenizer"},
           "post_processor": {"type": "TemplateProcessing",
                              "single": [special("[CLS]", 0), seq("A", 0), special("[SEP]", 0)],
                              "pair": [special("[CLS]", 0), seq("A", 0), special("[SEP]", 0), seq("B", 1),
                                       special("[SEP]", 1)],
                              "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]},
                                                 "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}}},
           "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
           "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                     "max_input_chars_per_word": 100, "vocab": {t: i for i, t in enumerate(WP_VOCAB)}}}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def encoder_weights(kind, c, r):
    """Named as the checkpoints name them (without the model prefix, which write_weights adds to
    all but the head); std large enough that heads differ."""
    if kind == "distilbert":
        d, m, V, L, P = c["dim"], c["hidden_dim"], c["vocab_size"], c["n_layers"], c["max_position_embeddings"]
    else:
        d, m, V, L, P = c["hidden_size"], c["intermediate_size"], c["vocab_size"], c["num_hidden_layers"], c["max_position_embeddings"]
    W = {"embeddings.word_embeddings.weight": r.normal((V, d), 1.0)}
    if kind == "distilbert":  # create_sinusoidal_embeddings
        pos = np.array([[p / np.power(10000, 2 * (j // 2) / d) for j in range(d)] for p in range(P)])
        table = np.zeros((P, d))
        table[:, 0::2], table[:, 1::2] = np.sin(pos[:, 0::2]), np.cos(pos[:, 1::2])
        W["embeddings.position_embeddings.weight"] = table.astype(np.float32)
    else:
        W["embeddings.position_embeddings.weight"] = r.normal((P, d), 0.5)
        W["embeddings.token_type_embeddings.weight"] = r.normal((c["type_vocab_size"], d), 0.5)
    ln = "embeddings.LayerNorm."
    W[ln + "weight"], W[ln + "bias"] = r.norm_weight(d), r.normal(d, 0.1)
    for i in range(L):
        if kind == "distilbert":
            p = f"transformer.layer.{i}."
            names = [p + "attention.q_lin", p + "attention.k_lin", p + "attention.v_lin", p + "attention.out_lin",
                     p + "sa_layer_norm", p + "ffn.lin1", p + "ffn.lin2", p + "output_layer_norm"]
        else:
            p = f"encoder.layer.{i}."
            names = [p + "attention.self.query", p + "attention.self.key", p + "attention.self.value",
                     p + "attention.output.dense", p + "attention.output.LayerNorm", p + "intermediate.dense",
                     p + "output.dense", p + "output.LayerNorm"]
        q, k, v, o, n1, up, down, n2 = names
        for name in (q, k, v, o):
            W[name + ".weight"], W[name + ".bias"] = r.normal((d, d), 0.4), r.normal(d, 0.1)
        W[up + ".weight"], W[up + ".bias"] = r.normal((m, d), 0.3), r.normal(m, 0.1)
        W[down + ".weight"], W[down + ".bias"] = r.normal((d, m), 0.3), r.normal(d, 0.1)
        for name in (n1, n2):
            W[name + ".weight"], W[name + ".bias"] = r.norm_weight(d), r.normal(d, 0.1)
    head = {"bert": ("cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm", "cls.predictions.bias"),
            "roberta": ("lm_head.dense", "lm_head.layer_norm", "lm_head.bias"),
            "distilbert": ("vocab_transform", "vocab_layer_norm", "vocab_projector.bias")}[kind]
    W[head[0] + ".weight"], W[head[0] + ".bias"] = r.normal((d, d), 0.4), r.normal(d, 0.1)
    W[head[1] + ".weight"], W[head[1] + ".bias"] = r.norm_weight(d), r.normal(d, 0.1)
    W[head[2]] = r.normal(V, 0.5)
    return W, head


def gelu_erf(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def forward_encoder(kind, c, W, ids, types, head, zero_head=None):
    """The encoders' forward pass in float64; returns the layers and the logits of every position."""
    n = len(ids)
    eps = 1e-12 if kind == "distilbert" else c["layer_norm_eps"]
    ln = lambda x, name: layer_norm(x, W[name + ".weight"], W[name + ".bias"], eps)
    lin = lambda x, name: x @ W[name + ".weight"].T + W[name + ".bias"]
    if kind == "roberta":  # create_position_ids_from_input_ids
        pad = c["pad_token_id"]
        mask = torch.tensor([int(i != pad) for i in ids])
        positions = (torch.cumsum(mask, 0) * mask + pad).tolist()
    else:
        positions = list(range(n))
    x = W["embeddings.word_embeddings.weight"][ids] + W["embeddings.position_embeddings.weight"][positions]
    if kind != "distilbert":
        x = x + W["embeddings.token_type_embeddings.weight"][types]
    x = ln(x, "embeddings.LayerNorm")
    if kind == "distilbert":
        H, L = c["n_heads"], c["n_layers"]
    else:
        H, L = c["num_attention_heads"], c["num_hidden_layers"]
    d = x.shape[1]
    dh = d // H
    layers = []
    for i in range(L):
        if kind == "distilbert":
            p = f"transformer.layer.{i}."
            q, k, v, o = (p + "attention." + s for s in ("q_lin", "k_lin", "v_lin", "out_lin"))
            n1, up, down, n2 = p + "sa_layer_norm", p + "ffn.lin1", p + "ffn.lin2", p + "output_layer_norm"
        else:
            p = f"encoder.layer.{i}."
            q, k, v = (p + "attention.self." + s for s in ("query", "key", "value"))
            o, n1 = p + "attention.output.dense", p + "attention.output.LayerNorm"
            up, down, n2 = p + "intermediate.dense", p + "output.dense", p + "output.LayerNorm"
        Q = lin(x, q).view(n, H, dh).transpose(0, 1)
        K = lin(x, k).view(n, H, dh).transpose(0, 1)
        V = lin(x, v).view(n, H, dh).transpose(0, 1)
        if kind == "distilbert":   # q = q / math.sqrt(dim_per_head); scores = q @ k^T
            scores = (Q / math.sqrt(dh)) @ K.transpose(-1, -2)
        else:                      # scores = q @ k^T / math.sqrt(attention_head_size)
            scores = (Q @ K.transpose(-1, -2)) / math.sqrt(dh)
        weights = torch.softmax(scores, dim=-1)
        probs = weights.clone()
        if zero_head is not None and zero_head[0] == i:
            probs[zero_head[1]] = 0.0
        ctx = (probs @ V).transpose(0, 1).reshape(n, d)
        attn_out = lin(ctx, o)
        layers.append({"attn_in": x, "attn_out": attn_out, "weights": weights})
        x = ln(attn_out + x, n1)
        x = ln(lin(gelu_erf(lin(x, up)), down) + x, n2)
    t = layer_norm(gelu_erf(x @ W[head[0] + ".weight"].T + W[head[0] + ".bias"]),
                   W[head[1] + ".weight"], W[head[1] + ".bias"], eps)
    logits = t @ W["embeddings.word_embeddings.weight"].T + W[head[2]]
    return layers, logits


def make_encoder_model(spec):
    kind, c = spec["kind"], spec["config"]
    folder = os.path.join(ROOT, spec["name"])
    W32, head = encoder_weights(kind, c, Rand(spec["seed"]))
    if os.path.isdir(folder):
        for f in os.listdir(folder):
            os.remove(os.path.join(folder, f))
    write_json(os.path.join(folder, "config.json"), c)
    for fname, text in spec["tok_files"].items():
        write(os.path.join(folder, fname), text)
    prefix = kind + "."
    stored = {}
    for name, a in W32.items():
        full = name if name.startswith(head[0]) or name.startswith(head[1]) or name == head[2] else prefix + name
        if spec.get("gamma_beta") and name.startswith("embeddings.LayerNorm."):
            full = full.replace(".weight", ".gamma").replace(".bias", ".beta")
        stored[full] = ("F32", a)
    blob, _ = safetensors_bytes(stored)
    write(os.path.join(folder, "model.safetensors"), blob)
    raw = read_safetensors(os.path.join(folder, "model.safetensors"))
    W = {}
    for full, (dtype, a) in raw.items():
        name = full[len(prefix):] if full.startswith(prefix) else full
        name = name.replace(".gamma", ".weight").replace(".beta", ".bias")
        W[name] = torch.from_numpy(np.ascontiguousarray(a, dtype=np.float64))
    assert set(W) == set(W32)
    H = c["n_heads"] if kind == "distilbert" else c["num_attention_heads"]
    L = c["n_layers"] if kind == "distilbert" else c["num_hidden_layers"]
    cases, inputs = [], []
    for ci, (text, pair, ids, types) in enumerate(spec["cases"]):
        if ids is None:
            ids, types = spec["encode"](text, pair)
            inputs.append((text if pair is None else f"{text} | {pair}", ids))
        layers, logits = forward_encoder(kind, c, W, ids, types, head)
        masked = [i for i, t in enumerate(ids) if t == spec["mask"]]
        assert masked, "every case masks a word"
        case = {"ids": list(ids), "types": list(types)}
        if text is not None:
            case["text"] = text
        if pair is not None:
            case["pair"] = pair
        case["layers"] = [{"attn_in": mat(l["attn_in"]), "attn_out": mat(l["attn_out"]),
                           "heads": [{"weights": mat(l["weights"][h])} for h in range(H)]} for l in layers]
        case["masked"] = [{"position": i, "top": top5(logits[i])} for i in masked]
        hl, hh = [(L - 1, H - 1), (0, 1 % H), (1 % L, 0)][ci % 3]
        _, lo = forward_encoder(kind, c, W, ids, types, head, zero_head=(hl, hh))
        case["head_off"] = {"layer": hl, "head": hh, "masked": [{"position": i, "top": top5(lo[i])} for i in masked]}
        for l in layers:  # bidirectional: no zero above the diagonal, rows sum to one
            assert torch.allclose(l["weights"].sum(-1), torch.ones(H, len(ids)), atol=1e-12, rtol=0)
            assert bool((l["weights"] > 0).all())
        cases.append(case)
    write(os.path.join(folder, "reference.json"), dumps({"cases": cases}) + "\n")
    return folder, inputs, []


ROBERTA_SPECIALS = [("<s>", 0), ("<pad>", 1), ("</s>", 2), ("<unk>", 3)]


def roberta_tokenizer(merges):
    """FacebookAI/roberta-base's tokenizer.json form: <s> <pad> </s> <unk> at ids 0-3, the byte-level
    BPE above from id 4, <mask> last with lstrip true (it takes the space before it);
    ByteLevel(add_prefix_space false, use_regex true); RobertaProcessing."""
    vocab = dict(ROBERTA_SPECIALS)
    vocab.update(bpe_vocab(merges, offset=4))
    mask = len(vocab)
    vocab["<mask>"] = mask
    bpe = RefTokenizer({k: v for k, v in vocab.items() if v >= 4 and k != "<mask>"}, merges, pre_gpt2)
    added = [added_entry(i, c) for c, i in ROBERTA_SPECIALS] + [dict(added_entry(mask, "<mask>"), lstrip=True)]
    doc = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": None,
           "pre_tokenizer": byte_level(False, True, True),
           "post_processor": {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0],
                              "trim_offsets": True, "add_prefix_space": False},
           "decoder": byte_level(True, True, True),
           "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                     "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                     "vocab": vocab, "merges": [f"{a} {b}" for a, b in merges]}}

    def one(text):  # <mask> split out first, the whitespace before it its own (lstrip)
        ids = []
        for seg in re.split(r"(\s*<mask>)", text):
            if seg.strip() == "<mask>":
                ids.append(mask)
            elif seg:
                ids += bpe.encode(seg)
        return ids

    def pair(a, b):
        ids = [0] + one(a) + [2] + ([] if b is None else [2] + one(b) + [2])
        return ids, [0] * len(ids)
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n", pair, mask, len(vocab)


def build_encoder_models(merges):
    models = []
    roberta_json, roberta_pair, roberta_mask, roberta_V = roberta_tokenizer(merges)
    models.append(dict(
        name="roberta-f32", kind="roberta", seed=4002, tok_files={"tokenizer.json": roberta_json}, mask=roberta_mask,
        encode=roberta_pair,
        config={  # FacebookAI/roberta-base's config.json, sizes shrunk
            "architectures": ["RobertaForMaskedLM"], "attention_probs_dropout_prob": 0.1, "bos_token_id": 0,
            "eos_token_id": 2, "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 16,
            "initializer_range": 0.02, "intermediate_size": 32, "layer_norm_eps": 1e-05,
            "max_position_embeddings": 34, "model_type": "roberta", "num_attention_heads": 2,
            "num_hidden_layers": 2, "pad_token_id": 1, "type_vocab_size": 1, "vocab_size": roberta_V},
        cases=[("The cat <mask> on the mat.", None, None, None),
               ("The dog <mask> big!", "She was in the <mask>.", None, None),
               (None, None, [0, 70, roberta_mask, 300, 2, 1, 1], [0] * 7)]))
    wp = {"tokenizer.json": wordpiece_json()}
    V = len(WP_VOCAB)
    mask = WP_VOCAB.index("[MASK]")
    models.append(dict(
        name="bert-f32", kind="bert", seed=4001, tok_files=wp, mask=mask, encode=wordpiece_pair, gamma_beta=True,
        config={  # google-bert/bert-base-uncased's config.json, sizes shrunk
            "architectures": ["BertForMaskedLM"], "attention_probs_dropout_prob": 0.1,
            "gradient_checkpointing": False, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
            "hidden_size": 16, "initializer_range": 0.02, "intermediate_size": 32, "layer_norm_eps": 1e-12,
            "max_position_embeddings": 32, "model_type": "bert", "num_attention_heads": 2,
            "num_hidden_layers": 2, "pad_token_id": 0, "position_embedding_type": "absolute",
            "transformers_version": "4.6.0.dev0", "type_vocab_size": 2, "use_cache": True, "vocab_size": V},
        cases=[("The cat [MASK] on the mat.", None, None, None),
               ("The dog [MASK] big!", "She was playing in the [MASK].", None, None),
               (None, None, [2, 9, 4, 10, 3, 12, 4, 3], [0, 0, 0, 0, 0, 1, 1, 1])]))
    models.append(dict(
        name="distilbert-f32", kind="distilbert", seed=4003, tok_files=wp, mask=mask,
        encode=lambda a, b: (wordpiece_pair(a, b)[0], [0] * len(wordpiece_pair(a, b)[0])),
        config={  # distilbert/distilbert-base-uncased's config.json, sizes shrunk
            "activation": "gelu", "architectures": ["DistilBertForMaskedLM"], "attention_dropout": 0.1,
            "dim": 16, "dropout": 0.1, "hidden_dim": 32, "initializer_range": 0.02,
            "max_position_embeddings": 32, "model_type": "distilbert", "n_heads": 2, "n_layers": 2,
            "pad_token_id": 0, "qa_dropout": 0.1, "seq_classif_dropout": 0.2, "sinusoidal_pos_embds": True,
            "tie_weights_": True, "transformers_version": "4.6.0.dev0", "vocab_size": V},
        cases=[("The cat [MASK] on the mat.", None, None, None),
               ("The dog [MASK] big!", "She was playing in the [MASK].", None, None)]))
    return models


# --------------------------------------------------------------------------------------------
# Self-checks.
# --------------------------------------------------------------------------------------------

def self_check_case(spec, c, W, ids, layers, logits, H, G):
    n = len(ids)
    rep = H // G
    for i, l in enumerate(layers):
        w = l["weights"]
        assert torch.allclose(w.sum(-1), torch.ones(H, n), atol=1e-12, rtol=0)
        assert bool((w.triu(1) == 0).all()), "causal zeros"
        # GQA: query head h against K head h // rep, one head at a time (no repeat_kv)
        dh = l["q"].shape[-1]
        for h in range(H):
            g = h // rep if spec["arch"] != "gpt2" else h
            s = l["q"][h] @ l["k"][g].T / math.sqrt(dh)
            s = s + torch.triu(torch.full((n, n), -math.inf), 1)
            e = torch.exp(s - s.max(-1, keepdim=True).values)
            assert torch.allclose(e / e.sum(-1, keepdim=True), w[h], atol=1e-14, rtol=0)
        # attn_out as the sum over heads of o_h W_o[h] (+ b_o)
        if spec["arch"] == "gpt2":
            Wo, bo = W[f"h.{i}.attn.c_proj.weight"], W[f"h.{i}.attn.c_proj.bias"]
        else:
            Wo = W[f"model.layers.{i}.self_attn.o_proj.weight"].T
            bo = torch.zeros(Wo.shape[1])
        total = bo.expand(n, -1).clone()
        for h in range(H):
            total += (w[h] @ l["v"][h if spec["arch"] == "gpt2" else h // rep]) @ Wo[h * dh:(h + 1) * dh]
        assert torch.allclose(total, l["attn_out"], atol=1e-12, rtol=0)
    if spec["arch"] != "gpt2":   # RoPE (rotate_half) against the complex form on (x_i, x_{i+dh/2})
        dh = layers[0]["q"].shape[-1]
        x = torch.from_numpy(np.random.default_rng(7).standard_normal((n, dh)))
        cos, sin = rope_cos_sin(n, dh, c["rope_theta"])
        rot = x * cos + rotate_half(x) * sin
        inv = 1.0 / (c["rope_theta"] ** (torch.arange(0, dh, 2, dtype=torch.float64) / dh))
        z = torch.complex(x[:, :dh // 2], x[:, dh // 2:]) * torch.polar(
            torch.ones(n, dh // 2), torch.outer(torch.arange(n, dtype=torch.float64), inv))
        assert torch.allclose(torch.cat((z.real, z.imag), -1), rot, atol=1e-12, rtol=0)
    assert logits.shape[0] == c["vocab_size"]


def check_formulas():
    x = torch.from_numpy(np.random.default_rng(3).standard_normal((5, 7))) * 2
    w, b = torch.linspace(0.5, 1.5, 7), torch.linspace(-0.2, 0.3, 7)
    F = torch.nn.functional
    assert torch.allclose(layer_norm(x, w, b, 1e-5), F.layer_norm(x, (7,), w, b, 1e-5), atol=1e-13)
    assert torch.allclose(gelu_new(x), F.gelu(x, approximate="tanh"), atol=1e-13)
    assert torch.allclose(silu(x), F.silu(x), atol=1e-13)
    a = np.random.default_rng(5).standard_normal(1000).astype(np.float32) * 3
    assert np.array_equal(to_bf16_bits(a), torch.from_numpy(a).to(torch.bfloat16).view(torch.int16).numpy().view("<u2"))


def main():
    check_formulas()
    merges = learn_merges(CORPUS, MERGES)
    assert len(merges) == MERGES
    summary = []
    for spec in build_models(merges):
        folder, inputs, encode = make_model(spec)
        summary.append((spec["name"], inputs, encode))
    for spec in build_family_models(merges):
        folder, inputs, encode = make_family_model(spec)
        summary.append((spec["name"], inputs, encode))
    for spec in build_encoder_models(merges):
        folder, inputs, encode = make_encoder_model(spec)
        summary.append((spec["name"], inputs, encode))
    total = 0
    for dirpath, _, files in os.walk(ROOT):
        total += sum(os.path.getsize(os.path.join(dirpath, f)) for f in files)
    for name, inputs, encode in summary:
        size = sum(os.path.getsize(os.path.join(ROOT, name, f)) for f in os.listdir(os.path.join(ROOT, name)))
        print(f"{name}: {size} bytes")
        for text, ids in inputs:
            if text is not None:
                print(f"  {text!r} -> {ids}")
        for e in encode:
            print(f"  (encode) {e['text']!r} -> {e['ids']}")
    digest = hashlib.sha256()
    for dirpath, _, files in sorted(os.walk(ROOT)):
        for f in sorted(files):
            with open(os.path.join(dirpath, f), "rb") as fh:
                digest.update(f.encode() + fh.read())
    print(f"total {total} bytes in {ROOT}, sha256 {digest.hexdigest()}")


if __name__ == "__main__":
    main()
