// Writes the attention computation as plain NumPy, one line per step, so that students can run it
// next to the notebook they know and compare every intermediate with the window.
#include "attnlab/export/numpy_script.h"

#include "attnlab/numbering.h"
#include "attnlab/positions.h"

#include <algorithm>
#include <charconv>
#include <sstream>
#include <utility>
#include <vector>

namespace attnlab::exporter {
namespace {

/// Shortest text that reads back as the same double; always with a '.' or an exponent, so that
/// NumPy makes float arrays.
std::string py_number(double v) {
  char buffer[64];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, v).ptr;
  std::string s(buffer, end);
  if (s == "inf" || s == "-inf" || s == "nan") return "float('" + s + "')";
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

/// np.array([[...], ...]) with columns aligned, `indent` spaces before continuation lines.
std::string py_matrix(const Matrix& m) {
  std::vector<std::string> cells;
  std::size_t width = 0;
  for (Eigen::Index k = 0; k < m.size(); ++k) {
    cells.push_back(py_number(m.data()[k]));
    width = std::max(width, cells.back().size());
  }
  std::string out = "np.array([\n";
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    out += "    [";
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      const std::string& c = cells[static_cast<std::size_t>(i * m.cols() + j)];
      out += std::string(width - c.size(), ' ') + c + (j + 1 < m.cols() ? ", " : "");
    }
    out += "],\n";
  }
  return out + "])";
}

std::string py_vector(const Vector& v) {
  std::string out = "np.array([";
  for (Eigen::Index k = 0; k < v.size(); ++k) out += (k ? ", " : "") + py_number(v(k));
  return out + "])";
}

std::string py_list(const std::vector<double>& v) {
  return py_vector(Eigen::Map<const Vector>(v.data(), Eigen::Index(v.size())));
}

std::string py_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') out += "\\n";
    else out += c;
  }
  return out + "\"";
}

/// Text safe inside a """docstring""".
std::string docstring_text(std::string s) {
  for (std::size_t k = 0; (k = s.find_first_of("\\\"", k)) != std::string::npos; k += 2) s.insert(k, "\\");
  return s;
}

std::string py_strings(const std::vector<std::string>& v) {
  std::string out = "[";
  for (std::size_t k = 0; k < v.size(); ++k) out += (k ? ", " : "") + py_string(v[k]);
  return out + "]";
}

struct Writer {
  const Scenario& s;
  std::ostringstream out;
  bool rows() const { return s.layout == Layout::rows; }

  void header(const std::string& source) {
    out << "#!/usr/bin/env python3\n\"\"\"" << docstring_text(s.title.empty() ? "attention" : s.title) << "\n\n"
        << "Exported by attnlab-cli from " << source << ". Run it with Python 3 and NumPy; it prints the\n"
        << "trace as JSON in the shape of `attnlab-cli compute` (matrices as lists of rows, -inf as null).\n";
    if (rows())
      out << "Layout: rows (tokens are the rows of X, as in Vaswani et al. and PyTorch):\n"
          << "Q = X W_q + b_q, scores S = Q K^T, softmax along each row, head output A V.\n";
    else
      out << "Layout: columns (tokens are the columns of X, as in Prince and Phuong & Hutter):\n"
          << "Q = W_q X + b_q 1^T, scores S = K^T Q, softmax down each column, head output V A.\n";
    out << "\"\"\"\nimport json\n\nimport numpy as np\n\n";
  }

  void sequences() {
    const char* shape = rows() ? "n_x by d_x" : "d_x by n_x";
    out << "tokens = " << py_strings(s.tokens.empty() ? std::vector<std::string>{} : s.tokens) << "\n";
    out << "X = " << py_matrix(s.X) << "  # " << shape << "\n";
    if (s.Z) {
      out << "context_tokens = " << py_strings(s.context_tokens) << "\n";
      out << "Z = " << py_matrix(*s.Z) << "  # " << (rows() ? "n_z by d_z" : "d_z by n_z") << ": keys and values come from Z\n";
    } else {
      out << "Z = X  # self-attention: keys and values come from X too\n";
    }
    out << "n_x, n_z = X.shape[" << (rows() ? 0 : 1) << "], Z.shape[" << (rows() ? 0 : 1) << "]\n";
    positions();
  }

  static std::string py_ints(const std::vector<int>& v) {
    std::string out = "np.array([";
    for (std::size_t k = 0; k < v.size(); ++k) out += (k ? ", " : "") + std::to_string(v[k]);
    return out + "], dtype=float)";
  }

  /// Every token's position (the mask, RoPE, ALiBi and the encoding read them), then X + PE.
  void positions() {
    out << "positions = " << (s.positions.empty() ? "np.arange(n_x, dtype=float)" : py_ints(s.positions))
        << "  # query token i is at positions[i]\n";
    if (!s.Z) out << "context_positions = positions  # self-attention: the keys are the same tokens\n";
    else
      out << "context_positions = "
          << (s.context_positions.empty() ? "np.arange(n_z, dtype=float)" : py_ints(s.context_positions)) << "\n";
    if (s.positional_encoding != PositionalEncoding::sinusoidal) {
      out << "\n";
      return;
    }
    const char* t = rows() ? "" : ".T";
    out << "\n\ndef sinusoidal(p, d):\n"
        << "    \"\"\"Vaswani et al.: PE[t, 2i] = sin(p_t / 10000^(2i/d)), PE[t, 2i+1] = cos(p_t / 10000^(2i/d)).\"\"\"\n"
        << "    i2 = np.arange(d) // 2 * 2  # 2i for both coordinates of pair i\n"
        << "    angle = p[:, None] / 10000.0 ** (i2[None, :] / d)\n"
        << "    return np.where(np.arange(d)[None, :] % 2 == 0, np.sin(angle), np.cos(angle))  # tokens by d\n\n\n"
        << "X_pos = X + sinusoidal(positions, X.shape[" << (rows() ? 1 : 0) << "])" << t << "  # what the projections read\n";
    if (s.Z) out << "Z_pos = Z + sinusoidal(context_positions, Z.shape[" << (rows() ? 1 : 0) << "])" << t << "\n";
    out << "X = X_pos\nZ = " << (s.Z ? "Z_pos" : "X_pos") << "\n\n";
  }

  /// W = <literal> or the identity; b = <literal> or zeros of the projection's width.
  /// `which`: "qkv" every projection, "q" W_q and b_q only, "kv" W_k, W_v and their biases.
  void projection(const std::string& prefix, const Projections& p, const std::string& indent,
                  const std::string& which = "qkv") {
    const std::pair<const char*, const std::optional<Matrix>*> ws[] = {{"W_q", &p.W_q}, {"W_k", &p.W_k}, {"W_v", &p.W_v}};
    const std::pair<const char*, const std::optional<Vector>*> bs[] = {{"b_q", &p.b_q}, {"b_k", &p.b_k}, {"b_v", &p.b_v}};
    const auto wanted = [&](int k) { return which.find("qkv"[k]) != std::string::npos; };
    for (int k = 0; k < 3; ++k) {
      if (!wanted(k)) continue;
      const std::string name = prefix + ws[k].first;
      const char* width = k == 0 ? "X" : "Z";
      if (*ws[k].second)
        out << indent << name << " = " << py_matrix(**ws[k].second) << "\n";
      else
        out << indent << name << " = np.eye(" << width << ".shape[" << (rows() ? 1 : 0) << "])  # omitted: identity\n";
    }
    for (int k = 0; k < 3; ++k) {
      if (!wanted(k)) continue;
      const std::string name = prefix + bs[k].first, w = prefix + ws[k].first;
      if (*bs[k].second)
        out << indent << name << " = " << py_vector(**bs[k].second) << "\n";
      else
        out << indent << name << " = np.zeros(" << w << ".shape[" << (rows() ? 1 : 0) << "])  # omitted: zero\n";
    }
  }

  void weights() {
    if (s.per_head() && !s.kv_heads.empty()) return grouped_per_head();
    if (s.per_head()) {
      out << "# Per-head weights (" << (rows() ? "W_q: d_x by d_k" : "W_q: d_k by d_x") << ").\nweights = []\n";
      for (std::size_t h = 0; h < s.heads.size(); ++h) {
        out << "# " << head_label(int(h)) << "\n";
        projection("", s.heads[h], "");
        out << "weights.append(dict(W_q=W_q, W_k=W_k, W_v=W_v, b_q=b_q, b_k=b_k, b_v=b_v, kv_head=" << h << "))\n";
      }
      out << "H = len(weights)\n\n";
      return;
    }
    if (s.grouped()) return grouped_full();
    out << "# Full projections, split into H heads by " << (rows() ? "columns" : "rows") << " (head h takes block h).\n";
    projection("", s.full, "");
    out << "H = " << s.num_heads << "\n";
    const char* axis = rows() ? "1" : "0";
    out << "d_k, d_v = W_q.shape[" << axis << "] // H, W_v.shape[" << axis << "] // H\n"
        << "weights = []\nfor h in range(H):\n"
        << "    qk, v = slice(h * d_k, (h + 1) * d_k), slice(h * d_v, (h + 1) * d_v)\n";
    if (rows())
      out << "    weights.append(dict(W_q=W_q[:, qk], W_k=W_k[:, qk], W_v=W_v[:, v], b_q=b_q[qk], b_k=b_k[qk], b_v=b_v[v], kv_head=h))\n\n";
    else
      out << "    weights.append(dict(W_q=W_q[qk, :], W_k=W_k[qk, :], W_v=W_v[v, :], b_q=b_q[qk], b_k=b_k[qk], b_v=b_v[v], kv_head=h))\n\n";
  }

  /// Grouped-query attention with full matrices: W_k and W_v split into G key/value heads.
  void grouped_full() {
    const char* by = rows() ? "columns" : "rows";
    out << "# Full projections: W_q split into H query heads, W_k and W_v into G key/value heads, by " << by
        << ".\n# Query head h reads key/value head h // (H // G): consecutive heads share (Llama's repeat_kv).\n";
    projection("", s.full, "");
    const char* axis = rows() ? "1" : "0";
    out << "H, G = " << s.num_heads << ", " << s.kv_head_count() << "\n"
        << "d_k, d_v = W_q.shape[" << axis << "] // H, W_v.shape[" << axis << "] // G\n"
        << "weights = []\nfor h in range(H):\n    g = h // (H // G)\n"
        << "    q, k, v = slice(h * d_k, (h + 1) * d_k), slice(g * d_k, (g + 1) * d_k), slice(g * d_v, (g + 1) * d_v)\n";
    if (rows())
      out << "    weights.append(dict(W_q=W_q[:, q], W_k=W_k[:, k], W_v=W_v[:, v], b_q=b_q[q], b_k=b_k[k], b_v=b_v[v], kv_head=g))\n\n";
    else
      out << "    weights.append(dict(W_q=W_q[q, :], W_k=W_k[k, :], W_v=W_v[v, :], b_q=b_q[q], b_k=b_k[k], b_v=b_v[v], kv_head=g))\n\n";
  }

  /// Grouped-query attention with per-head weights: each query head's W_q, then the G key/value heads.
  void grouped_per_head() {
    out << "# Per-head query weights; G key/value heads, query head h reads key/value head h // (H // G).\nkv = []\n";
    for (std::size_t g = 0; g < s.kv_heads.size(); ++g) {
      out << "# key/value " << head_label(int(g)) << "\n";
      projection("", s.kv_heads[g], "", "kv");
      out << "kv.append(dict(W_k=W_k, W_v=W_v, b_k=b_k, b_v=b_v))\n";
    }
    out << "queries = []\n";
    for (std::size_t h = 0; h < s.heads.size(); ++h) {
      out << "# query " << head_label(int(h)) << "\n";
      projection("", s.heads[h], "", "q");
      out << "queries.append(dict(W_q=W_q, b_q=b_q))\n";
    }
    out << "H, G = len(queries), len(kv)\n"
        << "weights = [dict(**queries[h], **kv[h // (H // G)], kv_head=h // (H // G)) for h in range(H)]\n\n";
  }

  void output_projection() {
    if (!s.W_o) return;
    out << "W_o = " << py_matrix(*s.W_o) << "  # " << (rows() ? "H d_v by d_out" : "d_out by H d_v") << "\n";
    if (s.b_o)
      out << "b_o = " << py_vector(*s.b_o) << "\n";
    else
      out << "b_o = np.zeros(W_o.shape[" << (rows() ? 1 : 0) << "])  # omitted: zero\n";
    out << "\n";
  }

  void scale() {
    out << "d_k = weights[0][\"W_q\"].shape[" << (rows() ? 1 : 0) << "]\n";
    switch (s.scale.kind) {
      case Scale::Kind::inv_sqrt_dk: out << "scale = 1 / np.sqrt(d_k)\n"; break;
      case Scale::Kind::none: out << "scale = 1.0  # unscaled\n"; break;
      case Scale::Kind::value: out << "scale = " << py_number(s.scale.value) << "\n"; break;
    }
  }

  void mask() {
    const char* shape = rows() ? "(n_x, n_z)" : "(n_z, n_x)";
    out << "\n# mask[" << (rows() ? "i, j" : "j, i") << "] = 1: query i may attend key j ("
        << (rows() ? "n_x by n_z" : "n_z by n_x") << ")\nmask = np.ones(" << shape << ")\n";
    const char* gap = rows() ? "positions[:, None] - context_positions[None, :]"
                             : "positions[None, :] - context_positions[:, None]";
    if (s.mask.causal) out << "mask = mask * (" << gap << " >= 0)  # causal: key j at or before query i\n";
    if (s.mask.window > 0)
      out << "mask = mask * (np.abs(" << gap << ") < " << s.mask.window << ")  # window: |p_i - c_j| < "
          << s.mask.window << "\n";
    if (s.mask.cells) out << "mask = mask * (" << py_matrix(*s.mask.cells) << " != 0)\n";
    sinks(gap);
    for (int j : s.mask.padding)
      out << "mask[" << (rows() ? ":, " : "") << j << (rows() ? "" : ", :") << "] = 0  # padding: no query attends key " << j << "\n";
  }

  /// StreamingLLM's sinks: keys j < s as causal says, whatever the window and the cells said.
  void sinks(const char* gap) {
    if (s.mask.sinks == 0) return;
    const std::string keys = std::string(":") + std::to_string(s.mask.sinks);
    const std::string cut = rows() ? "[:, " + keys + "]" : "[" + keys + ", :]";
    out << "mask" << cut << " = " << (s.mask.causal ? std::string("((") + gap + ") >= 0)" + cut : std::string("1"))
        << "  # sinks: keys j < " << s.mask.sinks << " visible wherever causal allows\n";
  }

  /// RoPE: each head's Q and K turned pair by pair, as the scenario's style pairs coordinates.
  void rope() {
    if (!s.rope) return;
    const Rope& rope = *s.rope;
    const bool half = rope.style == Rope::Style::half;
    out << "\n\ndef rotate(M, p):\n"
        << "    \"\"\"RoPE (" << (half ? "half: coordinate c pairs with c + R/2, as Hugging Face's rotate_half"
                                       : "interleaved: 2c pairs with 2c + 1, as RoFormer and GPT-J")
        << "). M is tokens by d_k; row t turns\n    pair c by p[t] theta_c, theta_c = base^(-2c/R); coordinates from R on stay.\"\"\"\n"
        << "    R = " << (rope.dims > 0 ? std::to_string(rope.dims) : "M.shape[1]") << "\n"
        << "    theta = " << py_number(rope.base) << " ** (-2.0 * np.arange(R // 2) / R)\n";
    rope_scaling();
    out << "    angle = p[:, None] * theta[None, :]  # tokens by R/2\n"
        << "    x, y = " << (half ? "np.arange(R // 2), np.arange(R // 2) + R // 2" : "np.arange(0, R, 2), np.arange(1, R, 2)") << "\n"
        << "    out = M.copy()\n";
    const std::string a = rope.scaling.kind == RopeScaling::Kind::longrope ? " * attention_factor" : "";
    out << "    out[:, x] = (M[:, x] * np.cos(angle) - M[:, y] * np.sin(angle))" << a << "\n"
        << "    out[:, y] = (M[:, y] * np.cos(angle) + M[:, x] * np.sin(angle))" << a << "\n"
        << "    return out\n";
  }

  /// RoPE scaling inside rotate(): theta divided pair by pair, as Hugging Face's modeling_rope_utils.py.
  void rope_scaling() {
    const RopeScaling& sc = s.rope->scaling;
    switch (sc.kind) {
      case RopeScaling::Kind::none: return;
      case RopeScaling::Kind::linear:
        out << "    theta = theta / " << py_number(sc.factor) << "  # linear scaling: every frequency divided\n";
        return;
      case RopeScaling::Kind::llama3:
        out << "    # Llama 3: long wavelengths divided by factor, short ones kept, those between blended\n"
            << "    factor, low, high, original = " << py_number(sc.factor) << ", " << py_number(sc.low_freq_factor)
            << ", " << py_number(sc.high_freq_factor) << ", " << py_number(sc.original_positions) << "\n"
            << "    wavelen = 2 * np.pi / theta\n"
            << "    smooth = (original / wavelen - low) / (high - low)\n"
            << "    blended = (1 - smooth) * theta / factor + smooth * theta\n"
            << "    theta = np.where(wavelen > original / low, theta / factor,\n"
            << "                     np.where(wavelen < original / high, theta, blended))\n";
        return;
      case RopeScaling::Kind::longrope:
        out << "    # LongRoPE: the long factors once the longest position + 1 exceeds " << py_number(sc.original_positions)
            << ", else the short ones\n"
            << "    longest = max(np.max(positions), np.max(context_positions)) + 1\n"
            << "    theta = theta / np.array(" << py_list(sc.long_factors) << " if longest > "
            << py_number(sc.original_positions) << " else " << py_list(sc.short_factors) << ")\n"
            << "    attention_factor = " << py_number(sc.attention_factor) << "  # cos and sin scaled\n";
        return;
    }
  }

  /// QK-norm: RMSNorm of each query and key (over the head, or the whole width) before RoPE.
  void qk_norm() {
    if (!s.qk_norm) return;
    const QkNorm& n = *s.qk_norm;
    const bool head = n.scope == QkNorm::Scope::head;
    const char* axis = rows() ? "1" : "0";
    out << "\n# QK-norm (" << (head ? "over each head's d_k, as Qwen3 and Gemma 3" : "over the whole width, as OLMo 2")
        << "): q / sqrt(mean(q^2) + eps) * " << (n.plus_one ? "(1 + w)" : "w") << ".\neps = " << py_number(n.eps) << "\n";
    const auto gain = [&](const char* name, const Vector& w, const char* size) {
      out << name << " = ";
      if (w.size() > 0) out << py_vector(w);
      else out << "np.full(" << size << ", " << (n.plus_one ? "0.0" : "1.0") << ")  # omitted: a gain of 1";
      out << (n.plus_one ? " + 1  # Gemma's RMSNorm stores w - 1" : "") << "\n";
    };
    const char* d_k = rows() ? "weights[0][\"W_q\"].shape[1]" : "weights[0][\"W_q\"].shape[0]";
    const std::string H_dk = std::string("len(weights) * ") + d_k;
    const std::string G_dk = std::string("len({w[\"kv_head\"] for w in weights}) * ") + d_k;
    gain("w_q", n.w_q, head ? d_k : H_dk.c_str());
    gain("w_k", n.w_k, head ? d_k : G_dk.c_str());
    if (head) {
      out << "\n\ndef rms_norm(M, w, first):\n    \"\"\"Each token's d_k coordinates divided by their root mean square, times w.\"\"\"\n"
          << "    return M / np.sqrt(np.mean(M ** 2, axis=" << axis << ", keepdims=True) + eps) * w"
          << (rows() ? "[None, :]" : "[:, None]") << "\n";
      return;
    }
    // Over the width: every head's projections of a token, then each head's share of the weights.
    const char* tokens_q = rows() ? "X @ w[\"W_q\"] + w[\"b_q\"]" : "w[\"W_q\"] @ X + w[\"b_q\"][:, None]";
    const char* tokens_k = rows() ? "Z @ w[\"W_k\"] + w[\"b_k\"]" : "w[\"W_k\"] @ Z + w[\"b_k\"][:, None]";
    out << "first_of_kv = [h for h, w in enumerate(weights) if h == 0 or w[\"kv_head\"] != weights[h - 1][\"kv_head\"]]\n"
        << "q_all = np." << (rows() ? "hstack" : "vstack") << "([" << tokens_q << " for w in weights])  # every query head\n"
        << "k_all = np." << (rows() ? "hstack" : "vstack") << "([" << tokens_k
        << " for h, w in enumerate(weights) if h in first_of_kv])  # every key/value head\n"
        << "inv_q = 1 / np.sqrt(np.mean(q_all ** 2, axis=" << axis << ", keepdims=True) + eps)  # one per query token\n"
        << "inv_k = 1 / np.sqrt(np.mean(k_all ** 2, axis=" << axis << ", keepdims=True) + eps)  # one per key token\n";
    out << "\n\ndef rms_norm(M, w, first):\n    \"\"\"The head's coordinates [first, first + d_k) of the normalised width.\"\"\"\n"
        << "    d = M.shape[" << axis << "]\n"
        << "    return M * (inv_q if w is w_q else inv_k) * w[first:first + d]" << (rows() ? "[None, :]" : "[:, None]") << "\n";
  }

  /// ALiBi: the slopes, and the distances they multiply.
  void alibi() {
    if (!s.alibi) return;
    const std::vector<double> slopes =
        s.alibi->slopes.empty() ? positional::alibi_slopes(s.head_count()) : s.alibi->slopes;
    out << "\n# ALiBi: head h adds -slopes[h] |p_i - c_j| to its scaled scores"
        << (s.alibi->slopes.empty() ? " (the paper's slopes for H heads)" : "") << ".\nslopes = [";
    for (std::size_t h = 0; h < slopes.size(); ++h) out << (h ? ", " : "") << py_number(slopes[h]);
    out << "]\ndistance = np.abs("
        << (rows() ? "positions[:, None] - context_positions[None, :]" : "positions[None, :] - context_positions[:, None]")
        << ")  # " << (rows() ? "n_x by n_z" : "n_z by n_x") << "\n";
  }

  void compute() {
    const bool r = rows();
    rope();
    qk_norm();
    alibi();
    out << "\n\ndef softmax(S, axis):\n"
        << "    \"\"\"Softmax along `axis` (1: along each row, 0: down each column). Subtracting the maximum\n"
        << "    first keeps exp from overflowing; a slice with no allowed key (all -inf) gets all-zero weights.\"\"\"\n"
        << "    m = np.max(S, axis=axis, keepdims=True)\n"
        << "    E = np.exp(S - np.where(np.isfinite(m), m, 0.0))\n"
        << "    total = np.sum(E, axis=axis, keepdims=True)\n"
        << "    return np.divide(E, total, out=np.zeros_like(E), where=total > 0)\n\n\n"
        << "heads = []\nfor w in weights:\n";
    if (r)
      out << "    Q = X @ w[\"W_q\"] + w[\"b_q\"]  # n_x by d_k\n"
          << "    K = Z @ w[\"W_k\"] + w[\"b_k\"]  # n_z by d_k\n"
          << "    V = Z @ w[\"W_v\"] + w[\"b_v\"]  # n_z by d_v\n";
    else
      out << "    Q = w[\"W_q\"] @ X + w[\"b_q\"][:, None]  # d_k by n_x\n"
          << "    K = w[\"W_k\"] @ Z + w[\"b_k\"][:, None]  # d_k by n_z\n"
          << "    V = w[\"W_v\"] @ Z + w[\"b_v\"][:, None]  # d_v by n_z\n";
    if (s.qk_norm) {
      out << "    Q_proj, K_proj = Q, K  # the projections, before the norm\n";
      const bool head = s.qk_norm->scope == QkNorm::Scope::head;
      const char* d_k = r ? "Q.shape[1]" : "Q.shape[0]";
      out << "    Q_norm = rms_norm(Q, w_q, " << (head ? "0" : "len(heads) * " + std::string(d_k)) << ")  # QK-norm, before RoPE\n"
          << "    K_norm = rms_norm(K, w_k, " << (head ? "0" : "w[\"kv_head\"] * " + std::string(d_k)) << ")\n"
          << "    Q, K = Q_norm, K_norm  # what RoPE turns and the scores read\n";
    }
    if (s.rope && r)
      out << "    Q_rot, K_rot = rotate(Q, positions), rotate(K, context_positions)  # V is not rotated\n"
          << "    S = Q_rot @ K_rot.T  # scores, n_x by n_z\n";
    else if (s.rope)
      out << "    Q_rot, K_rot = rotate(Q.T, positions).T, rotate(K.T, context_positions).T  # V is not rotated\n"
          << "    S = K_rot.T @ Q_rot  # scores, n_z by n_x\n";
    else
      out << (r ? "    S = Q @ K.T  # scores, n_x by n_z\n" : "    S = K.T @ Q  # scores, n_z by n_x\n");
    out << "    S_scaled = S * scale\n";
    const char* logits = "S_scaled";
    if (s.softcap > 0) {
      out << "    S_capped = " << py_number(s.softcap) << " * np.tanh(S_scaled / " << py_number(s.softcap)
          << ")  # Gemma 2's softcap, before the bias and the mask\n";
      logits = "S_capped";
    }
    if (s.alibi) out << "    B = -slopes[len(heads)] * distance  # ALiBi's bias\n";
    out << "    S_masked = np.where(mask != 0, " << logits << (s.alibi ? " + B" : "") << ", -np.inf)\n"
        << "    A = softmax(S_masked, axis=" << (r ? "1)  # each row sums to 1" : "0)  # each column sums to 1") << "\n"
        << "    Y = " << (r ? "A @ V  # n_x by d_v" : "V @ A  # d_v by n_x") << "\n";
    if (!s.heads_off.empty()) {
      out << "    if len(heads) in [";
      for (std::size_t i = 0; i < s.heads_off.size(); ++i) out << (i ? ", " : "") << s.heads_off[i];
      out << "]:  # heads switched off: their output is zero\n        Y = np.zeros_like(Y)\n";
    }
    out
        << "    heads.append(dict(Q=" << (s.qk_norm ? "Q_proj, K=K_proj" : "Q, K=K") << ", V=V, "
        << (s.qk_norm ? "Q_norm=Q_norm, K_norm=K_norm, " : "") << (s.rope ? "Q_rot=Q_rot, K_rot=K_rot, " : "")
        << "scores=S, scaled=S_scaled, " << (s.softcap > 0 ? "capped=S_capped, " : "") << (s.alibi ? "bias=B, " : "")
        << "masked=S_masked, weights=A, output=Y, kv_head=w[\"kv_head\"]))\n\n"
        << "concat = np." << (r ? "hstack" : "vstack") << "([head[\"output\"] for head in heads])  # "
        << (r ? "n_x by H d_v" : "H d_v by n_x") << "\n";
    if (!s.W_o)
      out << "output = concat  # no W_o: the output is the concatenation\n";
    else
      out << "output = " << (r ? "concat @ W_o + b_o" : "W_o @ concat + b_o[:, None]") << "\n";
  }

  /// Per-head statistics of the weights, one value per query (docs/FORMAT.md).
  void stats() {
    out << "\n\ndef head_stats(A, p, c):\n"
        << "    \"\"\"Per query: A is queries by keys (row i: query i's weights), p and c the queries' and keys' positions.\n"
        << "    A query with all-zero weights (it attends nothing) gets 0 everywhere and argmax -1.\"\"\"\n"
        << "    attends = A.max(axis=1) > 0\n"
        << "    entropy = -np.sum(A * np.log(np.where(A > 0, A, 1.0)), axis=1)  # nats; 0 ln 0 = 0\n"
        << "    largest_first = -np.sort(-A, axis=1)\n"
        << "    # The largest weights summed until they reach 0.9 (1e-9 of slack: ten weights of 0.1 make 0.8999999999999999).\n"
        << "    reach = np.minimum(np.sum(np.cumsum(largest_first, axis=1) < 0.9 - 1e-9, axis=1) + 1, A.shape[1])\n"
        << "    return {\n"
        << "        \"entropy\": [float(v) for v in entropy],\n"
        << "        \"max_weight\": [float(v) for v in A.max(axis=1)],\n"
        << "        \"argmax\": [int(j) if a else -1 for j, a in zip(np.argmax(A, axis=1), attends)],  # ties: the lowest key\n"
        << "        \"keys_for_90\": [int(k) if a else 0 for k, a in zip(reach, attends)],\n"
        << "        \"first_key\": [float(v) for v in A[:, 0]],  # an attention sink\n"
        << "        \"mean_distance\": [float(v) for v in np.sum(A * np.abs(p[:, None] - c[None, :]), axis=1)],\n"
        << "    }\n\n\n"
        << "for head in heads:\n"
        << "    head[\"stats\"] = head_stats(head[\"weights\"]" << (rows() ? "" : ".T") << ", positions, context_positions)\n";
  }

  void print_json() {
    const bool r = rows();
    out << "\n# Warnings, worded as attnlab's.\nlabels = tokens if tokens else [f\"#{i}\" for i in range(n_x)]\n"
        << "warnings = [f\"query {labels[i]} (#{i}) may attend no key: its weights and head outputs are all zero\"\n"
        << "            for i in range(n_x) if not mask[" << (r ? "i, :" : ":, i") << "].any()]\n\n\n"
        << "def to_json(M):\n    return [[float(v) if np.isfinite(v) else None for v in row] for row in M]\n\n\n"
        << "print(json.dumps({\n"
        << "    \"layout\": \"" << (r ? "rows" : "columns") << "\",\n"
        << (s.positional_encoding == PositionalEncoding::sinusoidal ? "    \"X_pos\": to_json(X_pos),\n" : "")
        << (s.positional_encoding == PositionalEncoding::sinusoidal && s.Z ? "    \"Z_pos\": to_json(Z_pos),\n" : "")
        << "    \"heads\": [{name: M if name in (\"kv_head\", \"stats\") else to_json(M) for name, M in head.items()} for head in heads],\n"
        << "    \"concat\": to_json(concat),\n    \"output\": to_json(output),\n    \"warnings\": warnings,\n}))\n";
  }
};

}  // namespace

std::string numpy_script(const Scenario& scenario, const std::string& source) {
  Writer w{scenario, {}};
  w.header(source);
  w.sequences();
  w.weights();
  w.output_projection();
  w.scale();
  w.mask();
  w.compute();
  w.stats();
  w.print_json();
  return w.out.str();
}

}  // namespace attnlab::exporter
