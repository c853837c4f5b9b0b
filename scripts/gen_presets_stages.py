#!/usr/bin/python3
"""Writes the presets of the stages Hugging Face models add to attention: assets/presets/modern-*.json
for Gemma 2's softcap, Qwen3's QK-norm and Llama 3's RoPE scaling.

    /usr/bin/python3 scripts/gen_presets_stages.py            # write them
    /usr/bin/python3 scripts/gen_presets_stages.py --check    # only check, write nothing

As scripts/gen_presets_modern.py does for the earlier features: small seeded numbers rounded to two
decimals, notes that say what the stage does and what to try, a lesson for the presenter, and
before a preset is written the NumPy reference of scripts/gen_fixtures_stages.py (independent of the
C++ core) computes it and the script asserts that it shows what its notes claim.
"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_presets_modern as modern  # noqa: E402  (draw, spec_of, lesson, step, the writer)
from gen_fixtures_stages import inv_freq, reference  # noqa: E402

draw, lesson, step = modern.draw, modern.lesson, modern.step


def spec_of(p):
    s = modern.spec_of(p)
    if "qk_norm" in p:
        s["qk_norm"] = {k: (np.array(v, dtype=float) if k.startswith("w_") else v) for k, v in p["qk_norm"].items()}
    return s


def preset_softcap():
    tokens = ["Paris", "is", "the", "capital", "of"]
    d = 4
    p = {"format": "attnlab/1",
         "title": "Gemma 2's softcap: what tanh does to a runaway score",
         "layout": "rows", "tokens": tokens,
         "X": draw(260, 5, d).tolist(), "num_heads": 1,
         "W_q": (draw(261, d, d) * 4).round(2).tolist(), "W_k": (draw(262, d, d) * 4).round(2).tolist(),
         "W_v": draw(263, d, d).tolist(), "mask": "causal", "softcap": 5.0}
    h = reference(spec_of(p))["heads"][0]
    scaled, capped = h["scaled"], h["capped"]
    allowed = np.tril(np.ones((5, 5), dtype=bool))
    assert np.abs(scaled[allowed]).max() > 10, "a runaway score to cap"
    assert np.abs(capped).max() < 5.0, "none passes the cap"
    small = allowed & (np.abs(scaled) < 1)
    assert small.any() and np.abs(capped[small] - scaled[small]).max() < 0.05, "small scores pass almost unchanged"
    i, j = np.unravel_index(np.argmax(np.where(allowed, np.abs(scaled), 0)), scaled.shape)
    plain = reference(dict(spec_of(p), softcap=0))["heads"][0]["weights"]
    assert plain[i].max() > 0.999 and h["weights"][i].max() < 0.5, "without the cap one key takes everything"
    p["notes"] = (
        "Gemma 2 (2024) caps its attention logits: after the scale, every score s becomes c tanh(s / c), here "
        "with c = 5 (Gemma 2 uses 50 on scores of its own size). tanh is almost the identity near 0 and flattens "
        "towards 1, so a score well below c passes nearly unchanged, and no score, however large, passes c.\n\n"
        "Why: with large weights a few scores run away (here up to about %d), the softmax then puts all the "
        "weight on one key, and training becomes unstable. The cap keeps the logits in a band while leaving the "
        "order of the scores as it was.\n\n"
        "What to look at: compare 'scaled' with 'softcapped' in the Pipeline. Hover a cell of 'softcapped': the "
        "Inspector writes the tanh with the numbers. Then 'weights': each row still prefers the same key, but "
        "less absolutely: '%s' put all its weight on itself, now it spreads it over three keys.\n\n"
        "Try: set the cap to 50 (Setup > QK-norm and softcap): almost nothing changes, the scores are below it. "
        "Set it to 1: every row flattens. Switch it off and see one key per row take all the weight."
        % (int(round(float(np.abs(scaled[allowed]).max()))), tokens[i]))
    p["view"] = lesson("A softcap of 5", [
        step("inputs", "Five tokens, four numbers each."),
        step("scaled", "Large weights: some scaled scores run away.", head=0, highlight=[[int(i), int(j)]]),
        step("capped", "c tanh(s / c) with c = 5: what happens to the largest score?", head=0, predict=True,
             highlight=[[int(i), int(j)]]),
        step("weights", "The same preferences, less absolute. Where does '%s' look now?" % tokens[i], head=0,
             highlight=[[int(i), k] for k in range(int(i) + 1)])])
    return "modern-gemma2-softcap.json", p


def preset_qk_norm():
    tokens = ["the", "model", "keeps", "on", "learning"]
    d, dk = 8, 4
    p = {"format": "attnlab/1",
         "title": "Qwen3's QK-norm: why the logits stop growing",
         "layout": "rows", "tokens": tokens,
         "X": draw(270, 5, d).tolist(), "num_heads": 2,
         "W_q": (draw(271, d, 2 * dk) * 6).round(2).tolist(), "W_k": (draw(272, d, 2 * dk) * 6).round(2).tolist(),
         "W_v": draw(273, d, 2 * dk).tolist(), "mask": "causal",
         "qk_norm": {"scope": "head", "eps": 1e-6, "w_q": [1.0, 1.2, 0.8, 1.0], "w_k": [1.0, 0.9, 1.1, 1.0]}}
    spec = spec_of(p)
    normed = reference(spec)
    grown = reference(dict(spec, W_q=spec["W_q"] * 10, W_k=spec["W_k"] * 10))
    raw = reference({k: v for k, v in spec.items() if k != "qk_norm"})
    for a, b in zip(normed["heads"], grown["heads"]):  # ten times the weights: the same scores
        assert np.abs(a["scores"] - b["scores"]).max() < 1e-6 * np.abs(a["scores"]).max()
    rms = np.sqrt(np.mean(normed["heads"][0]["Q_norm"] ** 2 / np.array(p["qk_norm"]["w_q"]) ** 2, axis=1))
    assert np.allclose(rms, 1.0, atol=1e-6), "each normalised query has RMS 1 before its weights"
    assert np.abs(raw["heads"][0]["scaled"]).max() > 20 > np.abs(normed["heads"][0]["scaled"]).max()
    p["notes"] = (
        "Qwen3 (2025), Gemma 3 and OLMo 2 normalise every query and every key before the scores: q becomes "
        "q / sqrt(mean(q^2) + eps) times a learned weight w per coordinate (RMSNorm over the head's d_k = 4; "
        "OLMo 2 normalises the whole projected row instead, Gemma writes the weight as 1 + w).\n\n"
        "Why: a score is q . k, and q and k grow with the weights. During training they can grow without "
        "bound, the logits with them, and the softmax saturates (one key takes all). After QK-norm every q and "
        "k has a root mean square of 1 (times w), so a score is at most d_k max|w_q| max|w_k| whatever the "
        "weights: here the largest scaled score is %.1f, without the norm it would be %.1f.\n\n"
        "What to look at: Q against Q_norm in the Pipeline (hover a Q_norm cell: the Inspector divides by the "
        "row's RMS and multiplies by w), then the scores.\n\n"
        "Try: multiply W_q by 10 (in the file, or cell by cell in Inputs): Q grows tenfold, Q_norm and the scores "
        "do not move (QK-norm divides the growth away). Switch QK-norm off in Setup > QK-norm and softcap and watch the scores jump."
        % (float(np.abs(normed["heads"][0]["scaled"]).max()), float(np.abs(raw["heads"][0]["scaled"]).max())))
    p["view"] = lesson("QK-norm: queries and keys of one size", [
        step("Q", "Large weights: large queries.", head=0),
        step("Q_norm", "Each query divided by its RMS, times w. How large can a cell be now?", head=0, predict=True),
        step("K_norm", "The keys too.", head=0),
        step("scores", "Scores of normalised vectors stay small.", head=0),
        step("weights", "The softmax still chooses, without saturating.", head=0)])
    return "modern-qwen3-qk-norm.json", p


def preset_rope_scaling():
    tokens = ["t0", "t1", "t2", "t3", "t4", "t5"]
    d = 8
    scaling = {"type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
               "original_positions": 1024}
    p = {"format": "attnlab/1",
         "title": "Llama 3's RoPE scaling: which frequencies are stretched",
         "layout": "rows", "tokens": tokens,
         "X": draw(280, 6, d).tolist(), "num_heads": 1,
         "W_q": draw(281, d, d).tolist(), "W_k": draw(282, d, d).tolist(), "W_v": draw(283, d, d).tolist(),
         "positions": [0, 400, 800, 1200, 1600, 2000], "mask": "causal",
         "rope": {"style": "half", "base": 10000, "scaling": scaling}}
    freq, _ = inv_freq(p["rope"], d, 2000)
    plain, _ = inv_freq({"base": 10000}, d, 2000)
    divisors = plain / freq
    assert divisors[0] == 1 and divisors[1] == 1, "the two fastest pairs are kept"
    assert 1 < divisors[2] < 8, "the third is blended"
    assert abs(divisors[3] - 8) < 1e-12, "the slowest is divided by 8"
    wavelengths = [2 * math.pi / f for f in plain]
    scaled = reference(spec_of(p))["heads"][0]
    unscaled = reference(dict(spec_of(p), rope={"style": "half", "base": 10000}))["heads"][0]
    assert np.abs(scaled["Q_rot"][:, [0, 1, 4, 5]] - unscaled["Q_rot"][:, [0, 1, 4, 5]]).max() < 1e-12
    assert np.abs(scaled["Q_rot"][:, [3, 7]] - unscaled["Q_rot"][:, [3, 7]]).max() > 0.1
    p["notes"] = (
        "Llama 3.1 was trained on 8192 tokens and runs on 128k. Its RoPE scaling stretches the slow "
        "frequencies only: a pair whose wavelength 2 pi / theta is longer than the original context / "
        "low_freq_factor is divided by factor, a pair shorter than original / high_freq_factor keeps its "
        "frequency, and those between are blended smoothly (Hugging Face's _compute_llama3_parameters).\n\n"
        "Here R = 8: four pairs of wavelengths %s positions, with an original context of 1024, factor 8, low 1 "
        "and high 4. Pairs 0 and 1 (wavelengths below 256) keep their frequency: they tell neighbours apart, "
        "as before. Pair 2 (%d) is blended, divided by %.2f. Pair 3 (%d, longer than 1024) is divided by 8: it "
        "now turns as if the positions were 8 times closer, so 2000 positions look like 250 to it and stay "
        "within what the model saw in training.\n\n"
        "What to look at: Q_rot against Q, and hover a cell of pair 3 (coordinates 3 and 7): the Inspector writes "
        "theta divided by 8. Coordinates 0, 1, 4, 5 turn exactly as without scaling.\n\n"
        "Try: in Setup > Positions > RoPE set scaling to none and see only pairs 2 and 3 change; set it to "
        "linear (every pair divided) and the fast pairs blur too."
        % (", ".join(str(int(round(w))) for w in wavelengths), int(round(wavelengths[2])), float(divisors[2]),
           int(round(wavelengths[3]))))
    p["view"] = lesson("Llama 3's RoPE scaling", [
        step("Q", "Six tokens 400 positions apart.", head=0),
        step("Q_rot", "Which coordinates turn as without scaling, which more slowly?", head=0, predict=True,
             highlight=[[5, 3], [5, 7]]),
        step("K_rot", "The keys turn by the same stretched angles.", head=0),
        step("weights", "Far-apart tokens, still told apart by the fast pairs.", head=0)])
    return "modern-llama3-rope-scaling.json", p


def main(argv):
    modern.write_presets((preset_softcap, preset_qk_norm, preset_rope_scaling), "--check" in argv,
                         "scripts/gen_presets_stages.py")


if __name__ == "__main__":
    main(sys.argv[1:])
