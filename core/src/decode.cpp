#include "attnlab/decode.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attnlab/attention.h"
#include "attnlab/message_text.h"
#include "attnlab/positions.h"

namespace attnlab {

namespace {

enum class Role { query, key, value };

/// Tokens [first, first + count) projected, X W + b (count by d, rows convention), for query head
/// h or key/value head h; queries and keys normalised with QK-norm and each rotated at its own
/// position with RoPE, as compute() does.
Matrix project(const Model& m, std::size_t h, Role role, Eigen::Index first, Eigen::Index count) {
  const std::size_t H = std::size_t(m.num_heads), G = std::size_t(m.num_kv_heads);
  const HeadWeights w = m.head(role == Role::query ? h : h * (H / G));
  const auto& W = role == Role::query ? w.W_q : role == Role::key ? w.W_k : w.W_v;
  const auto& b = role == Role::query ? w.b_q : role == Role::key ? w.b_k : w.b_v;
  const Matrix tokens = m.X->middleRows(first, count);
  Matrix rows = (tokens * W).rowwise() + b.transpose();
  if (role == Role::value) return rows;
  if (m.qk_norm) rows = qk_normalised(m, rows, role == Role::query, Eigen::Index(h), tokens);
  if (!m.rope) return rows;
  const std::vector<double> p(m.query_positions.begin() + first, m.query_positions.begin() + first + count);
  Matrix turned(rows.rows(), rows.cols());
  positional::rotate_rows(*m.rope, m.rope_frequencies, rows, p, 0, count, turned);
  return turned;
}

/// For each key j, the last query that may attend it (-1: none): the cache keeps j while a query
/// from the current token on may still attend it.
std::vector<int> last_query(const Model& m) {
  std::vector<int> last(std::size_t(m.allowed.cols()), -1);
  for (Eigen::Index j = 0; j < m.allowed.cols(); ++j)
    for (Eigen::Index i = m.allowed.rows() - 1; i >= 0; --i)
      if (m.allowed(i, j)) {
        last[std::size_t(j)] = int(i);
        break;
      }
  return last;
}

/// The keys held once tokens 0 .. t have entered: j <= t still attended by some query >= from.
std::vector<int> held(const std::vector<int>& last, int t, int from) {
  std::vector<int> cache;
  for (int j = 0; j <= t; ++j)
    if (last[std::size_t(j)] >= from) cache.push_back(j);
  return cache;
}

/// Query t of head h over the cache: softmax(scale q . k_j (capped) + ALiBi's bias, -infinity where the mask
/// forbids) along the cache, zeros when nothing is allowed or the scores overflow (as compute()).
Vector cache_weights(const Model& m, const Decode& d, std::size_t h, int t, const Vector& q,
                     const std::vector<int>& cache) {
  const Matrix& K = d.K[std::size_t(m.kv_head(h))];
  Matrix logits(1, Eigen::Index(cache.size()));
  for (std::size_t c = 0; c < cache.size(); ++c) {
    const int j = cache[c];
    const double bias = m.slopes.empty() ? 0.0 : alibi_bias(m, h, t, j);
    const double score = K.row(j).dot(q);
    const double logit = m.softcap > 0 ? softcapped_logit(score, m.scale, m.softcap, bias) : biased_logit(score, m.scale, bias);
    logits(0, Eigen::Index(c)) = m.allowed(t, j) ? logit : -std::numeric_limits<double>::infinity();
  }
  return softmax_rows(logits).row(0).transpose();
}

/// Token t decoded: its k and v join the cache, its query attends what the cache holds.
DecodeStep step(const Model& m, Decode& d, const std::vector<int>& last, int t) {
  const std::size_t H = std::size_t(m.num_heads), G = std::size_t(m.num_kv_heads);
  for (std::size_t g = 0; g < G; ++g) {
    d.K[g].row(t) = project(m, g, Role::key, t, 1);
    d.V[g].row(t) = project(m, g, Role::value, t, 1);
  }
  DecodeStep s;
  s.token = t;
  s.cache = held(last, t, t);
  Vector concat = Vector::Zero(Eigen::Index(H) * m.d_v);
  for (std::size_t h = 0; h < H; ++h) {
    s.q.push_back(project(m, h, Role::query, t, 1).row(0).transpose());
    s.weights.push_back(cache_weights(m, d, h, t, s.q.back(), s.cache));
    if (m.is_off(h)) continue;  // switched off: its output is zero
    const Matrix& V = d.V[std::size_t(m.kv_head(h))];
    for (std::size_t c = 0; c < s.cache.size(); ++c)
      concat.segment(Eigen::Index(h) * m.d_v, m.d_v) += s.weights.back()(Eigen::Index(c)) * V.row(s.cache[c]).transpose();
  }
  s.output = m.has_W_o() ? Vector(m.W_o->transpose() * concat + m.b_o) : concat;
  return s;
}

nlohmann::json vector_json(const Vector& v) {
  nlohmann::json out = nlohmann::json::array();
  for (Eigen::Index i = 0; i < v.size(); ++i) out.push_back(std::isfinite(v(i)) ? nlohmann::json(v(i)) : nlohmann::json());
  return out;
}

nlohmann::json size_json(const CacheSize& c) {
  return {{"name", c.name}, {"kv_heads", c.kv_heads}, {"per_token", c.per_token}, {"sequence", c.sequence},
          {"held", c.held}};
}

/// `text` right-aligned in `width` characters.
std::string right(const std::string& text, std::size_t width) {
  return std::string(width > text.size() ? width - text.size() : 0, ' ') + text;
}

/// "MHA                4          128        1536           768"
std::string size_row(const CacheSize& c) {
  return c.name + std::string(c.name.size() < 14 ? 14 - c.name.size() : 1, ' ') + right(std::to_string(c.kv_heads), 9) +
         right(std::to_string(c.per_token), 13) + right(std::to_string(c.sequence), 14) + right(std::to_string(c.held), 14);
}

CacheSize size_of(const char* name, int G, const Model& m, int peak, int bytes) {
  const long per_token = long(G) * (m.d_k + m.d_v) * bytes;
  return {name, G, per_token, per_token * long(m.X->rows()), per_token * peak};
}

/// "float64"; a model layer's "F32, as the model stores its weights", or of mixed dtypes "BF16, the
/// narrowest of the model's BF16+F32".
std::string number_words(const CacheBytes& b) {
  if (b.number == "float64") return b.number;
  if (!b.number_source.empty())
    return b.number + ", the narrowest of the model's " + b.number_source;
  return b.number + ", as the model stores its weights";
}

}  // namespace

void check_decodable(const Scenario& s) {
  if (s.cross_attention())
    refuse("Z", "decode needs self-attention (each token's key and value come from X), this scenario attends to a context Z");
  if (!s.mask.causal)
    refuse("mask.causal", "decode needs a causal mask (a token attends only to itself and earlier tokens), got none");
  for (int t = 1; t < s.n_x(); ++t)
    if (s.position(t) <= s.position(t - 1))
      refuse("positions", "decode needs increasing positions (each token after the one before), got position " +
                              std::to_string(s.position(t)) + " for token " + std::to_string(t) + " after " +
                              std::to_string(s.position(t - 1)));
}

CacheNumber cache_number(const Scenario& s) {
  const auto model = s.view.find("model");
  if (model == s.view.end() || !model->is_object() || !model->contains("dtype")) return {};
  const nlohmann::json& dtype = (*model)["dtype"];
  const auto bad = [&] {
    refuse(
        "view.model.dtype",
        "expected the model's safetensors dtypes (F64, F32, F16, BF16; several joined by +), got " +
            (dtype.is_string() ? "\"" + prefix_excerpt(dtype.get<std::string>(), 24) + "\""
                               : std::string(dtype.type_name())));
  };
  if (!dtype.is_string()) bad();
  const std::string names = dtype.get<std::string>();
  CacheNumber narrowest{0, "", ""};
  for (std::size_t begin = 0; begin <= names.size();) {
    const std::size_t end = std::min(names.find('+', begin), names.size());
    const std::string name = names.substr(begin, end - begin);
    const int bytes = name == "F64"                     ? 8
                      : name == "F32"                   ? 4
                      : name == "F16" || name == "BF16" ? 2
                                                        : 0;
    if (bytes == 0) bad();
    if (narrowest.bytes == 0 || bytes < narrowest.bytes) narrowest = {bytes, name, ""};
    begin = end + 1;
  }
  if (narrowest.name != names) narrowest.source = names;
  return narrowest;
}

CacheBytes cache_bytes(const Model& m, int peak_tokens, const CacheNumber& number) {
  CacheBytes b;
  b.bytes_per_number = number.bytes;
  b.number = number.name;
  b.number_source = number.source;
  b.peak_tokens = peak_tokens;
  const int H = m.num_heads;
  const int bytes = number.bytes;
  b.scenario = size_of("this scenario", m.num_kv_heads, m, peak_tokens, bytes);
  b.variants.push_back(size_of("MHA", H, m, peak_tokens, bytes));
  int gqa = m.num_kv_heads > 1 && m.num_kv_heads < H ? m.num_kv_heads : 0;
  for (int g = H - 1; g > 1 && gqa == 0; --g)
    if (H % g == 0) gqa = g;
  if (gqa > 0) b.variants.push_back(size_of("GQA", gqa, m, peak_tokens, bytes));
  b.variants.push_back(size_of("MQA", 1, m, peak_tokens, bytes));
  return b;
}

Decode decode(const Scenario& scenario, const Model& m, int prefill) {
  check_decodable(scenario);
  const int n = int(m.X->rows());
  if (prefill < 0 || prefill >= n)
    refuse("prefill", "expected a token count from 0 to " + std::to_string(n - 1) + " (n = " + std::to_string(n) +
                          "), got " + std::to_string(prefill));
  Decode d;
  d.prefill = prefill;
  const std::size_t G = std::size_t(m.num_kv_heads);
  for (std::size_t g = 0; g < G; ++g) {
    d.K.push_back(Matrix::Zero(n, m.d_k));
    d.V.push_back(Matrix::Zero(n, m.d_v));
    if (prefill == 0) continue;
    // the prefill's keys and values in one product each
    d.K[g].topRows(prefill) = project(m, g, Role::key, 0, prefill);
    d.V[g].topRows(prefill) = project(m, g, Role::value, 0, prefill);
  }
  const std::vector<int> last = last_query(m);
  d.prefill_cache = held(last, prefill - 1, prefill);
  std::size_t peak = d.prefill_cache.size();
  for (int t = prefill; t < n; ++t) {
    d.steps.push_back(step(m, d, last, t));
    peak = std::max(peak, d.steps.back().cache.size());
  }
  d.bytes = cache_bytes(m, int(peak), cache_number(scenario));
  return d;
}

nlohmann::json decode_to_json(const Decode& d) {
  nlohmann::json steps = nlohmann::json::array();
  for (const DecodeStep& s : d.steps) {
    nlohmann::json weights = nlohmann::json::array();
    for (const Vector& w : s.weights) weights.push_back(vector_json(w));
    steps.push_back({{"token", s.token}, {"cache", s.cache}, {"weights", weights}, {"output", vector_json(s.output)}});
  }
  nlohmann::json variants = nlohmann::json::array();
  for (const CacheSize& c : d.bytes.variants) variants.push_back(size_json(c));
  const nlohmann::json bytes = {{"bytes_per_number", d.bytes.bytes_per_number},
                                {"number", d.bytes.number},
                                {"peak_tokens", d.bytes.peak_tokens},
                                {"scenario", size_json(d.bytes.scenario)},
                                {"variants", variants}};
  return {{"prefill", d.prefill}, {"steps", steps}, {"cache_bytes", bytes}};
}

std::string cache_bytes_sentence(const CacheBytes& b, int d_k, int d_v) {
  const CacheSize& s = b.scenario;
  const std::string heads = std::to_string(s.kv_heads) + " K/V head" + (s.kv_heads == 1 ? "" : "s");
  return heads + " \xC3\x97 " + std::to_string(d_k + d_v) + " numbers (a key of " +
         std::to_string(d_k) + " and a value of " + std::to_string(d_v) + ") \xC3\x97 " +
         std::to_string(b.bytes_per_number) + " bytes (" + number_words(b) +
         ") = " + std::to_string(s.per_token) + " bytes per token per layer";
}

std::string cache_bytes_text(const CacheBytes& b, int tokens) {
  std::string out = "              K/V heads  bytes/token" + right(std::to_string(tokens) + " tokens", 14) +
                    right(std::to_string(b.peak_tokens) + " held", 14) + "\n";
  out += size_row(b.scenario) + "\n";
  for (const CacheSize& c : b.variants) out += size_row(c) + "\n";
  return out;
}

Decode decode(const Scenario& scenario, int prefill) {
  check_decodable(scenario);
  return decode(scenario, resolve(scenario), prefill);
}

}  // namespace attnlab
