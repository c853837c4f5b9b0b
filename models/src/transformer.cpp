#include "attnlab/models/transformer.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <thread>

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>

#include "attnlab/limits.h"
#include "attnlab/scenario.h"

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
    case Activation::gelu_new:
      return 0.5f * x * (1.0f + std::tanh(0.7978845608028654f * (x + 0.044715f * x * x * x)));
    case Activation::gelu: return 0.5f * x * (1.0f + std::erf(x * 0.7071067811865476f));
    case Activation::silu: return x / (1.0f + std::exp(-x));
    case Activation::relu: return std::max(x, 0.0f);
  }
  return x;
}

/// Rotates every head's coordinates of Q or K (n by heads d_head) in place, HF's rotate_half:
/// coordinate c pairs with c + d_head/2, turned by position * theta^(-2c/d_head).
void apply_rope(MatrixF& M, int heads, int d_head, double theta) {
  const int half = d_head / 2;
  for (Eigen::Index p = 0; p < M.rows(); ++p)
    for (int c = 0; c < half; ++c) {
      const double angle = double(p) * std::pow(theta, -2.0 * c / d_head);
      const float cos = float(std::cos(angle)), sin = float(std::sin(angle));
      for (int h = 0; h < heads; ++h) {
        float& x1 = M(p, h * d_head + c);
        float& x2 = M(p, h * d_head + c + half);
        const float r1 = x1 * cos - x2 * sin, r2 = x2 * cos + x1 * sin;
        x1 = r1;
        x2 = r2;
      }
    }
}

/// Causal softmax of one head's scaled scores, rows = queries, max subtracted per row.
MatrixF causal_softmax(MatrixF scores) {
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    auto row = scores.row(i).head(i + 1);
    row = (row.array() - row.maxCoeff()).exp();
    row /= row.sum();
    scores.row(i).tail(scores.cols() - i - 1).setZero();
  }
  return scores;
}

std::vector<Prediction> top_predictions(const VectorF& logits, int top_k) {
  const Eigen::VectorXd z = logits.cast<double>();
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

}  // namespace

// Named, not anonymous: Transformer::Layer holds them, and a member of a type with external
// linkage may not use a type of an unnamed namespace (GCC's -Wsubobject-linkage in unity builds).
namespace transformer_parts {

/// y = x W + b with W stored as the file stores it: [in, out] (GPT-2's Conv1D) or [out, in]
/// (nn.Linear, used transposed). Points into the WeightSet, which outlives the Transformer's use.
struct Linear {
  const float* W = nullptr;
  Eigen::Index in = 0, out = 0;
  bool stored_out_by_in = false;  ///< nn.Linear
  const float* b = nullptr;       ///< out, or null

  /// The output's columns are shared between the cores (each share a product of its own).
  MatrixF apply(const MatrixF& x) const {
    MatrixF y(x.rows(), out);
    in_parallel(out, double(x.rows()) * double(in) * double(out), [&](Eigen::Index first, Eigen::Index count) {
      if (stored_out_by_in)
        y.middleCols(first, count).noalias() = x * MatrixFMap(W, out, in).middleRows(first, count).transpose();
      else
        y.middleCols(first, count).noalias() = x * MatrixFMap(W, in, out).middleCols(first, count);
    });
    if (b) y.rowwise() += VectorFMap(b, out).transpose();
    return y;
  }
  /// W in the x W convention (in by out), columns [first, first + count).
  MatrixF columns(Eigen::Index first, Eigen::Index count) const {
    if (stored_out_by_in) return MatrixFMap(W, out, in).middleRows(first, count).transpose();
    return MatrixFMap(W, in, out).middleCols(first, count);
  }
  VectorF bias(Eigen::Index first, Eigen::Index count) const {
    return b ? VectorF(VectorFMap(b, out).segment(first, count)) : VectorF();
  }
};

struct Norm {
  const float* w = nullptr;
  const float* b = nullptr;  ///< LayerNorm's shift; null for RMSNorm
  Eigen::Index d = 0;
  double eps = 1e-5;

  /// LayerNorm: (x - mean) / sqrt(var + eps) w + b; RMSNorm: x / sqrt(mean(x^2) + eps) w. Per row,
  /// statistics in double.
  MatrixF apply(const MatrixF& x) const {
    MatrixF y(x.rows(), x.cols());
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
      const Eigen::VectorXd row = x.row(i).transpose().cast<double>();
      const double mean = b ? row.mean() : 0.0;
      const double variance = (row.array() - mean).square().mean();
      const Eigen::VectorXd normed = (row.array() - mean) / std::sqrt(variance + eps);
      y.row(i) = (normed.cast<float>().array() * VectorFMap(w, d).array()).transpose();
      if (b) y.row(i) += VectorFMap(b, d).transpose();
    }
    return y;
  }
};

}  // namespace transformer_parts

using transformer_parts::Linear;
using transformer_parts::Norm;

struct Transformer::Layer {
  Norm norm_1, norm_2;
  Linear qkv;             ///< GPT-2's c_attn: q | k | v side by side (then q, k, v are unused)
  Linear q, k, v, o;
  Linear up, gate, down;  ///< gate only for SwiGLU (Llama, Qwen2)
};

struct Transformer::Embedding {
  const float* tokens = nullptr;     ///< vocab by d_model
  const float* positions = nullptr;  ///< GPT-2's wpe: max_positions by d_model
  const float* head = nullptr;       ///< the LM head: vocab by d_model (the token embedding when tied)
  Norm final_norm;
};

Transformer::Transformer() = default;
Transformer::~Transformer() = default;
Transformer::Transformer(Transformer&&) noexcept = default;
Transformer& Transformer::operator=(Transformer&&) noexcept = default;

namespace {

/// Binds one architecture's tensors by name, shapes from the config.
class Binder {
 public:
  Binder(const ModelConfig& config, WeightSet& weights) : c_(config), w_(weights) {}

  Norm norm(const std::string& name) {
    Norm n;
    n.d = c_.d_model;
    n.eps = c_.norm_eps;
    n.w = w_.vector(name + ".weight", c_.d_model).data();
    if (c_.layer_norm()) n.b = w_.vector(name + ".bias", c_.d_model).data();
    return n;
  }
  /// GPT-2's Conv1D: weight [in, out], bias [out].
  Linear conv1d(const std::string& name, Eigen::Index in, Eigen::Index out) {
    return {w_.matrix(name + ".weight", in, out).data(), in, out, false, w_.vector(name + ".bias", out).data()};
  }
  /// nn.Linear: weight [out, in], bias [out] when `bias`.
  Linear linear(const std::string& name, Eigen::Index in, Eigen::Index out, bool bias) {
    return {w_.matrix(name + ".weight", out, in).data(), in, out, true,
            bias ? w_.vector(name + ".bias", out).data() : nullptr};
  }
  const float* table(const std::string& name, Eigen::Index rows) {
    return w_.matrix(name, rows, c_.d_model).data();
  }

 private:
  const ModelConfig& c_;
  WeightSet& w_;
};

}  // namespace

Transformer Transformer::bind(const ModelConfig& config, WeightSet& weights) {
  Transformer model;
  model.config_ = config;
  model.embedding_ = std::make_unique<Embedding>();
  Binder bind(config, weights);
  const Eigen::Index d = config.d_model, m = config.d_mlp;
  const Eigen::Index q_width = Eigen::Index(config.heads) * config.head_dim;
  const Eigen::Index kv_width = Eigen::Index(config.kv_heads) * config.head_dim;
  Embedding& e = *model.embedding_;
  for (int i = 0; i < config.layers; ++i) {
    Layer layer;
    if (config.architecture == Architecture::gpt2) {
      const std::string p = "h." + std::to_string(i) + ".";
      layer.norm_1 = bind.norm(p + "ln_1");
      layer.norm_2 = bind.norm(p + "ln_2");
      layer.qkv = bind.conv1d(p + "attn.c_attn", d, 3 * d);
      layer.o = bind.conv1d(p + "attn.c_proj", d, d);
      layer.up = bind.conv1d(p + "mlp.c_fc", d, m);
      layer.down = bind.conv1d(p + "mlp.c_proj", m, d);
    } else {
      const std::string p = "layers." + std::to_string(i) + ".";
      layer.norm_1 = bind.norm(p + "input_layernorm");
      layer.norm_2 = bind.norm(p + "post_attention_layernorm");
      layer.q = bind.linear(p + "self_attn.q_proj", d, q_width, config.qkv_bias);
      layer.k = bind.linear(p + "self_attn.k_proj", d, kv_width, config.qkv_bias);
      layer.v = bind.linear(p + "self_attn.v_proj", d, kv_width, config.qkv_bias);
      layer.o = bind.linear(p + "self_attn.o_proj", q_width, d, config.o_bias);
      layer.gate = bind.linear(p + "mlp.gate_proj", d, m, false);
      layer.up = bind.linear(p + "mlp.up_proj", d, m, false);
      layer.down = bind.linear(p + "mlp.down_proj", m, d, false);
    }
    model.layers_.push_back(layer);
  }
  if (config.architecture == Architecture::gpt2) {
    e.tokens = bind.table("wte.weight", config.vocab);
    e.positions = bind.table("wpe.weight", config.max_positions);
    e.final_norm = bind.norm("ln_f");
  } else {
    e.tokens = bind.table("embed_tokens.weight", config.vocab);
    e.final_norm = bind.norm("norm");
  }
  e.head = config.tie_embeddings ? e.tokens : bind.table("lm_head.weight", config.vocab);
  return model;
}

namespace {

void check_ids(const std::vector<int>& ids, const ModelConfig& config) {
  if (ids.empty()) refuse("ids", "empty: give at least one token");
  if (int(ids.size()) > config.max_positions)
    refuse("ids", std::to_string(ids.size()) + " tokens, more than the model's " + std::to_string(config.max_positions) +
                      " positions");
  if (ids.size() > std::size_t(limits::max_tokens))
    refuse("ids", std::to_string(ids.size()) + " tokens, more than attnlab's limit of " + std::to_string(limits::max_tokens));
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || ids[i] >= config.vocab)
      refuse("ids[" + std::to_string(i) + "]", std::to_string(ids[i]) + " is outside the vocabulary (0 to " +
                                                   std::to_string(config.vocab - 1) + ")");
}

}  // namespace

/// Runs one layer on the residual stream h (n by d_model), in place; records it when `record`.
void Transformer::run_layer(int index, MatrixF& h, const std::vector<HeadRef>& off, LayerRun* record) const {
  const Layer& layer = layers_[std::size_t(index)];
  MatrixF a = layer.norm_1.apply(h);
  std::vector<MatrixF> weights;
  MatrixF attn = attention(index, a, off, record ? &weights : nullptr);
  if (record) {
    record->residual_in = h;
    record->attn_in = std::move(a);
    record->weights = std::move(weights);
    record->attn_out = attn;
  }
  h += attn;
  h += mlp(layer, layer.norm_2.apply(h));
}

MatrixF Transformer::attention(int index, const MatrixF& a, const std::vector<HeadRef>& off,
                               std::vector<MatrixF>* weights) const {
  const Layer& layer = layers_[std::size_t(index)];
  const int H = config_.heads, G = config_.kv_heads, dh = config_.head_dim;
  MatrixF Q, K, V;
  if (layer.qkv.W) {
    const MatrixF qkv = layer.qkv.apply(a);
    Q = qkv.leftCols(Eigen::Index(H) * dh);
    K = qkv.middleCols(Eigen::Index(H) * dh, Eigen::Index(G) * dh);
    V = qkv.rightCols(Eigen::Index(G) * dh);
  } else {
    Q = layer.q.apply(a);
    K = layer.k.apply(a);
    V = layer.v.apply(a);
  }
  if (config_.rope_theta > 0) {
    apply_rope(Q, H, dh, config_.rope_theta);
    apply_rope(K, G, dh, config_.rope_theta);
  }
  const float scale = float(1.0 / std::sqrt(double(dh)));
  MatrixF heads(a.rows(), Eigen::Index(H) * dh);
  for (int h = 0; h < H; ++h) {
    const int g = h / (H / G);  // repeat_kv: K/V head g serves query heads g H/G .. (g + 1) H/G - 1
    const MatrixF S = (Q.middleCols(h * dh, dh) * K.middleCols(g * dh, dh).transpose()) * scale;
    MatrixF A = causal_softmax(S);
    if (std::find(off.begin(), off.end(), HeadRef{index, h}) != off.end())
      heads.middleCols(h * dh, dh).setZero();  // switched off: adds nothing
    else
      heads.middleCols(h * dh, dh).noalias() = A * V.middleCols(g * dh, dh);
    if (weights) weights->push_back(std::move(A));
  }
  return layer.o.apply(heads);
}

MatrixF Transformer::mlp(const Layer& layer, const MatrixF& x) const {
  MatrixF hidden = layer.up.apply(x);
  if (layer.gate.W) {
    const MatrixF gate = layer.gate.apply(x);
    hidden.array() *= gate.unaryExpr([&](float v) { return activate(config_.activation, v); }).array();
  } else {
    hidden = hidden.unaryExpr([&](float v) { return activate(config_.activation, v); });
  }
  return layer.down.apply(hidden);
}

std::vector<Prediction> Transformer::predict(const MatrixF& h, int top_k) const {
  const Embedding& e = *embedding_;
  const MatrixF last = e.final_norm.apply(h.bottomRows(1));
  VectorF logits(config_.vocab);
  const MatrixFMap head(e.head, config_.vocab, config_.d_model);
  in_parallel(config_.vocab, double(config_.vocab) * double(config_.d_model), [&](Eigen::Index first, Eigen::Index count) {
    logits.segment(first, count).noalias() = head.middleRows(first, count) * last.row(0).transpose();
  });
  return top_predictions(logits, top_k);
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
  // One layer in flight: the residual stream and its norm, Q, K, V, the heads, the MLP's hidden
  // rows (up and gate), one head's scores and weights, and the logits (float, then double).
  const double working =
      4.0 * (n * (4.0 * d + q_width + 2.0 * kv_width + q_width + 2.0 * config_.d_mlp) + 2.0 * n * n) +
      12.0 * double(config_.vocab);
  return kept * per_kept_layer + working;
}

ForwardRun Transformer::run(const std::vector<int>& ids, int top_k, const std::vector<HeadRef>& heads_off,
                            Keep keep, const std::atomic<bool>* cancelled) const {
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
  const Embedding& e = *embedding_;
  const Eigen::Index n = Eigen::Index(ids.size()), d = config_.d_model;
  MatrixF h(n, d);
  for (Eigen::Index i = 0; i < n; ++i) {
    h.row(i) = MatrixFMap(e.tokens, config_.vocab, d).row(ids[std::size_t(i)]);
    if (e.positions) h.row(i) += MatrixFMap(e.positions, config_.max_positions, d).row(i);
  }
  ForwardRun run;
  run.ids = ids;
  run.heads_off = heads_off;
  run.layers.resize(layers_.size());
  for (int l = 0; l < int(layers_.size()); ++l) {
    if (cancelled && cancelled->load(std::memory_order_relaxed)) refuse("run", "cancelled");
    run_layer(l, h, heads_off, keep.keeps(l) ? &run.layers[std::size_t(l)] : nullptr);
  }
  run.next = predict(h, top_k);
  return run;
}

std::vector<Prediction> Transformer::next_after_layer(const ForwardRun& run, int layer, const Matrix& attn_out,
                                                      int top_k) const {
  if (layer < 0 || layer >= int(run.layers.size())) refuse("layer", std::to_string(layer) + " is out of range");
  const LayerRun& recorded = run.layers[std::size_t(layer)];
  if (recorded.residual_in.size() == 0) refuse("layer", std::to_string(layer) + " was not kept by the run");
  if (attn_out.rows() != recorded.residual_in.rows() || attn_out.cols() != recorded.residual_in.cols())
    refuse("output", "expected " + std::to_string(recorded.residual_in.rows()) + "x" + std::to_string(config_.d_model) +
                         " (tokens x d_model), got " + std::to_string(attn_out.rows()) + "x" + std::to_string(attn_out.cols()));
  const Layer& bound = layers_[std::size_t(layer)];
  MatrixF h = recorded.residual_in + attn_out.cast<float>();
  h += mlp(bound, bound.norm_2.apply(h));
  for (int l = layer + 1; l < int(layers_.size()); ++l) run_layer(l, h, run.heads_off, nullptr);
  return predict(h, top_k);
}

Transformer::AttentionWeights Transformer::attention_weights(int index) const {
  const Layer& layer = layers_.at(std::size_t(index));
  const Eigen::Index q_width = Eigen::Index(config_.heads) * config_.head_dim;
  const Eigen::Index kv_width = Eigen::Index(config_.kv_heads) * config_.head_dim;
  AttentionWeights w;
  if (layer.qkv.W) {
    w.W_q = layer.qkv.columns(0, q_width);
    w.W_k = layer.qkv.columns(q_width, kv_width);
    w.W_v = layer.qkv.columns(q_width + kv_width, kv_width);
    w.b_q = layer.qkv.bias(0, q_width);
    w.b_k = layer.qkv.bias(q_width, kv_width);
    w.b_v = layer.qkv.bias(q_width + kv_width, kv_width);
  } else {
    w.W_q = layer.q.columns(0, q_width);
    w.W_k = layer.k.columns(0, kv_width);
    w.W_v = layer.v.columns(0, kv_width);
    w.b_q = layer.q.bias(0, q_width);
    w.b_k = layer.k.bias(0, kv_width);
    w.b_v = layer.v.bias(0, kv_width);
  }
  w.W_o = layer.o.columns(0, config_.d_model);
  w.b_o = layer.o.bias(0, config_.d_model);
  return w;
}

}  // namespace attnlab::models
