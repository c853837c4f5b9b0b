#include "attnlab/model.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <sstream>

#include "attnlab/limits.h"
#include "attnlab/numbering.h"
#include "attnlab/positions.h"

namespace attnlab {

namespace {

/// One dimension of an expected shape, in the rows convention: its size (-1 = any) and its name.
struct Dim {
  long size;
  std::string name;
};

std::string number_text(double x) {
  std::ostringstream out;
  out.precision(3);
  out << x;
  return out.str();
}

std::string size_text(long size) { return size < 0 ? "?" : std::to_string(size); }

/// "4x8 (d_x x H*d_k)" in the rows layout, "8x4 (H*d_k x d_x)" in the columns layout.
std::string shape_text(const Dim& r, const Dim& c, Layout layout) {
  const Dim& a = layout == Layout::rows ? r : c;
  const Dim& b = layout == Layout::rows ? c : r;
  return size_text(a.size) + "x" + size_text(b.size) + " (" + a.name + " x " + b.name + ")";
}

/// The rows-convention view of a matrix stored in `layout`.
Matrix to_rows(const Matrix& stored, Layout layout) {
  return layout == Layout::rows ? stored : Matrix(stored.transpose());
}

/// Checks a matrix stored in the file's layout against rows-convention dims; returns it as rows.
Matrix expect_matrix(const std::string& field, const Matrix& stored, const Dim& r, const Dim& c, Layout layout) {
  const Matrix m = to_rows(stored, layout);
  if ((r.size >= 0 && m.rows() != r.size) || (c.size >= 0 && m.cols() != c.size))
    refuse(field, "expected " + shape_text(r, c, layout) + ", got " + std::to_string(stored.rows()) + "x" +
                    std::to_string(stored.cols()));
  return m;
}

Vector expect_vector(const std::string& field, const std::optional<Vector>& v, long size, const std::string& name) {
  if (!v) return Vector::Zero(size);
  if (v->size() != size)
    refuse(field, "expected " + std::to_string(size) + " numbers (" + name + "), got " + std::to_string(v->size()));
  return *v;
}

void check_finite(const std::string& field, const Matrix& m) {
  if (all_finite(m)) return;  // the loop below only finds the first culprit
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j)
      if (!std::isfinite(m(i, j))) {
        std::ostringstream value;
        value << m(i, j);
        refuse(field + "[" + std::to_string(i) + "][" + std::to_string(j) + "]",
             "expected a finite number, got " + value.str());
      }
}

void check_finite(const std::string& field, const std::optional<Vector>& v) {
  if (!v || all_finite(*v)) return;
  for (Eigen::Index i = 0; i < v->size(); ++i)
    if (!std::isfinite((*v)(i))) {
      std::ostringstream value;
      value << (*v)(i);
      refuse(field + "[" + std::to_string(i) + "]", "expected a finite number, got " + value.str());
    }
}

void check_finite(const std::string& prefix, const Projections& p) {
  if (p.W_q) check_finite(prefix + "W_q", *p.W_q);
  if (p.W_k) check_finite(prefix + "W_k", *p.W_k);
  if (p.W_v) check_finite(prefix + "W_v", *p.W_v);
  check_finite(prefix + "b_q", p.b_q);
  check_finite(prefix + "b_k", p.b_k);
  check_finite(prefix + "b_v", p.b_v);
}

void check_all_finite(const Scenario& s) {
  check_finite("X", s.X);
  if (s.Z) check_finite("Z", *s.Z);
  check_finite("", s.full);
  for (std::size_t h = 0; h < s.heads.size(); ++h) check_finite("heads[" + std::to_string(h) + "].", s.heads[h]);
  for (std::size_t g = 0; g < s.kv_heads.size(); ++g) check_finite("kv_heads[" + std::to_string(g) + "].", s.kv_heads[g]);
  if (s.W_o) check_finite("W_o", *s.W_o);
  check_finite("b_o", s.b_o);
}

void check_sequence(const std::string& field, long tokens, long width) {
  if (tokens < 1) refuse(field, "expected at least one token, got 0");
  if (width < 1) refuse(field, "expected an embedding width of at least 1, got 0");
  if (tokens > limits::max_tokens)
    refuse(field, "expected at most " + std::to_string(limits::max_tokens) + " tokens, got " + std::to_string(tokens));
  if (width > limits::max_width)
    refuse(field, "expected an embedding width of at most " + std::to_string(limits::max_width) + ", got " +
                    std::to_string(width));
}

void check_labels(const std::string& field, const std::vector<std::string>& labels, long count, const char* of) {
  if (!labels.empty() && static_cast<long>(labels.size()) != count)
    refuse(field, "expected " + std::to_string(count) + " labels (one per token of " + of + "), got " +
                    std::to_string(labels.size()));
}

/// Widths of one projection: what a present W fixes, or the identity's width when W is omitted.
struct Widths {
  long qk = 0, v = 0;
};

long width_of(const Matrix& stored, Layout layout) { return layout == Layout::rows ? stored.cols() : stored.rows(); }

/// The projection widths the scenario implies (per head in per-head mode, all heads in full mode),
/// checked against the width limit. `prefix` names the fields ("" or "heads[0].").
Widths implied_widths(const Projections& p, Layout layout, long d_x, long d_z, const std::string& prefix,
                      const char* qk_name, const char* v_name) {
  Widths w;
  w.qk = p.W_q ? width_of(*p.W_q, layout) : p.W_k ? width_of(*p.W_k, layout) : d_x;
  w.v = p.W_v ? width_of(*p.W_v, layout) : d_z;
  const std::string qk_field = prefix + (p.W_q ? "W_q" : p.W_k ? "W_k" : "W_q");
  if (w.qk > limits::max_width)
    refuse(qk_field, std::string("expected ") + qk_name + " of at most " + std::to_string(limits::max_width) + ", got " +
                       std::to_string(w.qk));
  if (w.v > limits::max_width)
    refuse(prefix + "W_v", std::string("expected ") + v_name + " of at most " + std::to_string(limits::max_width) +
                             ", got " + std::to_string(w.v));
  return w;
}

/// Checks the shape of a matrix stored in the file's layout against rows-convention dims, or,
/// when it is omitted, that the identity it stands for is square. Allocates nothing.
void check_projection(const std::string& field, const std::optional<Matrix>& W, const Dim& in, const Dim& out,
                      Layout layout) {
  if (W) {
    const long rows = layout == Layout::rows ? W->rows() : W->cols();
    const long cols = layout == Layout::rows ? W->cols() : W->rows();
    if (rows != in.size || cols != out.size)
      refuse(field, "expected " + shape_text(in, out, layout) + ", got " + std::to_string(W->rows()) + "x" +
                      std::to_string(W->cols()));
    return;
  }
  if (in.size != out.size)
    refuse(field, "omitted means identity, which needs " + in.name + " = " + out.name + ", got " +
                    std::to_string(in.size) + " and " + std::to_string(out.size));
}

/// The scenario that owns the matrices a Model shares.
using Owner = std::shared_ptr<const Scenario>;

/// `stored`, a matrix of `owner`, in the rows convention: shared with it in the rows layout, a
/// transposed copy in the columns layout.
SharedMatrix rows_view(const Owner& owner, const Matrix& stored) {
  if (owner->layout == Layout::rows) return SharedMatrix(owner, &stored);
  return std::make_shared<const Matrix>(stored.transpose());
}

/// A projection in the rows convention; the identity (in by in) when omitted.
SharedMatrix rows_or_identity(const Owner& owner, const std::optional<Matrix>& W, long in) {
  return W ? rows_view(owner, *W) : std::make_shared<const Matrix>(Matrix::Identity(in, in));
}

/// The heads' matrices `W` side by side, rows convention: head h's in columns [h width, (h + 1) width).
SharedMatrix side_by_side(const std::vector<Projections>& heads, std::optional<Matrix> Projections::*W, long in,
                          long width, Layout layout) {
  auto all_heads = std::make_shared<Matrix>(in, width * long(heads.size()));
  Matrix& all = *all_heads;
  for (std::size_t h = 0; h < heads.size(); ++h) {
    auto block = all.middleCols(long(h) * width, width);
    const std::optional<Matrix>& w = heads[h].*W;
    if (!w) block.setIdentity();  // omitted: check_projection made sure in == width
    else if (layout == Layout::rows) block = *w;
    else block = w->transpose();
  }
  return all_heads;
}

/// The heads' biases `b` one after the other (zeros for a head without one).
Vector stacked(const std::vector<Projections>& heads, std::optional<Vector> Projections::*b, long width) {
  Vector all = Vector::Zero(width * long(heads.size()));
  for (std::size_t h = 0; h < heads.size(); ++h)
    if (heads[h].*b) all.segment(long(h) * width, width) = *(heads[h].*b);
  return all;
}

struct Sizes {
  long n_x, d_x, n_z, d_z;
};

/// The heads' counts and widths: everything resolve() allocates follows from them, checked first.
struct HeadShapes {
  long H = 1, G = 1, d_k = 0, d_v = 0, d_out = 0;
};

/// "1, 2 or 4": the divisors of H, the key/value head counts it allows.
std::string divisors_text(long H) {
  std::vector<long> d;
  for (long g = 1; g <= H; ++g)
    if (H % g == 0) d.push_back(g);
  std::string out;
  for (std::size_t k = 0; k < d.size(); ++k)
    out += (k == 0 ? "" : k + 1 == d.size() ? " or " : ", ") + std::to_string(d[k]);
  return out;
}

/// G for full matrices: num_kv_heads, or H.
long kv_heads_of(const Scenario& s, long H) {
  if (s.num_kv_heads == 0) return H;
  if (s.num_kv_heads > H || H % s.num_kv_heads != 0)
    refuse("num_kv_heads", "expected a number of key/value heads that divides num_heads = " + std::to_string(H) + " (" +
                             divisors_text(H) + "), got " + std::to_string(s.num_kv_heads));
  return s.num_kv_heads;
}

/// Full matrices with G < H key/value heads: W_q is d_x by H d_k, W_k d_z by G d_k, W_v d_z by G d_v.
void plan_grouped(const Scenario& s, const Sizes& n, long G, HeadShapes& plan) {
  const Projections& p = s.full;
  const long H = s.num_heads;
  // H d_k from W_q, else from W_k (G d_k wide), else the identity's d_x.
  const long qk = p.W_q ? width_of(*p.W_q, s.layout) : p.W_k ? width_of(*p.W_k, s.layout) / G * H : n.d_x;
  const long v = p.W_v ? width_of(*p.W_v, s.layout) : n.d_z;
  if (qk % H != 0)
    refuse("num_heads", std::to_string(H) + " heads do not divide H*d_k = " + std::to_string(qk) +
                          (p.W_q ? " (the width of W_q)" : " (the width of X, as W_q is omitted)"));
  if (v % G != 0)
    refuse("num_kv_heads", std::to_string(G) + " key/value heads do not divide G*d_v = " + std::to_string(v) +
                             (p.W_v ? " (the width of W_v)" : " (the width of Z, as W_v is omitted)"));
  if (qk > limits::max_width || v > limits::max_width)
    refuse(qk > limits::max_width ? "W_q" : "W_v", "expected widths of at most " + std::to_string(limits::max_width));
  plan.H = H;
  plan.G = G;
  plan.d_k = qk / H;
  plan.d_v = v / G;
  const Dim dx{n.d_x, "d_x"}, dz{n.d_z, "d_z"}, q{qk, "H*d_k"}, k{G * plan.d_k, "G*d_k"}, vv{v, "G*d_v"};
  check_projection("W_q", p.W_q, dx, q, s.layout);
  check_projection("W_k", p.W_k, dz, k, s.layout);
  check_projection("W_v", p.W_v, dz, vv, s.layout);
  (void)expect_vector("b_q", p.b_q, qk, "H*d_k");
  (void)expect_vector("b_k", p.b_k, G * plan.d_k, "G*d_k");
  (void)expect_vector("b_v", p.b_v, v, "G*d_v");
}

void plan_full(const Scenario& s, const Sizes& n, HeadShapes& plan) {
  const int H = s.num_heads;
  const long G = kv_heads_of(s, H);
  if (G != H) return plan_grouped(s, n, G, plan);
  const Projections& p = s.full;
  const Widths w = implied_widths(p, s.layout, n.d_x, n.d_z, "", "H*d_k", "H*d_v");
  const Dim dx{n.d_x, "d_x"}, dz{n.d_z, "d_z"}, qk{w.qk, "H*d_k"}, v{w.v, "H*d_v"};
  check_projection("W_q", p.W_q, dx, qk, s.layout);
  check_projection("W_k", p.W_k, dz, qk, s.layout);
  check_projection("W_v", p.W_v, dz, v, s.layout);
  (void)expect_vector("b_q", p.b_q, w.qk, "H*d_k");
  (void)expect_vector("b_k", p.b_k, w.qk, "H*d_k");
  (void)expect_vector("b_v", p.b_v, w.v, "H*d_v");
  if (w.qk % H != 0)
    refuse("num_heads", std::to_string(H) + " heads do not divide H*d_k = " + std::to_string(w.qk) +
                          (p.W_q ? " (the width of W_q)" : " (the width of X, as W_q is omitted)"));
  if (w.v % H != 0)
    refuse("num_heads", std::to_string(H) + " heads do not divide H*d_v = " + std::to_string(w.v) +
                          (p.W_v ? " (the width of W_v)" : " (the width of Z, as W_v is omitted)"));
  plan.H = plan.G = H;
  plan.d_k = w.qk / H;
  plan.d_v = w.v / H;
}

/// Per-head weights: the first head (with its key/value head's W_k and W_v) fixes d_k and d_v.
Widths per_head_widths(const Scenario& s, const Sizes& n) {
  if (s.kv_heads.empty()) return implied_widths(s.heads.front(), s.layout, n.d_x, n.d_z, "heads[0].", "d_k", "d_v");
  Projections first = s.kv_heads.front();
  first.W_q = s.heads.front().W_q;
  const Widths w = implied_widths(first, s.layout, n.d_x, n.d_z, "heads[0].", "d_k", "d_v");
  return w;
}

void check_kv_heads(const Scenario& s, const Sizes& n, const HeadShapes& plan) {
  const Dim dz{n.d_z, "d_z"}, qk{plan.d_k, "d_k"}, v{plan.d_v, "d_v"};
  for (std::size_t g = 0; g < s.kv_heads.size(); ++g) {
    const std::string prefix = "kv_heads[" + std::to_string(g) + "].";
    const Projections& p = s.kv_heads[g];
    check_projection(prefix + "W_k", p.W_k, dz, qk, s.layout);
    check_projection(prefix + "W_v", p.W_v, dz, v, s.layout);
    (void)expect_vector(prefix + "b_k", p.b_k, plan.d_k, "d_k");
    (void)expect_vector(prefix + "b_v", p.b_v, plan.d_v, "d_v");
  }
}

void plan_per_head(const Scenario& s, const Sizes& n, HeadShapes& plan) {
  const Widths first = per_head_widths(s, n);
  plan.H = static_cast<long>(s.heads.size());
  plan.G = s.kv_heads.empty() ? plan.H : static_cast<long>(s.kv_heads.size());
  if (s.kv_heads.empty() && s.num_kv_heads != 0 && s.num_kv_heads != plan.H)
    refuse("num_kv_heads", "expected " + std::to_string(plan.H) + " (per-head weights without kv_heads: every head has "
                         "its own keys and values), got " + std::to_string(s.num_kv_heads));
  if (plan.H % plan.G != 0)
    refuse("kv_heads", "expected a number of key/value heads that divides the " + std::to_string(plan.H) + " heads (" +
                         divisors_text(plan.H) + "), got " + std::to_string(plan.G));
  plan.d_k = first.qk;
  plan.d_v = first.v;
  if (plan.H * plan.d_k > limits::max_width || plan.H * plan.d_v > limits::max_width) {
    const bool qk = plan.H * plan.d_k > limits::max_width;
    refuse("heads", std::string("expected ") + (qk ? "H*d_k" : "H*d_v") + " of at most " +
                      std::to_string(limits::max_width) + ", got " + std::to_string(plan.H) + " heads x " +
                      std::to_string(qk ? plan.d_k : plan.d_v) + " = " + std::to_string(plan.H * (qk ? plan.d_k : plan.d_v)));
  }
  const Dim dx{n.d_x, "d_x"}, dz{n.d_z, "d_z"}, qk{plan.d_k, "d_k"}, v{plan.d_v, "d_v"};
  for (std::size_t h = 0; h < s.heads.size(); ++h) {
    const std::string prefix = "heads[" + std::to_string(h) + "].";
    const Projections& p = s.heads[h];
    check_projection(prefix + "W_q", p.W_q, dx, qk, s.layout);
    (void)expect_vector(prefix + "b_q", p.b_q, plan.d_k, "d_k");
    if (!s.kv_heads.empty()) continue;  // keys and values are the kv_heads' (checked below)
    check_projection(prefix + "W_k", p.W_k, dz, qk, s.layout);
    check_projection(prefix + "W_v", p.W_v, dz, v, s.layout);
    (void)expect_vector(prefix + "b_k", p.b_k, plan.d_k, "d_k");
    (void)expect_vector(prefix + "b_v", p.b_v, plan.d_v, "d_v");
  }
  check_kv_heads(s, n, plan);
}

void build_full(const Owner& owner, const Sizes& n, const HeadShapes& plan, Model& m) {
  const Projections& p = owner->full;
  m.W_q = rows_or_identity(owner, p.W_q, n.d_x);
  m.W_k = rows_or_identity(owner, p.W_k, n.d_z);
  m.W_v = rows_or_identity(owner, p.W_v, n.d_z);
  m.b_q = p.b_q ? *p.b_q : Vector::Zero(plan.H * plan.d_k);
  m.b_k = p.b_k ? *p.b_k : Vector::Zero(plan.G * plan.d_k);
  m.b_v = p.b_v ? *p.b_v : Vector::Zero(plan.G * plan.d_v);
}

void build_per_head(const Scenario& s, const Sizes& n, const HeadShapes& plan, Model& m) {
  const std::vector<Projections>& kv = s.kv_heads.empty() ? s.heads : s.kv_heads;
  m.W_q = side_by_side(s.heads, &Projections::W_q, n.d_x, plan.d_k, s.layout);
  m.W_k = side_by_side(kv, &Projections::W_k, n.d_z, plan.d_k, s.layout);
  m.W_v = side_by_side(kv, &Projections::W_v, n.d_z, plan.d_v, s.layout);
  m.b_q = stacked(s.heads, &Projections::b_q, plan.d_k);
  m.b_k = stacked(kv, &Projections::b_k, plan.d_k);
  m.b_v = stacked(kv, &Projections::b_v, plan.d_v);
}

/// The tokens' positions: `given`, checked against the token count, or 0 .. count - 1.
std::vector<double> resolve_positions(const std::vector<int>& given, long count, const std::string& field,
                                      const char* of) {
  std::vector<double> positions(static_cast<std::size_t>(count));
  if (given.empty()) {
    for (long t = 0; t < count; ++t) positions[std::size_t(t)] = double(t);
    return positions;
  }
  if (long(given.size()) != count)
    refuse(field, "expected " + std::to_string(count) + " positions (one per token of " + of + "), got " +
                    std::to_string(given.size()));
  for (long t = 0; t < count; ++t) positions[std::size_t(t)] = given[std::size_t(t)];
  return positions;
}

/// Query i may attend key j iff every part of the mask allows it. Causal and the window read
/// positions: c_j <= p_i, |p_i - c_j| < window (with the default positions, j <= i and |i - j| < w).
/// A sink key (j < sinks) is allowed iff causal and the padding allow it.
BoolArray resolve_mask(const MaskSpec& mask, const Sizes& n, Layout layout, const std::vector<double>& p,
                       const std::vector<double>& c) {
  BoolArray allowed = BoolArray::Constant(n.n_x, n.n_z, true);
  const auto counting = [](const std::vector<double>& v) {  // 0, 1, 2, ...: the default positions
    for (std::size_t t = 0; t < v.size(); ++t)
      if (v[t] != double(t)) return false;
    return true;
  };
  if (mask.causal && mask.window == 0 && counting(p) && counting(c))  // the triangle, as before positions
    for (long i = 0; i < n.n_x; ++i)
      for (long j = i + 1; j < n.n_z; ++j) allowed(i, j) = false;
  else if (mask.causal || mask.window > 0)
    for (long i = 0; i < n.n_x; ++i)
      for (long j = 0; j < n.n_z; ++j) {
        const double pi = p[std::size_t(i)], cj = c[std::size_t(j)];
        if ((mask.causal && cj > pi) || (mask.window > 0 && std::abs(pi - cj) >= mask.window)) allowed(i, j) = false;
      }
  for (std::size_t p = 0; p < mask.padding.size(); ++p) {
    const int j = mask.padding[p];
    if (j < 0 || j >= n.n_z)
      refuse("mask.padding[" + std::to_string(p) + "]",
           "expected a context token index from 0 to " + std::to_string(n.n_z - 1) + " (n_z = " +
               std::to_string(n.n_z) + "), got " + std::to_string(j));
    allowed.col(j).setConstant(false);
  }
  if (mask.cells) {
    const std::string field = mask.causal || !mask.padding.empty() ? "mask.cells" : "mask";
    const Matrix cells = expect_matrix(field, *mask.cells, Dim{n.n_x, "n_x"}, Dim{n.n_z, "n_z"}, layout);
    allowed = allowed && (cells.array() != 0.0);
  }
  // A sink overrides the window and the cells, never causal or padding.
  for (long j = 0; j < std::min<long>(mask.sinks, n.n_z); ++j) {
    if (std::find(mask.padding.begin(), mask.padding.end(), j) != mask.padding.end()) continue;
    for (long i = 0; i < n.n_x; ++i) allowed(i, j) = !(mask.causal && c[std::size_t(j)] > p[std::size_t(i)]);
  }
  return allowed;
}

double resolve_scale(const Scale& scale, long d_k) {
  switch (scale.kind) {
    case Scale::Kind::none: return 1.0;
    case Scale::Kind::value:
      if (!(scale.value > 0) || !std::isfinite(scale.value) || scale.value > limits::max_scale)
        refuse("scale", "expected a positive number up to 1e12");
      return scale.value;
    default: return 1.0 / std::sqrt(static_cast<double>(d_k));
  }
}

void check_factor(const std::string& field, double value) {
  if (!(value > 0) || !std::isfinite(value) || value > limits::max_scale)
    refuse(field, "expected a positive number up to 1e12, got " + number_text(value));
}

/// RoPE scaling's numbers: every divisor positive and finite, one longrope factor per pair.
void check_rope_scaling(const RopeScaling& s, int dims) {
  if (s.kind == RopeScaling::Kind::none) return;
  if (s.kind == RopeScaling::Kind::linear || s.kind == RopeScaling::Kind::llama3) check_factor("rope.scaling.factor", s.factor);
  if (s.kind == RopeScaling::Kind::llama3) {
    check_factor("rope.scaling.low_freq_factor", s.low_freq_factor);
    check_factor("rope.scaling.high_freq_factor", s.high_freq_factor);
    if (!(s.high_freq_factor > s.low_freq_factor))
      refuse("rope.scaling.high_freq_factor", "expected more than low_freq_factor = " + number_text(s.low_freq_factor) +
                                                  ", got " + number_text(s.high_freq_factor));
  }
  if (s.kind == RopeScaling::Kind::llama3 || s.kind == RopeScaling::Kind::longrope)
    check_factor("rope.scaling.original_positions", s.original_positions);
  if (s.kind != RopeScaling::Kind::longrope) return;
  check_factor("rope.scaling.attention_factor", s.attention_factor);
  for (const auto* list : {&s.short_factors, &s.long_factors}) {
    const std::string field = list == &s.short_factors ? "rope.scaling.short_factors" : "rope.scaling.long_factors";
    if (long(list->size()) != dims / 2)
      refuse(field, "expected R/2 = " + std::to_string(dims / 2) + " factors (one per pair), got " +
                        std::to_string(list->size()));
    for (std::size_t c = 0; c < list->size(); ++c) check_factor(field + "[" + std::to_string(c) + "]", (*list)[c]);
  }
}

/// RoPE with its dims resolved: every coordinate of d_k unless `dims` says fewer.
std::optional<Rope> resolve_rope(const std::optional<Rope>& rope, long d_k) {
  if (!rope) return std::nullopt;
  Rope r = *rope;
  if (r.dims == 0) {
    if (d_k % 2 != 0)
      refuse("rope", "expected an even d_k to rotate in pairs, got d_k = " + std::to_string(d_k) +
                       " (give rope.dims, an even number up to d_k)");
    r.dims = int(d_k);
  } else if (r.dims % 2 != 0 || r.dims > d_k) {
    refuse("rope.dims", "expected an even number from 2 to d_k = " + std::to_string(d_k) + ", got " + std::to_string(r.dims));
  }
  check_rope_scaling(r.scaling, r.dims);
  return r;
}

/// QK-norm's weights, one per coordinate it normalises: d_k each over a head, H d_k and G d_k over
/// the whole width.
void check_qk_norm(const std::optional<QkNorm>& norm, long H, long G, long d_k) {
  if (!norm) return;
  const bool head = norm->scope == QkNorm::Scope::head;
  const auto check = [&](const char* field, const Vector& w, long size, const char* name) {
    if (w.size() > 0) (void)expect_vector(field, w, size, name), check_finite(field, std::optional<Vector>(w));
  };
  check("qk_norm.w_q", norm->w_q, head ? d_k : H * d_k, head ? "d_k" : "H*d_k");
  check("qk_norm.w_k", norm->w_k, head ? d_k : G * d_k, head ? "d_k" : "G*d_k");
  if (!(norm->eps > 0) || !std::isfinite(norm->eps) || norm->eps > 1)
    refuse("qk_norm.eps", "expected a positive number up to 1, got " + number_text(norm->eps));
}

/// QK-norm with omitted weights filled in as a gain of 1 (w = 1, or 0 with plus_one).
std::optional<QkNorm> with_gains(std::optional<QkNorm> norm, long H, long G, long d_k) {
  if (!norm) return norm;
  const bool head = norm->scope == QkNorm::Scope::head;
  const double one = norm->plus_one ? 0.0 : 1.0;
  if (norm->w_q.size() == 0) norm->w_q = Vector::Constant(head ? d_k : H * d_k, one);
  if (norm->w_k.size() == 0) norm->w_k = Vector::Constant(head ? d_k : G * d_k, one);
  return norm;
}

void check_softcap(double softcap) {
  if (softcap != 0 && (!(softcap > 0) || !std::isfinite(softcap) || softcap > limits::max_scale))
    refuse("softcap", "expected a positive number up to 1e12 (or 0: none), got " + number_text(softcap));
}

std::vector<bool> resolve_heads_off(const std::vector<int>& heads_off, long H) {
  std::vector<bool> off(std::size_t(H), false);
  for (std::size_t i = 0; i < heads_off.size(); ++i) {
    const std::string field = "heads_off[" + std::to_string(i) + "]";
    if (heads_off[i] < 0 || heads_off[i] >= H)
      refuse(field, "expected a query head from 0 to " + std::to_string(H - 1) + ", got " + std::to_string(heads_off[i]));
    if (off[std::size_t(heads_off[i])]) refuse(field, "head " + std::to_string(heads_off[i]) + " is listed twice");
    off[std::size_t(heads_off[i])] = true;
  }
  return off;
}

std::vector<double> resolve_slopes(const std::optional<Alibi>& alibi, long H) {
  if (!alibi) return {};
  if (alibi->slopes.empty()) return positional::alibi_slopes(int(H));
  if (long(alibi->slopes.size()) != H)
    refuse("alibi", "expected " + std::to_string(H) + " slopes (one per query head), got " +
                      std::to_string(alibi->slopes.size()));
  return alibi->slopes;
}

/// X + PE in the rows convention; refuses an odd width (sin and cos come in pairs).
SharedMatrix with_encoding(const SharedMatrix& X, const std::vector<double>& positions, const char* field,
                           const char* width) {
  if (X->cols() % 2 != 0)
    refuse("positional_encoding", std::string("expected an even embedding width ") + width +
                                    " for sin/cos pairs, got " + width + " = " + std::to_string(X->cols()) + " (" +
                                    field + ")");
  return std::make_shared<const Matrix>(*X + positional::sinusoidal(positions, X->cols()));
}

/// Values the trace and the resolved weights hold, checked before either is allocated.
void check_trace_size(const Sizes& n, const HeadShapes& p, bool rope, bool qk_norm) {
  const double H = double(p.H), d_k = double(p.d_k), d_v = double(p.d_v);
  const double rotated = ((rope ? 1 : 0) + (qk_norm ? 1 : 0)) * (n.n_x + n.n_z) * d_k;  // Q_rot, K_rot, Q_norm, K_norm
  const double per_head = n.n_x * d_k + n.n_z * (d_k + d_v) + 4.0 * n.n_x * n.n_z + n.n_x * d_v + rotated;
  const double weights = H * (n.d_x * d_k + n.d_z * (d_k + d_v) + 2 * d_k + d_v) + H * d_v * p.d_out + p.d_out;
  const double cells = H * per_head + double(n.n_x) * (H * d_v + p.d_out) + weights +
                       double(n.n_x) * n.d_x + double(n.n_z) * n.d_z + double(n.n_x) * n.n_z;
  if (cells > limits::max_trace_cells)
    refuse("(scenario)", "expected a trace of at most " + std::to_string(long(limits::max_trace_cells / 1e6)) +
                           " million values, this one needs " + std::to_string(long(cells / 1e6)) +
                           " million (fewer tokens, heads or a narrower width)");
}

/// W_o's shape and d_out, without allocating.
long plan_output(const Scenario& s, long concat_width) {
  if (!s.W_o) {
    if (s.b_o) refuse("b_o", "given without W_o (a bias needs the output projection)");
    return concat_width;
  }
  const long rows = s.layout == Layout::rows ? s.W_o->rows() : s.W_o->cols();
  const long d_out = width_of(*s.W_o, s.layout);
  if (rows != concat_width)
    refuse("W_o", "expected " + shape_text(Dim{concat_width, "H*d_v"}, Dim{-1, "d_out"}, s.layout) + ", got " +
                    std::to_string(s.W_o->rows()) + "x" + std::to_string(s.W_o->cols()));
  if (d_out > limits::max_width)
    refuse("W_o", "expected d_out of at most " + std::to_string(limits::max_width) + ", got " + std::to_string(d_out));
  (void)expect_vector("b_o", s.b_o, d_out, "d_out");
  return d_out;
}

/// What the bounds need of the model's inputs, gathered in one pass over each matrix (a row at a
/// time, in cache). `finite` is false when an entry is inf or NaN (or, harmlessly, when the sum of
/// every entry overflows: check_all_finite() then finds nothing and the bounds refuse the values).
struct InputStats {
  double x_max = 0, x_row_sum = 0, z_max = 0, z_row_sum = 0;  ///< largest |entry|, largest row sum of |entries|
  Eigen::RowVectorXd W_q, W_k, W_v;  ///< largest |entry| of each column (a head's block is a run of them)
  double W_o = 0;
  bool finite = true;
};

/// Largest |entry| and largest sum of |row entries| (|(A B)_ij| <= row_sum(A) max|B|); adds the
/// sum of every |entry| to `total` (inf or NaN when an entry is).
void row_stats(const Matrix& m, double& max_abs, double& max_row_sum, double& total) {
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    const double sum = m.row(i).cwiseAbs().sum();
    max_row_sum = std::max(max_row_sum, sum);
    max_abs = std::max(max_abs, m.row(i).cwiseAbs().maxCoeff());
    total += sum;
  }
}

/// Largest |entry| of each column; adds the sum of every |entry| to `total`. A row at a time, in
/// memory order: Eigen's colwise() walked each column down the rows (4 KiB apart at 512 columns),
/// 1.8 of resolve()'s 2.3 ms at 1024 x 512 x 8.
Eigen::RowVectorXd column_max_abs(const Matrix& m, double& total) {
  Eigen::RowVectorXd max = Eigen::RowVectorXd::Zero(m.cols());
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    max = max.cwiseMax(m.row(i).cwiseAbs());
    total += m.row(i).cwiseAbs().sum();
  }
  return max;
}

InputStats input_stats(const Scenario& s, const Model& m) {
  InputStats st;
  double total = 0;
  row_stats(*m.X, st.x_max, st.x_row_sum, total);
  if (s.Z) row_stats(*m.Z, st.z_max, st.z_row_sum, total);
  else st.z_max = st.x_max, st.z_row_sum = st.x_row_sum;  // self-attention: Z is X
  st.W_q = column_max_abs(*m.W_q, total);
  st.W_k = column_max_abs(*m.W_k, total);
  st.W_v = column_max_abs(*m.W_v, total);
  if (m.has_W_o()) st.W_o = column_max_abs(*m.W_o, total).maxCoeff();
  st.finite = std::isfinite(total) && all_finite(m.b_q) && all_finite(m.b_k) && all_finite(m.b_v) && all_finite(m.b_o);
  return st;
}

/// Largest |entry| of a vector or a head's run of columns' maxima.
template <typename V>
double max_abs(const V& v) {
  return v.size() ? v.cwiseAbs().maxCoeff() : 0.0;
}

/// An input that feeds a stage, with its largest magnitude: the field a refusal names.
struct Source {
  std::string field;
  double magnitude;
};

/// "could reach 4e+302", or "could overflow to inf" when even the bound is beyond double range.
std::string reach_text(double bound) {
  return std::isfinite(bound) ? "could reach " + number_text(bound) : "could overflow to inf";
}

[[noreturn]] void fail_overflow(std::initializer_list<Source> sources, const std::string& stage, double bound) {
  const Source* biggest = sources.begin();
  for (const Source& s : sources)
    if (s.magnitude > biggest->magnitude) biggest = &s;
  refuse(biggest->field, "expected values small enough that " + stage + " stay within " +
                           number_text(limits::max_magnitude) + ", got values up to " + number_text(biggest->magnitude) +
                           " (" + stage + " " + reach_text(bound) + ")");
}

/// The largest |p_i - c_j|: ALiBi's bias grows with it.
double max_distance(const Model& m) {
  const auto [p_lo, p_hi] = std::minmax_element(m.query_positions.begin(), m.query_positions.end());
  const auto [c_lo, c_hi] = std::minmax_element(m.key_positions.begin(), m.key_positions.end());
  return std::max(*p_hi - *c_lo, *c_hi - *p_lo);
}

/// |q_c| after QK-norm: q_c / rms(q) is at most sqrt(n) (all of q in one coordinate), times |w|.
double qk_norm_bound(const QkNorm& norm, const Vector& w) {
  const double weight = max_abs(w) + (norm.plus_one ? 1.0 : 0.0);
  return std::sqrt(double(w.size())) * weight;
}

/// The largest position of a query or a key: longrope chooses its factors by it.
double longest_position(const Model& m) {
  const double p = *std::max_element(m.query_positions.begin(), m.query_positions.end());
  return std::max(p, *std::max_element(m.key_positions.begin(), m.key_positions.end()));
}

/// Refuses a model whose computation could overflow, from bounds on the inputs (before computing):
/// |Q| <= rowsum|X| max|W_q| + max|b_q|, |S| <= d_k |Q| |K|, |Y| <= |V| (a convex combination),
/// |out| <= H d_v |Y| max|W_o| + max|b_o|. Far from DBL_MAX, so a trace never holds inf or NaN.
/// The same pass finds inf and NaN: check_all_finite() then names the first one.
void check_values(const Scenario& s, const Model& m) {
  const InputStats st = input_stats(s, m);
  if (!st.finite) check_all_finite(s);
  const double limit = limits::max_magnitude;
  const double x_sum = st.x_row_sum, z_sum = st.z_row_sum, x_max = st.x_max, z_max = st.z_max;
  const std::string z_field = s.Z ? "Z" : "X";
  double v_max = 0;
  for (int h = 0; h < m.num_heads; ++h) {
    const HeadWeights w = m.head(std::size_t(h));
    const std::string prefix = s.per_head() ? "heads[" + std::to_string(h) + "]." : "";
    const std::string kv = !s.kv_heads.empty() ? "kv_heads[" + std::to_string(m.kv_head(std::size_t(h))) + "]." : prefix;
    const std::string head = s.head_count() > 1 ? head_label(int(h)) + "'s " : "";
    const Eigen::Index q0 = Eigen::Index(h) * m.d_k, g = m.kv_head(std::size_t(h)), k0 = g * m.d_k, v0 = g * m.d_v;
    const Source X{"X", x_max}, Z{z_field, z_max}, Wq{prefix + "W_q", max_abs(st.W_q.segment(q0, m.d_k))},
        Wk{kv + "W_k", max_abs(st.W_k.segment(k0, m.d_k))}, Wv{kv + "W_v", max_abs(st.W_v.segment(v0, m.d_v))},
        bq{prefix + "b_q", max_abs(w.b_q)}, bk{kv + "b_k", max_abs(w.b_k)}, bv{kv + "b_v", max_abs(w.b_v)};
    // A rotation turns a pair (x, y) into (x cos - y sin, ...): each coordinate at most |x| + |y|.
    const double turn = m.rope ? 2.0 * std::max(1.0, positional::rope_attention_factor(*m.rope)) : 1.0;
    double q = x_sum * Wq.magnitude + bq.magnitude, k = z_sum * Wk.magnitude + bk.magnitude;
    if (!(q <= limit)) fail_overflow({X, Wq, bq}, head + "queries Q", q);
    if (!(k <= limit)) fail_overflow({Z, Wk, bk}, head + "keys K", k);
    if (m.qk_norm) q = qk_norm_bound(*m.qk_norm, m.qk_norm->w_q), k = qk_norm_bound(*m.qk_norm, m.qk_norm->w_k);
    q *= turn, k *= turn;
    const double v = z_sum * Wv.magnitude + bv.magnitude;
    if (!(q <= limit)) fail_overflow({X, Wq, bq}, head + "queries Q", q);
    if (!(k <= limit)) fail_overflow({Z, Wk, bk}, head + "keys K", k);
    if (!(v <= limit)) fail_overflow({Z, Wv, bv}, head + "values V", v);
    const double scores = double(m.d_k) * q * k;
    if (!(scores <= limit)) fail_overflow({X, Wq, bq, Z, Wk, bk}, head + "scores (Q K^T)", scores);
    if (!(scores * m.scale <= limit))
      refuse("scale", "expected a scale that keeps " + head + "scaled scores within " + number_text(limit) + ", got " +
                        number_text(m.scale) + " (scores up to " + number_text(scores) + " scaled " + reach_text(scores * m.scale) + ")");
    if (!m.slopes.empty()) {
      const double bias = m.slopes[std::size_t(h)] * max_distance(m);
      if (!(scores * m.scale + bias <= limit))
        refuse("alibi", "expected slopes that keep " + head + "biased scores within " + number_text(limit) + ", got " +
                          number_text(m.slopes[std::size_t(h)]) + " (at distances up to " + number_text(max_distance(m)) + ")");
    }
    v_max = std::max(v_max, v);
  }
  if (m.has_W_o()) {
    const Source Wo{"W_o", st.W_o}, bo{"b_o", max_abs(m.b_o)};
    const double out = double(m.W_o->rows()) * v_max * Wo.magnitude + bo.magnitude;
    if (!(out <= limit)) fail_overflow({Wo, bo}, "the outputs", out);
  }
}

}  // namespace

BoolArray causal_mask(long n, int window) {
  BoolArray allowed(n, n);
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j) allowed(i, j) = j <= i && (window <= 0 || i - j < window);
  return allowed;
}

Model resolve(std::shared_ptr<const Scenario> owner) {
  const Scenario& s = *owner;
  const Sizes n{s.n_x(), s.d_x(), s.n_z(), s.d_z()};
  check_sequence("X", n.n_x, n.d_x);
  if (s.Z) check_sequence("Z", n.n_z, n.d_z);
  check_labels("tokens", s.tokens, n.n_x, "X");
  check_labels("context_tokens", s.context_tokens, n.n_z, s.Z ? "Z" : "X, as Z is omitted");
  if (!s.per_head() && (s.num_heads < 1 || s.num_heads > limits::max_heads))
    refuse("num_heads", "expected a whole number from 1 to " + std::to_string(limits::max_heads) + ", got " +
                          std::to_string(s.num_heads));
  if (s.per_head() && static_cast<int>(s.heads.size()) > limits::max_heads)
    refuse("heads", "expected at most " + std::to_string(limits::max_heads) + " heads, got " +
                      std::to_string(s.heads.size()));
  // Shapes and sizes first, then allocation: a small file cannot ask for gigabytes.
  HeadShapes plan;
  if (s.per_head()) plan_per_head(s, n, plan);
  else plan_full(s, n, plan);
  plan.d_out = plan_output(s, plan.H * plan.d_v);
  check_trace_size(n, plan, s.rope.has_value(), s.qk_norm.has_value());
  if (!s.Z && !s.context_positions.empty())
    refuse("context_positions", "given in self-attention: the keys are X's own tokens, at its positions (give Z for "
                              "cross-attention)");
  std::vector<double> p = resolve_positions(s.positions, n.n_x, "positions", "X");
  std::vector<double> c = s.Z ? resolve_positions(s.context_positions, n.n_z, "context_positions", "Z") : p;
  BoolArray allowed = resolve_mask(s.mask, n, s.layout, p, c);
  const double scale = resolve_scale(s.scale, plan.d_k);
  std::optional<Rope> rope = resolve_rope(s.rope, plan.d_k);
  check_qk_norm(s.qk_norm, plan.H, plan.G, plan.d_k);
  check_softcap(s.softcap);
  std::vector<double> slopes = resolve_slopes(s.alibi, plan.H);
  std::vector<bool> off = resolve_heads_off(s.heads_off, plan.H);

  Model m;
  if (s.per_head()) build_per_head(s, n, plan, m);
  else build_full(owner, n, plan, m);
  m.num_heads = static_cast<int>(plan.H);
  m.num_kv_heads = static_cast<int>(plan.G);
  m.d_k = static_cast<int>(plan.d_k);
  m.d_v = static_cast<int>(plan.d_v);
  if (s.W_o) {
    m.W_o = rows_view(owner, *s.W_o);
    m.b_o = s.b_o ? *s.b_o : Vector::Zero(plan.d_out);
  }
  m.allowed = std::move(allowed);
  m.scale = scale;
  m.X = rows_view(owner, s.X);
  if (s.Z) m.Z = rows_view(owner, *s.Z);
  m.positional_encoding = s.positional_encoding == PositionalEncoding::sinusoidal;
  if (m.positional_encoding) {
    m.X = with_encoding(m.X, p, "X", "d_x");
    if (s.Z) m.Z = with_encoding(m.Z, c, "Z", "d_z");
  }
  m.query_positions = std::move(p);
  m.key_positions = std::move(c);
  m.rope = rope;
  if (rope) m.rope_frequencies = positional::rope_frequencies(*rope, rope->dims, longest_position(m));
  m.qk_norm = with_gains(s.qk_norm, plan.H, plan.G, plan.d_k);
  m.softcap = s.softcap;
  m.slopes = std::move(slopes);
  m.head_off = std::move(off);
  m.tokens = std::shared_ptr<const std::vector<std::string>>(owner, &s.tokens);
  check_values(s, m);
  return m;
}

Matrix qk_normalised(const Model& model, const Matrix& rows, bool query, Eigen::Index h, const Matrix& in) {
  const QkNorm& norm = *model.qk_norm;
  const Vector gain = qk_norm_gain(norm, query, h, model.d_k);
  Matrix whole;
  if (norm.scope == QkNorm::Scope::width)
    whole = (in * (query ? *model.W_q : *model.W_k)).rowwise() + (query ? model.b_q : model.b_k).transpose();
  Matrix out(rows.rows(), rows.cols());
  for (Eigen::Index t = 0; t < rows.rows(); ++t) {
    const double inverse = inverse_rms(whole.size() ? Eigen::RowVectorXd(whole.row(t)) : Eigen::RowVectorXd(rows.row(t)), norm.eps);
    out.row(t) = (rows.row(t) * inverse).cwiseProduct(gain.transpose());
  }
  return out;
}

Model resolve(const Scenario& scenario) { return resolve(std::make_shared<const Scenario>(scenario)); }

void validate(const Scenario& scenario) {
  // The Model is discarded here, before `scenario` can go: it may share it without owning it.
  (void)resolve(std::shared_ptr<const Scenario>(&scenario, [](const Scenario*) {}));
}

namespace {
void transpose_in_place(std::optional<Matrix>& m) {
  if (m) *m = Matrix(m->transpose());
}
void transpose_in_place(Projections& p) {
  transpose_in_place(p.W_q);
  transpose_in_place(p.W_k);
  transpose_in_place(p.W_v);
}
}  // namespace

Scenario with_layout(const Scenario& scenario, Layout layout) {
  Scenario s = scenario;
  if (s.layout == layout) return s;
  s.layout = layout;
  s.X = Matrix(s.X.transpose());
  transpose_in_place(s.Z);
  transpose_in_place(s.full);
  for (Projections& p : s.heads) transpose_in_place(p);
  for (Projections& p : s.kv_heads) transpose_in_place(p);
  transpose_in_place(s.W_o);
  transpose_in_place(s.mask.cells);
  return s;
}

}  // namespace attnlab
