#include "attnlab/models/transformer.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <thread>

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>

#include "attnlab/attention.h"
#include "attnlab/limits.h"
#include "attnlab/message_text.h"
#include "attnlab/model.h"
#include "attnlab/positions.h"
#include "attnlab/scenario.h"
#include "families/family.h"

namespace attnlab::models {
namespace {

/// Runs part(first, count) over [0, total) split into one contiguous share per core, the last share
/// on the calling thread. Small work stays on one thread: a thread costs ~50 us to start.
template <typename Part>
void in_parallel(Eigen::Index total, double work, const Part& part) {
  static const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const Eigen::Index shares = work < 2e6 ? 1 : std::min<Eigen::Index>(cores, total);
  std::vector<std::thread> threads;
  for (Eigen::Index s = 0; s < shares; ++s) {
    const Eigen::Index first = total * s / shares, count = total * (s + 1) / shares - first;
    if (s + 1 < shares) threads.emplace_back([&part, first, count] { part(first, count); });
    else part(first, count);
  }
  for (std::thread& t : threads) t.join();
}

float activate(Activation activation, float x) {
  switch (activation) {
    case Activation::gelu_tanh:
      return 0.5f * x * (1.0f + std::tanh(0.7978845608028654f * (x + 0.044715f * x * x * x)));
    case Activation::gelu: return 0.5f * x * (1.0f + std::erf(x * 0.7071067811865476f));
    case Activation::silu: return x / (1.0f + std::exp(-x));
    case Activation::relu: return std::max(x, 0.0f);
  }
  return x;
}

/// Softcapping (Gemma 2): cap tanh(x / cap), which keeps |x| below cap; 0: x unchanged.
double capped(double x, double cap) { return cap > 0 ? cap * std::tanh(x / cap) : x; }

std::vector<Prediction> top_predictions(const VectorF& logits, int top_k, double softcap) {
  const Eigen::VectorXd z = logits.cast<double>().unaryExpr([softcap](double x) { return capped(x, softcap); });
  const Eigen::VectorXd p = (z.array() - z.maxCoeff()).exp();
  const double total = p.sum();
  std::vector<int> order(std::size_t(z.size()));
  std::iota(order.begin(), order.end(), 0);
  const std::size_t k = std::min<std::size_t>(std::size_t(std::max(top_k, 0)), order.size());
  std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(k), order.end(),
                    [&](int a, int b) { return p[a] > p[b] || (p[a] == p[b] && a < b); });
  std::vector<Prediction> top;
  for (std::size_t i = 0; i < k; ++i) top.push_back({order[i], p[order[i]] / total});
  return top;
}

/// Passes `value` to the hooks at `where` (when they want that site) and refuses a replacement of
/// another shape in one line naming the site.
void visit(SiteHooks* hooks, const SitePoint& where, MatrixF& value) {
  if (!hooks || !hooks->wants(where.site, where.layer)) return;
  const Eigen::Index rows = value.rows(), cols = value.cols();
  hooks->at(where, value);
  if (value.rows() != rows || value.cols() != cols)
    refuse("site", where.label() + ": expected " + std::to_string(rows) + "x" + std::to_string(cols) + ", got " +
                       std::to_string(value.rows()) + "x" + std::to_string(value.cols()));
}

}  // namespace

// Named, not anonymous: Transformer::Layer holds them, and a member of a type with external
// linkage may not use a type of an unnamed namespace (GCC's -Wsubobject-linkage in unity builds).
namespace transformer_parts {

/// y = x W + b with W stored as the file stores it: [in, out] (GPT-2's Conv1D) or [out, in]
/// (nn.Linear, used transposed), in F32 (used in place) or F16/BF16 (converted a block of output
/// columns at a time). Points into the WeightSet, which outlives the Transformer's use.
struct Linear {
  TensorData W;
  Eigen::Index in = 0, out = 0;
  bool stored_out_by_in = false;  ///< nn.Linear
  const float* b = nullptr;       ///< out, or null

  bool present() const { return W.data != nullptr; }
  /// Output columns [first, first + count) of W in the x W convention (in by count), as float.
  template <typename Dst>
  void columns_as_float(Eigen::Index first, Eigen::Index count, Dst&& dst) const {
    if (const float* w = W.floats()) {
      if (stored_out_by_in) dst = MatrixFMap(w, out, in).middleRows(first, count).transpose();
      else dst = MatrixFMap(w, in, out).middleCols(first, count);
      return;
    }
    thread_local MatrixF block;  // each thread's own, reused
    block.resize(stored_out_by_in ? count : in, stored_out_by_in ? in : count);
    if (stored_out_by_in) W.block_into(first, count, 0, in, block.data());
    else W.block_into(0, in, first, count, block.data());
    if (stored_out_by_in) dst = block.transpose();
    else dst = block;
  }
  /// The output's columns are shared between the cores (each share a product of its own).
  MatrixF apply(const MatrixF& x) const {
    MatrixF y(x.rows(), out);
    in_parallel(out, double(x.rows()) * double(in) * double(out), [&](Eigen::Index first, Eigen::Index count) {
      if (const float* w = W.floats()) {
        if (stored_out_by_in)
          y.middleCols(first, count).noalias() = x * MatrixFMap(w, out, in).middleRows(first, count).transpose();
        else
          y.middleCols(first, count).noalias() = x * MatrixFMap(w, in, out).middleCols(first, count);
        return;
      }
      constexpr Eigen::Index kColumns = 128;  // a block of W in float: in x 128 floats, in cache
      MatrixF block;
      for (Eigen::Index c = first; c < first + count; c += kColumns) {
        const Eigen::Index width = std::min(kColumns, first + count - c);
        block.resize(in, width);
        columns_as_float(c, width, block);
        y.middleCols(c, width).noalias() = x * block;
      }
    });
    if (b) y.rowwise() += VectorFMap(b, out).transpose();
    return y;
  }
  /// Output columns [first, first + count) of W in the x W convention (in by count), in double.
  template <typename Block>
  void columns_into(Eigen::Index first, Eigen::Index count, Block&& dst) const {
    MatrixF block(in, count);
    columns_as_float(first, count, block);
    dst = block.cast<double>();
  }
  template <typename Segment>
  void bias_into(Eigen::Index first, Eigen::Index count, Segment&& dst) const {
    dst = VectorFMap(b, out).segment(first, count).cast<double>();
  }
};

/// A table of rows of d_model (token or position embeddings, the LM head), F32, F16 or BF16.
struct Table {
  TensorData rows;
  /// Row `r` as float into `out` (d_model).
  void row_into(Eigen::Index r, float* out) const { rows.block_into(r, 1, 0, rows.cols, out); }
};

struct Norm {
  const float* w = nullptr;  ///< null: no norm here (the input passes unchanged)
  const float* b = nullptr;  ///< LayerNorm's shift; null for RMSNorm
  Eigen::Index d = 0;
  double eps = 1e-5;
  bool layer_norm = false;
  bool plus_one = false;     ///< Gemma's RMSNorm: x times 1 + w

  /// LayerNorm: (x - mean) / sqrt(var + eps) w + b; RMSNorm: x / sqrt(mean(x^2) + eps) w (or 1 + w).
  /// Per row, statistics in double.
  MatrixF apply(const MatrixF& x) const {
    if (!w) return x;
    Eigen::ArrayXf scale = VectorFMap(w, d).array();
    if (plus_one) scale += 1.0f;
    MatrixF y(x.rows(), x.cols());
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
      const Eigen::VectorXd row = x.row(i).transpose().cast<double>();
      const double mean = layer_norm ? row.mean() : 0.0;
      const double variance = (row.array() - mean).square().mean();
      const Eigen::VectorXd normed = (row.array() - mean) / std::sqrt(variance + eps);
      y.row(i) = (normed.cast<float>().array() * scale).transpose();
      if (b) y.row(i) += VectorFMap(b, d).transpose();
    }
    return y;
  }
};

}  // namespace transformer_parts

using transformer_parts::Linear;
using transformer_parts::Norm;
using transformer_parts::Table;

struct Transformer::Layer {
  Norm attn_norm, attn_post_norm, mlp_norm, mlp_post_norm;
  Norm attn_residual_norm,
      mlp_residual_norm;  ///< post-LN (BERT): on the residual stream after each add
  Linear qkv;             ///< q, k and v in one projection (then q, k, v are unused)
  bool qkv_per_head = false;  ///< qkv's columns per head: q, k, v of head 0, then head 1 (GPT-NeoX)
  Linear q, k, v, o;
  const float* q_norm = nullptr;  ///< QK-norm's weights (head_dim, or the whole width), or null
  const float* k_norm = nullptr;
  Linear up, gate, down;
  Linear gate_up;         ///< gate's columns, then up's (Phi-3)
};

struct Transformer::Embedding {
  Table tokens;     ///< vocab by d_model
  /// The family's embedding scale (Gemma: sqrt(d_model)) as Hugging Face multiplies by it: cast to
  /// the embedding's own type (Gemma 3's embed_scale.to(weight.dtype), Gemma 2's normalizer in the
  /// hidden states' type), so a BF16 Gemma scales by 4.90625, not 4.89898, at d_model 24.
  float scale = 1.0f;
  Table positions;  ///< GPT-2's wpe: max_positions by d_model (none: no data)
  Table head;       ///< the LM head: vocab by d_model (the token embedding when tied)
  Norm final_norm;
  Table types;        ///< BERT's token_type_embeddings: type_vocab by d_model (none: no data)
  Norm embed_norm;    ///< the encoders' LayerNorm of the summed embeddings
  Linear head_dense;  ///< the masked-LM head's transform (with head_norm after its activation)
  Norm head_norm;
  const float* head_bias = nullptr;  ///< vocab: added to the logits (the masked-LM head's own bias)
};

Transformer::Transformer() = default;
Transformer::~Transformer() = default;
Transformer::Transformer(Transformer&&) noexcept = default;
Transformer& Transformer::operator=(Transformer&&) noexcept = default;

namespace {

/// Binds a family's tensors by the names of its table (family.h), shapes from the config.
class Binder {
 public:
  Binder(const ModelConfig& config, const TensorNames& names, WeightSet& weights)
      : c_(config), names_(names), w_(weights) {}

  void layer(int index) { layer_ = std::to_string(index); }
  /// `pattern` with "{}" replaced by the current layer.
  std::string name(const std::string& pattern) const {
    const std::size_t at = pattern.find("{}");
    return at == std::string::npos ? pattern : pattern.substr(0, at) + layer_ + pattern.substr(at + 2);
  }
  Norm norm(const std::string& pattern) {
    Norm n;
    if (pattern.empty()) return n;
    n.d = c_.d_model;
    n.eps = c_.norm_eps;
    n.layer_norm = c_.norm == NormKind::layer_norm;
    n.plus_one = c_.norm_plus_one;
    // Old BERT checkpoints (bert-base-uncased's own) name a LayerNorm's weights gamma and beta;
    // Hugging Face renames them when it loads them.
    const bool old_names =
        !w_.contains(name(pattern) + ".weight") && w_.contains(name(pattern) + ".gamma");
    n.w = w_.vector(name(pattern) + (old_names ? ".gamma" : ".weight"), c_.d_model).data();
    if (n.layer_norm)
      n.b = w_.vector(name(pattern) + (old_names ? ".beta" : ".bias"), c_.d_model).data();
    return n;
  }
  Linear linear(const std::string& pattern, Eigen::Index in, Eigen::Index out, bool bias) {
    if (pattern.empty()) return {};
    const std::string n = name(pattern);
    const TensorData W = names_.conv1d ? w_.tensor(n + ".weight", in, out) : w_.tensor(n + ".weight", out, in);
    return {W, in, out, !names_.conv1d, bias ? w_.vector(n + ".bias", out).data() : nullptr};
  }
  const float* vector(const std::string& pattern, Eigen::Index size) {
    return pattern.empty() ? nullptr : w_.vector(name(pattern) + ".weight", size).data();
  }
  /// A vector named in full (cls.predictions.bias), or null for an empty name.
  const float* named_vector(const std::string& full_name, Eigen::Index size) {
    return full_name.empty() ? nullptr : w_.vector(full_name, size).data();
  }
  Table table(const std::string& pattern, Eigen::Index rows) { return {w_.tensor(name(pattern) + ".weight", rows, c_.d_model)}; }

 private:
  const ModelConfig& c_;
  const TensorNames& names_;
  WeightSet& w_;
  std::string layer_;
};

}  // namespace

Transformer Transformer::bind(const ModelConfig& config, WeightSet& weights) {
  const Family* family = find_family(config.model_type);
  if (!family) refuse("model_type", quoted_excerpt(config.model_type) + ": attnlab computes " + supported_model_types());
  const TensorNames& n = family->names;
  Transformer model;
  model.config_ = config;
  model.embedding_ = std::make_unique<Embedding>();
  Binder bind(config, n, weights);
  const Eigen::Index d = config.d_model, m = config.d_mlp;
  const Eigen::Index q_width = Eigen::Index(config.heads) * config.head_dim;
  const Eigen::Index kv_width = Eigen::Index(config.kv_heads) * config.head_dim;
  const bool per_head_norm = config.qk_norm && config.qk_norm->scope == QkNorm::Scope::head;
  for (int i = 0; i < config.layers; ++i) {
    bind.layer(i);
    Layer layer;
    layer.attn_norm = bind.norm(n.attn_norm);
    layer.attn_post_norm = bind.norm(n.attn_post_norm);
    layer.mlp_norm = bind.norm(n.mlp_norm);
    layer.mlp_post_norm = bind.norm(n.mlp_post_norm);
    layer.attn_residual_norm = bind.norm(n.attn_residual_norm);
    layer.mlp_residual_norm = bind.norm(n.mlp_residual_norm);
    layer.qkv = bind.linear(n.qkv, d, q_width + 2 * kv_width, config.qkv_bias);
    layer.qkv_per_head = n.qkv_per_head;
    layer.q = bind.linear(n.q, d, q_width, config.qkv_bias);
    layer.k = bind.linear(n.k, d, kv_width, config.qkv_bias);
    layer.v = bind.linear(n.v, d, kv_width, config.qkv_bias);
    layer.o = bind.linear(n.o, q_width, d, config.o_bias);
    if (config.qk_norm) {
      layer.q_norm = bind.vector(n.q_norm, per_head_norm ? config.head_dim : q_width);
      layer.k_norm = bind.vector(n.k_norm, per_head_norm ? config.head_dim : kv_width);
    }
    layer.up = bind.linear(n.up, d, m, config.mlp_bias);
    layer.gate = bind.linear(n.gate, d, m, config.mlp_bias);
    layer.gate_up = bind.linear(n.gate_up, d, 2 * m, config.mlp_bias);
    layer.down = bind.linear(n.down, m, d, config.mlp_bias);
    model.layers_.push_back(layer);
  }
  Embedding& e = *model.embedding_;
  e.tokens = bind.table(n.embed, config.vocab);
  e.scale = float(config.embedding_scale);
  if (e.tokens.rows.dtype == DType::bf16) e.scale = float(Eigen::bfloat16(e.scale));
  if (e.tokens.rows.dtype == DType::f16) e.scale = float(Eigen::half(e.scale));
  if (config.learned_positions) e.positions = bind.table(n.positions, config.max_positions);
  e.final_norm = bind.norm(n.final_norm);
  e.head = config.tie_embeddings ? e.tokens : bind.table(n.lm_head, config.vocab);
  if (config.type_vocab > 0 && !n.token_types.empty())
    e.types = bind.table(n.token_types, config.type_vocab);
  e.embed_norm = bind.norm(n.embed_norm);
  e.head_dense = bind.linear(n.head_dense, config.d_model, config.d_model, true);
  e.head_norm = bind.norm(n.head_norm);
  e.head_bias = bind.named_vector(n.head_bias, config.vocab);
  return model;
}

namespace {

void check_ids(const std::vector<int>& ids, const ModelConfig& config) {
  if (ids.empty()) refuse("ids", "empty: give at least one token");
  if (int(ids.size()) > config.usable_positions())
    refuse("ids", std::to_string(ids.size()) + " tokens, more than the model's " +
                      std::to_string(config.usable_positions()) + " positions");
  if (ids.size() > std::size_t(limits::max_tokens))
    refuse("ids", std::to_string(ids.size()) + " tokens, more than attnlab's limit of " + std::to_string(limits::max_tokens));
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || ids[i] >= config.vocab)
      refuse("ids[" + std::to_string(i) + "]", std::to_string(ids[i]) + " is outside the vocabulary (0 to " +
                                                   std::to_string(config.vocab - 1) + ")");
}

}  // namespace

struct Transformer::Workspace {
  Trace trace;
};

QkNorm Transformer::qk_norm(const Layer& layer) const {
  QkNorm norm = *config_.qk_norm;
  const bool per_head = norm.scope == QkNorm::Scope::head;
  const Eigen::Index dh = config_.head_dim;
  norm.w_q = VectorFMap(layer.q_norm, per_head ? dh : config_.heads * dh).cast<double>();
  norm.w_k = VectorFMap(layer.k_norm, per_head ? dh : config_.kv_heads * dh).cast<double>();
  return norm;
}

Scenario Transformer::attention_scenario(int index, const MatrixF& a, const std::vector<HeadRef>& off) const {
  Scenario s;
  const Layer& layer = layers_.at(std::size_t(index));
  const LayerAttention& variant = config_.attention.at(std::size_t(index));
  const Eigen::Index H = config_.heads, G = config_.kv_heads, dh = config_.head_dim, d = config_.d_model;
  s.layout = Layout::rows;
  s.X = a.cast<double>();
  s.num_heads = int(H);
  s.num_kv_heads = G == H ? 0 : int(G);
  Matrix &W_q = s.full.W_q.emplace(d, H * dh), &W_k = s.full.W_k.emplace(d, G * dh), &W_v = s.full.W_v.emplace(d, G * dh);
  // Where each of Q's, K's and V's columns is in the layer's projection(s): one Linear each, or one
  // for all three with Q's columns, then K's, then V's, or per head q, k, v side by side (GPT-NeoX).
  const bool fused = layer.qkv.present();
  const Linear* from[3] = {fused ? &layer.qkv : &layer.q, fused ? &layer.qkv : &layer.k, fused ? &layer.qkv : &layer.v};
  const auto column = [&](int which, Eigen::Index h) {  // the first column of head (or K/V head) h
    if (layer.qkv_per_head) return (3 * h + which) * dh;
    return (!fused ? 0 : which == 0 ? 0 : which == 1 ? H * dh : (H + G) * dh) + h * dh;
  };
  Matrix* W[3] = {&W_q, &W_k, &W_v};
  const Eigen::Index heads[3] = {H, G, G};
  for (int which = 0; which < 3; ++which)
    for (Eigen::Index h = 0; h < heads[which]; ++h) from[which]->columns_into(column(which, h), dh, W[which]->middleCols(h * dh, dh));
  std::optional<Vector>* b[3] = {&s.full.b_q, &s.full.b_k, &s.full.b_v};
  for (int which = 0; which < 3 && config_.qkv_bias; ++which) {
    Vector& bias = b[which]->emplace(heads[which] * dh);
    for (Eigen::Index h = 0; h < heads[which]; ++h) from[which]->bias_into(column(which, h), dh, bias.segment(h * dh, dh));
  }
  layer.o.columns_into(0, d, s.W_o.emplace(H * dh, d));
  if (config_.o_bias) layer.o.bias_into(0, d, s.b_o.emplace(d));
  // The scale: 1/sqrt(d_k) as the core names it, else the family's own (Gemma's query_pre_attn_scalar).
  if (config_.attention_scale != 1.0 / std::sqrt(double(dh))) s.scale = {Scale::Kind::value, config_.attention_scale};
  s.mask.causal = config_.causal;
  s.mask.window = variant.window;
  s.rope = variant.rope;
  if (config_.qk_norm) s.qk_norm = qk_norm(layer);
  s.softcap = config_.attn_softcap;
  for (const HeadRef& h : off)
    if (h.layer == index) s.heads_off.push_back(h.head);
  std::sort(s.heads_off.begin(), s.heads_off.end());
  return s;
}

std::string Transformer::attention_input() const {
  if (!layers_.empty() && !layers_.front().attn_norm.w) return "the residual stream itself (no norm before attention)";
  return config_.norm == NormKind::layer_norm ? "after the LayerNorm before attention" : "after the RMSNorm before attention";
}

bool Transformer::has_post_norm() const { return !layers_.empty() && layers_.front().attn_post_norm.w; }

/// Runs one layer on the residual stream h (n by d_model), in place; records it when `record`.
/// The layer's Q, K and V (n by H d_h, G d_h, G d_h, biases included) from `a`, in float, in double
/// for the core: one product per projection (or one for a fused q | k | v).
std::shared_ptr<GivenProjections> Transformer::project(const Layer& layer, const MatrixF& a) const {
  const Eigen::Index H = config_.heads, G = config_.kv_heads, dh = config_.head_dim;
  auto given = std::make_shared<GivenProjections>();
  if (!layer.qkv.present()) {
    given->Q = layer.q.apply(a).cast<double>();
    given->K = layer.k.apply(a).cast<double>();
    given->V = layer.v.apply(a).cast<double>();
    return given;
  }
  const MatrixF qkv = layer.qkv.apply(a);
  if (!layer.qkv_per_head) {
    given->Q = qkv.leftCols(H * dh).cast<double>();
    given->K = qkv.middleCols(H * dh, G * dh).cast<double>();
    given->V = qkv.rightCols(G * dh).cast<double>();
    return given;
  }
  given->Q.resize(a.rows(), H * dh), given->K.resize(a.rows(), H * dh), given->V.resize(a.rows(), H * dh);
  for (Eigen::Index h = 0; h < H; ++h) {  // GPT-NeoX: per head q, k, v side by side
    given->Q.middleCols(h * dh, dh) = qkv.middleCols(3 * h * dh, dh).cast<double>();
    given->K.middleCols(h * dh, dh) = qkv.middleCols(3 * h * dh + dh, dh).cast<double>();
    given->V.middleCols(h * dh, dh) = qkv.middleCols(3 * h * dh + 2 * dh, dh).cast<double>();
  }
  return given;
}

/// The core's Model of layer `index`'s attention_scenario() for projections computed outside it:
/// the same heads, scale, mask, RoPE, QK-norm, softcap and heads off, no weights (W_o is applied
/// in float after it).
Model Transformer::attention_model(int index, std::shared_ptr<const GivenProjections> given,
                                   const std::vector<HeadRef>& off) const {
  const LayerAttention& variant = config_.attention.at(std::size_t(index));
  const Eigen::Index H = config_.heads, G = config_.kv_heads, dh = config_.head_dim, n = given->Q.rows();
  Model m;
  m.X = SharedMatrix(given, &given->Q);
  m.b_q = Vector::Zero(H * dh), m.b_k = Vector::Zero(G * dh), m.b_v = Vector::Zero(G * dh);
  if (config_.causal)
    m.allowed = causal_mask(n, variant.window);
  else
    m.allowed = BoolArray::Constant(n, n, true);  // an encoder's tokens see each other
  m.scale = config_.attention_scale;
  m.num_heads = int(H), m.num_kv_heads = int(G), m.d_k = m.d_v = int(dh);
  m.query_positions.resize(std::size_t(n));
  for (Eigen::Index i = 0; i < n; ++i) m.query_positions[std::size_t(i)] = double(i);
  m.key_positions = m.query_positions;
  m.rope = variant.rope;
  if (m.rope) m.rope_frequencies = positional::rope_frequencies(*m.rope, m.rope->dims, double(n - 1));
  if (config_.qk_norm) m.qk_norm = qk_norm(layers_.at(std::size_t(index)));
  m.softcap = config_.attn_softcap;
  m.head_off.assign(std::size_t(H), false);
  for (const HeadRef& h : off)
    if (h.layer == index) m.head_off[std::size_t(h.head)] = true;
  m.given = std::move(given);
  return m;
}

void Transformer::hook_projection(int index, Site site, Matrix& value, SiteHooks& hooks) const {
  if (!hooks.wants(site, index)) return;
  MatrixF as_float = value.cast<float>();
  visit(&hooks, {site, index}, as_float);
  value = as_float.cast<double>();
}

/// Runs one layer on the residual stream h (n by d_model), in place; records it when `record`; passes
/// its sites to `hooks` when given.
void Transformer::run_layer(int index, MatrixF& h, const std::vector<HeadRef>& off, LayerRun* record,
                            Workspace& work, SiteHooks* hooks) const {
  const Layer& layer = layers_[std::size_t(index)];
  visit(hooks, {Site::resid_pre, index}, h);
  MatrixF a = layer.attn_norm.apply(h);
  std::shared_ptr<GivenProjections> given = project(layer, a);
  if (hooks) {
    hook_projection(index, Site::q, given->Q, *hooks);
    hook_projection(index, Site::k, given->K, *hooks);
    hook_projection(index, Site::v, given->V, *hooks);
  }
  compute_into(attention_model(index, std::move(given), off), Layout::rows, work.trace, nullptr, Recompute::all);
  const Trace& trace = work.trace;
  MatrixF z = trace.concat.cast<float>();  // [Y_1 ... Y_H]: n by H d_h
  if (hooks) {
    const Eigen::Index dh = config_.head_dim;
    for (int head = 0; head < config_.heads && hooks->wants(Site::pattern, index); ++head) {
      MatrixF pattern = trace.heads[std::size_t(head)].weights.cast<float>();
      hooks->at({Site::pattern, index, head}, pattern);  // read only
    }
    for (int head = 0; head < config_.heads && hooks->wants(Site::z, index); ++head) {
      MatrixF z_head = z.middleCols(head * dh, dh);
      visit(hooks, {Site::z, index, head}, z_head);
      z.middleCols(head * dh, dh) = z_head;
    }
  }
  if (record) {
    record->attn_in = std::move(a);
    record->weights.clear();
    for (const HeadTrace& head : trace.heads) record->weights.push_back(head.weights.cast<float>());
  }
  finish_attention(index, h, std::move(z), hooks, 0, record);
}

namespace {

/// The last row of each block of `block` rows of m (m's rows are whole blocks).
MatrixF last_rows(const MatrixF& m, Eigen::Index block) {
  MatrixF out(m.rows() / block, m.cols());
  for (Eigen::Index b = 0; b < out.rows(); ++b) out.row(b) = m.row((b + 1) * block - 1);
  return out;
}

}  // namespace

void Transformer::finish_attention(int index, MatrixF& h, MatrixF z, SiteHooks* hooks, Eigen::Index last_of_blocks,
                                   LayerRun* record) const {
  const Layer& layer = layers_[std::size_t(index)];
  if (last_of_blocks > 0) {  // what a logit difference reads: nothing after this layer needs the other rows
    z = last_rows(z, last_of_blocks);
    h = last_rows(h, last_of_blocks);
  }
  MatrixF o = layer.o.apply(z);  // [Y_1 ... Y_H] W_o + b_o
  visit(hooks, {Site::attn_out, index}, o);
  MatrixF residual_in = h;
  finish_layer(layer, residual_in, o, h, hooks, index);
  visit(hooks, {Site::resid_post, index}, h);
  if (record) {
    record->residual_in = std::move(residual_in);
    record->attn_out = std::move(o);
  }
}

void Transformer::finish_layer(const Layer& layer, const MatrixF& residual_in, const MatrixF& o, MatrixF& h,
                               SiteHooks* hooks, int index) const {
  h = layer.attn_residual_norm.apply(residual_in + layer.attn_post_norm.apply(o));
  const MatrixF& mlp_reads = config_.parallel_residual ? residual_in : h;
  MatrixF mlp_out = layer.mlp_post_norm.apply(mlp(layer, layer.mlp_norm.apply(mlp_reads)));
  visit(hooks, {Site::mlp_out, index}, mlp_out);
  h += mlp_out;
  if (layer.mlp_residual_norm.w) h = layer.mlp_residual_norm.apply(h);
}

MatrixF Transformer::mlp(const Layer& layer, const MatrixF& x) const {
  const auto act = [&](float v) { return activate(config_.activation, v); };
  if (!config_.gated_mlp) return layer.down.apply(layer.up.apply(x).unaryExpr(act));
  MatrixF gate, up;
  if (layer.gate_up.present()) {
    const MatrixF both = layer.gate_up.apply(x);
    gate = both.leftCols(config_.d_mlp);
    up = both.rightCols(config_.d_mlp);
  } else {
    gate = layer.gate.apply(x);
    up = layer.up.apply(x);
  }
  up.array() *= gate.unaryExpr(act).array();
  return layer.down.apply(up);
}

MatrixF Transformer::head_input(const MatrixF& residual) const {
  const Embedding& e = *embedding_;
  MatrixF x = e.final_norm.apply(residual);
  if (!e.head_dense.present()) return x;
  const auto act = [&](float v) { return activate(config_.head_activation, v); };
  return e.head_norm.apply(e.head_dense.apply(x).unaryExpr(act));
}

MatrixF Transformer::unembed(const MatrixF& normed) const {
  const TensorData& head = embedding_->head.rows;
  const Eigen::Index d = config_.d_model, vocab = config_.vocab;
  MatrixF out(normed.rows(), vocab);
  in_parallel(vocab, double(vocab) * double(d) * double(normed.rows()), [&](Eigen::Index first, Eigen::Index count) {
    if (const float* floats = head.floats()) {  // stored as float: read in place
      out.middleCols(first, count).noalias() = normed * MatrixFMap(floats, vocab, d).middleRows(first, count).transpose();
      return;
    }
    constexpr Eigen::Index kRows = 256;  // a block of the head in float, in cache
    MatrixF block;
    for (Eigen::Index r = first; r < first + count; r += kRows) {
      const Eigen::Index rows = std::min(kRows, first + count - r);
      block.resize(rows, d);
      head.block_into(r, rows, 0, d, block.data());
      out.middleCols(r, rows).noalias() = normed * block.transpose();
    }
  });
  if (embedding_->head_bias) out.rowwise() += VectorFMap(embedding_->head_bias, vocab).transpose();
  return out;
}

MatrixF Transformer::logits(const MatrixF& residual) const {
  MatrixF out = unembed(head_input(residual));
  if (config_.final_softcap > 0) out = out.unaryExpr([cap = config_.final_softcap](float x) { return float(capped(x, cap)); });
  return out;
}

Eigen::VectorXd Transformer::logits_of(const MatrixF& residual, Eigen::Index row, const std::vector<int>& ids) const {
  const Embedding& e = *embedding_;
  if (row < 0 || row >= residual.rows()) refuse("row", std::to_string(row) + " is outside the residual stream");
  const MatrixF normed = head_input(residual.row(row));
  Eigen::VectorXd out(Eigen::Index(ids.size()));
  VectorF head_row(config_.d_model);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= config_.vocab) refuse("ids", std::to_string(ids[i]) + " is outside the vocabulary");
    e.head.row_into(ids[i], head_row.data());
    const double bias = e.head_bias ? double(e.head_bias[ids[i]]) : 0.0;
    out[Eigen::Index(i)] =
        capped(double(normed.row(0).dot(head_row.transpose())) + bias, config_.final_softcap);
  }
  return out;
}

std::vector<Prediction> Transformer::predict(const MatrixF& h, int top_k) const {
  return predict_at(h, h.rows() - 1, top_k);
}

std::vector<Prediction> Transformer::predict_at(const MatrixF& h, Eigen::Index row,
                                                int top_k) const {
  if (row < 0 || row >= h.rows())
    refuse("position",
           std::to_string(row) + " is outside the " + std::to_string(h.rows()) + " tokens");
  const VectorF logits = unembed(head_input(h.row(row))).row(0).transpose();
  return top_predictions(logits, top_k, config_.final_softcap);
}

double memory_limit() {
  double limit = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
  for (const int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    rlimit set{};
    if (getrlimit(resource, &set) == 0 && set.rlim_cur != RLIM_INFINITY) limit = std::min(limit, double(set.rlim_cur));
  }
  return limit;
}

void require_memory(double bytes, const std::string& field, const std::string& what) {
  const double limit = memory_limit();
  if (bytes <= limit) return;
  const auto gib = [](double b) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GiB", b / double(1u << 30));
    return std::string(text);
  };
  refuse(field, what + " need about " + gib(bytes) + "; this machine allows " + gib(limit));
}

double Transformer::run_bytes(std::size_t tokens, Keep keep) const {
  const double n = double(tokens), d = config_.d_model, H = config_.heads;
  const double q_width = H * config_.head_dim, kv_width = double(config_.kv_heads) * config_.head_dim;
  const double kept = keep.layer == Keep::kAll ? config_.layers : keep.layer == Keep::kNone ? 0 : 1;
  const double per_kept_layer = 4.0 * (H * n * n + 3.0 * n * d);
  // One layer in flight, in float: the residual stream twice, its norm, the attention's output, the
  // MLP's hidden rows (up and gate); the logits (float, then double). In double, for the core: the
  // given Q, K and V, and the trace: per head its Q, K, V, normalised and rotated Q and K, its scores
  // and weights (n by n each), and the heads' outputs side by side.
  const double floats = n * (4.0 * d + 2.0 * config_.d_mlp);
  const double doubles = n * (q_width + 2.0 * kv_width) +
                         H * (n * 7.0 * config_.head_dim + 2.0 * n * n) + n * q_width;
  const double working = 4.0 * floats + 8.0 * doubles + 12.0 * double(config_.vocab);
  return kept * per_kept_layer + working;
}

ForwardRun Transformer::run(const std::vector<int>& ids, int top_k,
                            const std::vector<HeadRef>& heads_off, Keep keep,
                            const std::atomic<bool>* cancelled, SiteHooks* hooks,
                            const std::vector<int>& types) const {
  check_ids(ids, config_);
  if (keep.layer != Keep::kAll && keep.layer != Keep::kNone && (keep.layer < 0 || keep.layer >= config_.layers))
    refuse("layer", std::to_string(keep.layer) + " is out of range: the model has layers 0 to " +
                        std::to_string(config_.layers - 1));
  const std::string count = std::to_string(ids.size());
  require_memory(run_bytes(ids.size(), keep), "ids",
                 count + " tokens" +
                     (keep.layer == Keep::kAll  ? " with every layer's and head's " + count + " x " + count + " weights kept"
                      : keep.layer == Keep::kNone ? std::string()
                                                  : " with layer " + std::to_string(keep.layer) + "'s weights kept"));
  for (const HeadRef& off : heads_off)
    if (off.layer < 0 || off.layer >= config_.layers || off.head < 0 || off.head >= config_.heads)
      refuse("heads_off", "no head " + std::to_string(off.layer) + "." + std::to_string(off.head) + " (layers 0 to " +
                              std::to_string(config_.layers - 1) + ", heads 0 to " + std::to_string(config_.heads - 1) + ")");
  MatrixF h = embed(ids, types);
  ForwardRun run;
  run.ids = ids;
  run.types = types;
  run.heads_off = heads_off;
  run.layers.resize(layers_.size());
  Workspace work;
  for (int l = 0; l < int(layers_.size()); ++l) {
    if (cancelled && cancelled->load(std::memory_order_relaxed)) refuse("run", "cancelled");
    run_layer(l, h, heads_off, keep.keeps(l) ? &run.layers[std::size_t(l)] : nullptr, work, hooks);
  }
  if (config_.causal) run.next = predict(h, top_k);
  run.output = std::move(h);
  return run;
}

MatrixF Transformer::embed(const std::vector<int>& ids, const std::vector<int>& types) const {
  check_ids(ids, config_);
  const Embedding& e = *embedding_;
  if (!types.empty() && types.size() != ids.size())
    refuse("types", std::to_string(types.size()) + " token types for " +
                        std::to_string(ids.size()) + " tokens");
  for (std::size_t i = 0; i < types.size() && e.types.rows.data; ++i)
    if (types[i] < 0 || types[i] >= config_.type_vocab)
      refuse("types[" + std::to_string(i) + "]", std::to_string(types[i]) +
                                                     " is not a token type of the model (0 to " +
                                                     std::to_string(config_.type_vocab - 1) + ")");
  const Eigen::Index n = Eigen::Index(ids.size()), d = config_.d_model;
  MatrixF h(n, d);
  VectorF row(d);
  int not_padding = 0;  // RoBERTa's positions count the tokens that are not padding
  for (Eigen::Index i = 0; i < n; ++i) {
    const int id = ids[std::size_t(i)];
    e.tokens.row_into(id, h.row(i).data());
    if (e.scale != 1.0f) h.row(i) *= e.scale;
    if (e.positions.rows.data) {
      const int pad = config_.position_padding_idx;
      const Eigen::Index position = pad < 0 ? i : id == pad ? pad : pad + ++not_padding;
      e.positions.row_into(position, row.data());
      h.row(i) += row.transpose();
    }
    if (e.types.rows.data) {  // BERT's token_type_ids default to zeros
      e.types.row_into(types.empty() ? 0 : types[std::size_t(i)], row.data());
      h.row(i) += row.transpose();
    }
  }
  return e.embed_norm.apply(h);
}

namespace {

void check_restart(const ModelConfig& c, int layer, const MatrixF& residual) {
  if (layer < 0 || layer >= c.layers)
    refuse("layer", std::to_string(layer) + " is out of range: the model has layers 0 to " + std::to_string(c.layers - 1));
  if (residual.cols() != c.d_model || residual.rows() < 1)
    refuse("residual", "expected n x " + std::to_string(c.d_model) + " (tokens x d_model), got " +
                           std::to_string(residual.rows()) + "x" + std::to_string(residual.cols()));
}

}  // namespace

MatrixF Transformer::run_from(int first, MatrixF residual, SiteHooks* hooks, const std::atomic<bool>* cancelled) const {
  check_restart(config_, first, residual);
  Workspace work;
  for (int l = first; l < config_.layers; ++l) {
    if (cancelled && cancelled->load(std::memory_order_relaxed)) refuse("run", "cancelled");
    run_layer(l, residual, {}, nullptr, work, hooks);
  }
  return residual;
}

void Transformer::run_layer_rows(int index, MatrixF& h, Eigen::Index first_row, const SiteCache& recorded,
                                 Workspace& work, int batch, bool last_row) const {
  const Layer& layer = layers_[std::size_t(index)];
  const Eigen::Index changed = h.rows() / batch;
  // One product per projection for every run of the batch (the weights are packed once, not per run).
  const std::shared_ptr<GivenProjections> fresh = project(layer, layer.attn_norm.apply(h));
  MatrixF z(h.rows(), Eigen::Index(config_.heads) * config_.head_dim);
  for (int b = 0; b < batch; ++b) {
    // The recorded run's projections with this run's changed rows: the rows before see only keys
    // before them, so their outputs are the recorded ones; the core recomputes them (n^2 d_h, cheap).
    auto given = std::make_shared<GivenProjections>();
    const auto merged = [&](Site site, const Matrix& all_changed) {
      const MatrixF& before = recorded.get({site, index});
      if (before.rows() != first_row + changed || before.cols() != all_changed.cols())
        refuse("site", SitePoint{site, index}.label() + " of the recorded run does not fit the changed rows");
      Matrix all = before.cast<double>();
      all.bottomRows(changed) = all_changed.middleRows(b * changed, changed);
      return all;
    };
    given->Q = merged(Site::q, fresh->Q);
    given->K = merged(Site::k, fresh->K);
    given->V = merged(Site::v, fresh->V);
    compute_into(attention_model(index, std::move(given), {}), Layout::rows, work.trace, nullptr, Recompute::all);
    z.middleRows(b * changed, changed) = work.trace.concat.bottomRows(changed).cast<float>();
  }
  finish_attention(index, h, std::move(z), nullptr, last_row ? changed : 0, nullptr);
}

MatrixF Transformer::rerun_rows(int layer, MatrixF rows, Eigen::Index first_row, const SiteCache& recorded,
                                const MatrixF* z, const std::atomic<bool>* cancelled, int batch) const {
  check_restart(config_, layer, rows);
  if (!config_.causal)  // every row of an encoder sees the changed ones: no row keeps its recorded
                        // value
    refuse("model", config_.model_type +
                        " is an encoder: patching re-runs only the changed rows, which holds for "
                        "causal models");
  if (batch < 1 || rows.rows() % batch != 0)
    refuse("rows", std::to_string(rows.rows()) + " rows are not " + std::to_string(batch) + " runs of equal length");
  if (z && (z->rows() != rows.rows() || z->cols() != Eigen::Index(config_.heads) * config_.head_dim))
    refuse("z", "expected " + std::to_string(rows.rows()) + "x" + std::to_string(config_.heads * config_.head_dim) +
                    " (rows x heads d_h), got " + std::to_string(z->rows()) + "x" + std::to_string(z->cols()));
  const int last = config_.layers - 1;
  const Eigen::Index changed = rows.rows() / batch;
  if (z) finish_attention(layer, rows, *z, nullptr, layer == last ? changed : 0, nullptr);
  Workspace work;
  for (int l = z ? layer + 1 : layer; l <= last; ++l) {
    if (cancelled && cancelled->load(std::memory_order_relaxed)) refuse("run", "cancelled");
    run_layer_rows(l, rows, first_row, recorded, work, batch, l == last);
  }
  return rows;
}

std::vector<Prediction> Transformer::next_after_layer(const ForwardRun& run, int layer, const Matrix& attn_out,
                                                      int top_k) const {
  if (!config_.causal)  // its last row is [SEP]: a "next token" there would be noise
    refuse("model", config_.model_type +
                        " is an encoder: it predicts the word at a mask token, not the next token");
  return predict(output_after_layer(run, layer, attn_out), top_k);
}

MatrixF Transformer::output_after_layer(const ForwardRun& run, int layer,
                                        const Matrix& attn_out) const {
  if (layer < 0 || layer >= int(run.layers.size())) refuse("layer", std::to_string(layer) + " is out of range");
  const LayerRun& recorded = run.layers[std::size_t(layer)];
  if (recorded.residual_in.size() == 0) refuse("layer", std::to_string(layer) + " was not kept by the run");
  if (attn_out.rows() != recorded.residual_in.rows() || attn_out.cols() != recorded.residual_in.cols())
    refuse("output", "expected " + std::to_string(recorded.residual_in.rows()) + "x" +
                         std::to_string(config_.d_model) + " (tokens x d_model), got " +
                         std::to_string(attn_out.rows()) + "x" + std::to_string(attn_out.cols()));
  MatrixF h;
  finish_layer(layers_[std::size_t(layer)], recorded.residual_in, attn_out.cast<float>(), h);
  Workspace work;
  for (int l = layer + 1; l < int(layers_.size()); ++l) run_layer(l, h, run.heads_off, nullptr, work, nullptr);
  return h;
}

}  // namespace attnlab::models
