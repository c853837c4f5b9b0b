#pragma once
/// The KV cache, token by token: causal self-attention computed as a model generating text computes
/// it. The first P tokens are prefilled at once; then each token t from P to n - 1 is decoded alone:
/// its q, k and v (k rotated once, at its own position, with RoPE) are projected, k and v join the
/// cache of their key/value head, keys no query from t on may attend leave it (a sliding window
/// evicts, sinks stay), and the new query attends over what the cache holds. The decoded rows equal
/// the full causal computation's (to rounding).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/model.h"
#include "attnlab/scenario.h"

namespace attnlab {

/// One decoded token.
struct DecodeStep {
  int token = 0;           ///< t, 0-based
  /// The token indices the cache holds after the step, ascending (the cache order): every j <= t
  /// that query t or a later query may attend. The same for every key/value head.
  std::vector<int> cache;
  std::vector<Vector> q;        ///< per query head: q_t (rotated with RoPE), d_k
  std::vector<Vector> weights;  ///< per query head: one weight per cache entry, in cache order
  Vector output;                ///< the output row of token t, d_out (or H d_v without W_o)
};

/// The KV cache's size per layer: each held token stores a key (d_k numbers) and a value (d_v) per
/// key/value head, per_token = G (d_k + d_v) x bytes_per_number (2 G d_head b when d_k = d_v = d_head).
struct CacheSize {
  std::string name;   ///< "MHA", "GQA", "MQA" or "this scenario"
  int kv_heads = 0;   ///< G
  long per_token = 0;  ///< bytes per cached token
  long sequence = 0;   ///< n x per_token: every token held (no eviction)
  long held = 0;       ///< peak_tokens x per_token: the most the mask ever keeps (the window's cap)
};

/// How a cache's numbers are stored: a model layer's as its model stores its weights
/// (view.model.dtype: F32 4 bytes, F16 and BF16 2), a plain scenario's as attnlab computes (8).
struct CacheNumber {
  int bytes = 8;
  std::string name = "float64";  ///< "float64", or the dtype counted: "F32", "BF16"
  std::string source;            ///< the model's dtypes when more than one ("BF16+F32"), else ""
};

/// The numbers of `scenario`'s cache: view.model.dtype when it has one ("F32"; of several,
/// "BF16+F32", the narrowest, as the matrices are stored and norms kept wider), else float64.
/// Throws ScenarioError "view.model.dtype: expected ..." for anything but the safetensors float
/// names (F64, F32, F16, BF16) joined by "+".
CacheNumber cache_number(const Scenario& scenario);

struct CacheBytes {
  int bytes_per_number = 8;        ///< CacheNumber::bytes
  std::string number = "float64";  ///< CacheNumber::name
  std::string number_source;       ///< CacheNumber::source
  int peak_tokens = 0;       ///< the most tokens the cache holds after any step (or the prefill)
  CacheSize scenario;        ///< this scenario's G
  /// The same model (H query heads, d_k, d_v, n tokens) as MHA (G = H), GQA (the scenario's G when
  /// 1 < G < H, else the largest divisor of H between; none when H has no such divisor) and MQA (G = 1).
  std::vector<CacheSize> variants;
};

struct Decode {
  int prefill = 0;                 ///< P
  std::vector<int> prefill_cache;  ///< what the cache holds after the prefill
  /// Per key/value head, every token's cached key (rotated with RoPE) and value: n by d_k and
  /// n by d_v, rows convention. Row j enters the cache at max(j, P) (the prefill's rows at once).
  std::vector<Matrix> K, V;
  std::vector<DecodeStep> steps;  ///< tokens P .. n - 1
  CacheBytes bytes;
};

/// Throws ScenarioError naming the field unless the scenario is causal self-attention with
/// increasing positions ("Z: decode needs self-attention ...", "mask.causal: ...", "positions: ...").
void check_decodable(const Scenario& scenario);

/// Decodes `model` (resolved from `scenario`) with prefill P, 0 <= P < n (else "prefill: expected
/// 0 to n - 1, got P"). Each step costs O(cache x (d_k + d_v)) per head plus the projections of
/// one token.
Decode decode(const Scenario& scenario, const Model& model, int prefill);
/// resolve() then decode().
Decode decode(const Scenario& scenario, int prefill);

/// The cache sizes alone (what decode() puts in Decode::bytes, with the scenario's cache_number()),
/// for `peak_tokens` held at most.
CacheBytes cache_bytes(const Model& model, int peak_tokens, const CacheNumber& number = {});

/// `attnlab-cli decode`'s JSON: {"prefill": P, "steps": [{"token": t, "cache": [j, ...], "weights":
/// [[...per query head, in cache order...]], "output": [...]}, ...], "cache_bytes": {...}} (a value
/// that is not finite, after an overflow, as null).
nlohmann::json decode_to_json(const Decode& d);
/// How a token's cache entry adds up, for a class: "2 K/V heads × 4 numbers (a key of 2 and a value
/// of 2) × 8 bytes (float64) = 64 bytes per token per layer"; a model layer's "× 4 bytes (F32, as
/// the model stores its weights)".
std::string cache_bytes_sentence(const CacheBytes& b, int d_k, int d_v);
/// The cache sizes as a small table: a header, then one line each for this scenario, MHA, GQA and
/// MQA: K/V heads, bytes per token, for all `tokens`, and for the most the mask keeps held at once.
std::string cache_bytes_text(const CacheBytes& b, int tokens);

}  // namespace attnlab
