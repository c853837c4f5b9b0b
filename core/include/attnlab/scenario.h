#pragma once
/// The Scenario: everything the user edits. Matrices are stored exactly as in the file, i.e. in the
/// scenario's own layout (columns layout = transpose of the rows-layout matrix).
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/matrix.h"

namespace attnlab {

/// Invalid input. `what()` is one printable line of at most kMaxMessageBytes (message_text.h),
/// whatever the input quoted in it: `field.path: expected ..., got ...`.
class ScenarioError : public std::runtime_error {
 public:
  explicit ScenarioError(const std::string& message);
};

/// Throws ScenarioError("field: message"): the one way the readers and checks refuse input.
[[noreturn]] void refuse(const std::string& field, const std::string& message);

/// Projection weights of one head, or the full matrices that are split into heads.
/// An absent W means identity; an absent b means zero.
struct Projections {
  std::optional<Matrix> W_q, W_k, W_v;
  std::optional<Vector> b_q, b_k, b_v;
};

struct Scale {
  enum class Kind { inv_sqrt_dk, none, value };
  Kind kind = Kind::inv_sqrt_dk;
  double value = 1.0;  ///< only for Kind::value: multiplies the scores
};

/// All parts hold at once: a key is allowed iff every given part allows it.
struct MaskSpec {
  bool causal = false;          ///< query i may attend key j iff context_position(j) <= position(i)
  std::vector<int> padding;     ///< context tokens no query may attend (0-based)
  std::optional<Matrix> cells;  ///< 0/1, 1 = may attend; n_x by n_z (rows) or n_z by n_x (columns)
  int window = 0;               ///< >= 1: only keys with |position(i) - context_position(j)| < window; 0: none
  /// Attention sinks (StreamingLLM): keys j < sinks stay visible to every query that causal and the
  /// padding allow, whatever the window or the cells say; 0: none. More than n_z: every key.
  int sinks = 0;
  bool empty() const { return !causal && padding.empty() && !cells && window == 0 && sinks == 0; }
  /// Is key j (0-based) a sink?
  bool sink(long j) const { return j < sinks; }
};

/// RoPE scaling: the rule that stretches some of RoPE's frequencies for long contexts
/// (Hugging Face modeling_rope_utils.py). Per pair c the frequency theta_c is divided by a factor
/// (positional::rope_frequency_divisors()).
struct RopeScaling {
  enum class Kind { none, linear, llama3, longrope };
  Kind kind = Kind::none;
  double factor = 1.0;               ///< linear: every pair's divisor; llama3: the low frequencies' divisor
  double low_freq_factor = 1.0;      ///< llama3
  double high_freq_factor = 4.0;     ///< llama3
  double original_positions = 8192;  ///< llama3: original_max_position_embeddings; longrope: the length above which long_factors apply
  std::vector<double> short_factors, long_factors;  ///< longrope: one divisor per pair (R/2 each)
  double attention_factor = 1.0;     ///< longrope: cos and sin multiplied by it (the rotated coordinates scaled)
  bool operator==(const RopeScaling& o) const {
    return kind == o.kind && factor == o.factor && low_freq_factor == o.low_freq_factor &&
           high_freq_factor == o.high_freq_factor && original_positions == o.original_positions &&
           short_factors == o.short_factors && long_factors == o.long_factors && attention_factor == o.attention_factor;
  }
  bool operator!=(const RopeScaling& o) const { return !(*this == o); }
};

/// Rotary position embedding (Su et al.): each head's Q and K turned, pair by pair, by an angle
/// proportional to the token's position, so that q_i . k_j depends on positions only through i - j.
struct Rope {
  /// half: coordinate c pairs with c + R/2 (GPT-NeoX, Hugging Face Llama);
  /// interleaved: 2c pairs with 2c + 1 (RoFormer, GPT-J, Meta's Llama).
  enum class Style { half, interleaved };
  Style style = Style::half;
  double base = 10000.0;  ///< theta_c = base^(-2c/R)
  int dims = 0;           ///< R, the coordinates that rotate; 0: all of d_k
  RopeScaling scaling;    ///< how long-context models stretch the frequencies; none by default
};

/// ALiBi (Press et al.): head h's scaled scores get -slope_h |position(i) - context_position(j)|.
struct Alibi {
  std::vector<double> slopes;  ///< one per query head; empty: the paper's geometric slopes
};

/// QK-norm (Qwen3, Gemma 3, OLMo 2): RMSNorm of every query and key after the projection and its
/// bias, before RoPE: q <- q / sqrt(mean(q^2) + eps) * w   (or * (1 + w) when plus_one, Gemma's RMSNorm).
struct QkNorm {
  /// head: over each head's d_k (Qwen3, Gemma 3); width: over the whole H d_k row of Q and G d_k
  /// row of K (OLMo 2)
  enum class Scope { head, width };
  Scope scope = Scope::head;
  bool plus_one = false;
  double eps = 1e-6;
  Vector w_q, w_k;  ///< head: d_k each (shared by every head); width: H d_k and G d_k
};

enum class PositionalEncoding { none, sinusoidal };

struct Scenario {
  std::string title;
  std::string notes;
  Layout layout = Layout::rows;
  std::vector<std::string> tokens;          ///< labels of X's tokens; empty = none given
  std::vector<std::string> context_tokens;  ///< labels of Z's tokens; empty = none given
  Matrix X;                                 ///< n_x by d_x (rows) or d_x by n_x (columns)
  std::optional<Matrix> Z;                  ///< context; absent = self-attention (Z = X)
  int num_heads = 1;
  /// Key/value heads G (grouped-query attention; 1 = multi-query), 0 = one per query head. Full
  /// matrices: W_k and W_v are split into G heads; query head h reads key/value head h / (H / G).
  int num_kv_heads = 0;
  Projections full;                ///< full matrices split into num_heads heads (when heads empty)
  std::vector<Projections> heads;  ///< per-head weights; non-empty = per-head mode
  /// Per-head mode with grouping: the G key/value heads' W_k, b_k, W_v, b_v (heads[h] then holds
  /// only W_q and b_q). Empty: every heads[h] has its own keys and values.
  std::vector<Projections> kv_heads;
  std::optional<Matrix> W_o;       ///< H d_v by d_out (rows) or d_out by H d_v (columns)
  std::optional<Vector> b_o;
  Scale scale;
  MaskSpec mask;
  std::vector<int> positions;          ///< X's tokens' positions; empty: 0 .. n_x - 1
  std::vector<int> context_positions;  ///< Z's tokens' positions (cross-attention); empty: 0 .. n_z - 1
  std::optional<Rope> rope;
  std::optional<Alibi> alibi;
  std::optional<QkNorm> qk_norm;
  /// > 0: the scaled scores s become softcap * tanh(s / softcap) before ALiBi's bias and the mask
  /// (Gemma 2); 0: none
  double softcap = 0.0;
  PositionalEncoding positional_encoding = PositionalEncoding::none;
  /// Query heads switched off (0-based, ascending): each still computes its weights, but its output
  /// Y_h is zero, so it adds nothing to the concatenation and the output ("ablating" a head).
  std::vector<int> heads_off;
  nlohmann::json view = nlohmann::json::object();  ///< GUI state, ignored by the core

  bool per_head() const { return !heads.empty(); }
  bool cross_attention() const { return Z.has_value(); }
  int head_count() const { return per_head() ? static_cast<int>(heads.size()) : num_heads; }
  /// G: the key/value heads (H without grouping).
  int kv_head_count() const {
    return !kv_heads.empty() ? static_cast<int>(kv_heads.size()) : num_kv_heads > 0 ? num_kv_heads : head_count();
  }
  bool grouped() const { return !kv_heads.empty() || (num_kv_heads > 0 && num_kv_heads != head_count()); }
  /// Position of query token i and of key token j (the defaults when none are given).
  int position(int i) const { return positions.empty() ? i : positions[std::size_t(i)]; }
  int context_position(int j) const {
    const std::vector<int>& p = Z ? context_positions : positions;
    return p.empty() ? j : p[std::size_t(j)];
  }
  /// Token counts and embedding widths, read in the scenario's layout.
  int n_x() const;
  int d_x() const;
  int n_z() const;
  int d_z() const;
  /// The numbers the scenario holds: its matrices, biases and mask cells (what its memory and its
  /// file size grow with).
  std::size_t number_count() const;
};

}  // namespace attnlab
