#pragma once
/// The resolved model: a Scenario checked for shapes and values and turned into the rows convention
/// (Q = X W_q + b_q, every head's projections side by side), whatever the scenario's layout. Every
/// shape check lives here.
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/scenario.h"

namespace attnlab {

/// One head's weights: views into its Model's side-by-side matrices, valid while that Model lives.
struct HeadWeights {
  Eigen::Block<const Matrix> W_q;  ///< d_x by d_k
  Eigen::Block<const Matrix> W_k;  ///< d_z by d_k
  Eigen::Block<const Matrix> W_v;  ///< d_z by d_v
  Eigen::VectorBlock<const Vector> b_q, b_k, b_v;  ///< d_k, d_k, d_v (zeros when absent)
};

/// A matrix held by whoever shares it: the scenario's own, or one a Model made.
using SharedMatrix = std::shared_ptr<const Matrix>;

/// Queries, keys and values projected outside the core, biases included: a model's forward pass
/// multiplies its own weights in float (models/src/transformer.cpp) and hands the core the rest of
/// the attention. Q is n_x by H d_k, K n_z by G d_k, V n_z by G d_v, heads side by side.
struct GivenProjections {
  Matrix Q, K, V;
};

struct Model {
  /// The inputs in the rows convention. Each is the scenario's own matrix, shared with it (not
  /// copied), where the scenario stores it that way: rows layout, whole projections. Otherwise the
  /// Model's own: a transpose (columns layout), the heads side by side (per-head weights) or an
  /// identity (an omitted W).
  SharedMatrix X;            ///< n_x by d_x (with a positional encoding: X + PE, what the projections read)
  SharedMatrix Z;            ///< n_z by d_z for cross-attention (Z + PE); null for self-attention: use keys()
  /// Every head's projections side by side: head h's W_q is columns [h d_k, (h + 1) d_k) of W_q
  /// (d_x by H d_k); W_k is d_z by G d_k, W_v d_z by G d_v (G key/value heads).
  SharedMatrix W_q, W_k, W_v;
  Vector b_q, b_k, b_v;      ///< H d_k, G d_k, G d_v (zeros when absent)
  SharedMatrix W_o;          ///< H d_v by d_out; null without an output projection
  Vector b_o;                ///< d_out (zeros when absent)
  BoolArray allowed;         ///< n_x by n_z
  double scale = 1.0;        ///< multiplies the scores
  int num_heads = 0;         ///< H
  int num_kv_heads = 0;      ///< G, dividing H
  int d_k = 0, d_v = 0;
  /// Every token's position: the queries' (n_x) and the keys' (n_z; the queries' in self-attention).
  std::vector<double> query_positions, key_positions;
  std::optional<Rope> rope;    ///< dims resolved (> 0); none: no rotation
  /// With RoPE: each pair's angle per position, theta_c / divisor_c (rope.scaling applied), R/2.
  std::vector<double> rope_frequencies;
  std::optional<QkNorm> qk_norm;  ///< weights checked: head scope d_k each, width H d_k and G d_k
  double softcap = 0;             ///< > 0: scaled scores capped, softcap tanh(s / softcap); 0: none
  std::vector<double> slopes;  ///< ALiBi, one per query head; empty: none
  std::vector<bool> head_off;  ///< one per query head: its output is zero (Scenario::heads_off)
  bool positional_encoding = false;  ///< X (and Z) above include the sinusoidal encoding
  /// With given projections compute_into() takes each head's columns of them instead of multiplying
  /// X by W_q, W_k, W_v (then null; X is Q itself, for the shapes; b_q, b_k, b_v zeros) and computes
  /// every stage after the projection (QK-norm, RoPE, scores, caps, mask, softmax, head outputs) as
  /// for any scenario. Null: the projections are the core's.
  std::shared_ptr<const GivenProjections> given;
  /// The queries' names: the scenario's tokens (may be empty).
  std::shared_ptr<const std::vector<std::string>> tokens;

  bool has_W_o() const { return W_o != nullptr; }
  bool is_off(std::size_t h) const { return h < head_off.size() && head_off[h]; }

  /// Query i's name in warnings: its token, or "#i" when the scenario names none.
  std::string query_label(Eigen::Index i) const {
    return !tokens || tokens->empty() ? "#" + std::to_string(i) : (*tokens)[std::size_t(i)];
  }

  /// The tokens attended to: Z, or X itself for self-attention.
  const Matrix& keys() const { return Z ? *Z : *X; }

  /// The key/value head query head h reads: consecutive query heads share (Llama's repeat_kv).
  int kv_head(std::size_t h) const { return int(h) / (num_heads / num_kv_heads); }

  /// Head h's weights (0 <= h < num_heads): its own W_q, its key/value head's W_k and W_v.
  HeadWeights head(std::size_t h) const {
    const Eigen::Index q = Eigen::Index(h) * d_k, g = kv_head(h), k = g * d_k, v = g * d_v;
    return {W_q->middleCols(q, d_k), W_k->middleCols(k, d_k), W_v->middleCols(v, d_v),
            b_q.segment(q, d_k),     b_k.segment(k, d_k),     b_v.segment(v, d_v)};
  }
};

/// A scaled score plus ALiBi's bias, scale S + B, with one rounding (a fused multiply-add), so that
/// the softmax, the trace's masked stage and the window's Inspector get the same double wherever
/// the compiler would or would not have fused it.
inline double biased_logit(double score, double scale, double bias) { return std::fma(score, scale, bias); }

/// The scaled score as the softmax reads it before ALiBi's bias: scale S, or with a softcap
/// (Gemma 2) softcap tanh(scale S / softcap). One function, so the core, the trace's derived stages
/// and the Inspector get the same double.
inline double capped_logit(double score, double scale, double softcap) {
  return softcap * std::tanh(score * scale / softcap);
}

/// The logit with a softcap: capped_logit() + ALiBi's bias (0 without).
inline double softcapped_logit(double score, double scale, double softcap, double bias) {
  return capped_logit(score, scale, softcap) + bias;
}

/// 1 / sqrt(mean(x^2) + eps) of a row: what QK-norm multiplies it by before its weights.
template <typename Row>
double inverse_rms(const Row& x, double eps) {
  return 1.0 / std::sqrt(x.squaredNorm() / double(x.size()) + eps);
}

/// QK-norm's weights for the d_k coordinates of query head h (`query`) or key/value head h: w, or
/// 1 + w (plus_one, Gemma's RMSNorm); over the whole width, the head's segment of w.
inline Vector qk_norm_gain(const QkNorm& norm, bool query, Eigen::Index h, Eigen::Index d_k) {
  const Vector& w = query ? norm.w_q : norm.w_k;
  Vector gain = norm.scope == QkNorm::Scope::head ? w : Vector(w.segment(h * d_k, d_k));
  if (norm.plus_one) gain.array() += 1.0;
  return gain;
}

/// QK-norm of `rows` (n by d_k): query head h's (`query`) or key/value head h's projections of
/// the tokens `in` (n by d_x or d_z), normalised over the head's d_k, or over the whole width,
/// whose rows in W + b are then projected again for their means. The compute's own path
/// (attention.cpp) normalises in place; single queries and decoding use this.
Matrix qk_normalised(const Model& model, const Matrix& rows, bool query, Eigen::Index h, const Matrix& in);

/// ALiBi's bias for query head h at (query i, key j), rows convention: -slope_h |p_i - c_j|.
inline double alibi_bias(const Model& m, std::size_t h, Eigen::Index i, Eigen::Index j) {
  return -m.slopes[h] * std::abs(m.query_positions[std::size_t(i)] - m.key_positions[std::size_t(j)]);
}

/// Which key each query may attend among n tokens at positions 0 .. n - 1: the causal mask, and with
/// `window` > 0 only the `window` latest keys, the query's own included (|i - j| < window).
BoolArray causal_mask(long n, int window = 0);

/// Checks every shape, count and value against the others; throws ScenarioError naming the field,
/// e.g. `heads[1].W_k: expected 8x4 (d_z x d_k), got 8x3`.
/// The Model keeps `scenario` alive and shares its matrices (resolving copies none of a rows-layout
/// scenario with whole projections: the window resolves each committed version so).
Model resolve(std::shared_ptr<const Scenario> scenario);
/// resolve() of a copy of `scenario`.
Model resolve(const Scenario& scenario);
/// resolve() and discard: throws ScenarioError when the scenario cannot be computed.
void validate(const Scenario& scenario);

/// Converts a scenario to the other layout (transposes every matrix); tokens, weights unchanged.
Scenario with_layout(const Scenario& scenario, Layout layout);

}  // namespace attnlab
