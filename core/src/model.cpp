#include "attnlab/model.h"

#include <cmath>
#include <sstream>

#include "attnlab/limits.h"

namespace attnlab {

namespace {

[[noreturn]] void fail(const std::string& field, const std::string& message) {
  throw ScenarioError(field + ": " + message);
}

/// One dimension of an expected shape, in the rows convention: its size (-1 = any) and its name.
struct Dim {
  long size;
  std::string name;
};

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
    fail(field, "expected " + shape_text(r, c, layout) + ", got " + std::to_string(stored.rows()) + "x" +
                    std::to_string(stored.cols()));
  return m;
}

Vector expect_vector(const std::string& field, const std::optional<Vector>& v, long size, const std::string& name) {
  if (!v) return Vector::Zero(size);
  if (v->size() != size)
    fail(field, "expected " + std::to_string(size) + " numbers (" + name + "), got " + std::to_string(v->size()));
  return *v;
}

void check_finite(const std::string& field, const Matrix& m) {
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j)
      if (!std::isfinite(m(i, j))) {
        std::ostringstream value;
        value << m(i, j);
        fail(field + "[" + std::to_string(i) + "][" + std::to_string(j) + "]",
             "expected a finite number, got " + value.str());
      }
}

void check_finite(const std::string& field, const std::optional<Vector>& v) {
  if (!v) return;
  for (Eigen::Index i = 0; i < v->size(); ++i)
    if (!std::isfinite((*v)(i))) fail(field + "[" + std::to_string(i) + "]", "expected a finite number");
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
  if (s.W_o) check_finite("W_o", *s.W_o);
  check_finite("b_o", s.b_o);
}

void check_sequence(const std::string& field, long tokens, long width) {
  if (tokens < 1) fail(field, "expected at least one token, got 0");
  if (width < 1) fail(field, "expected an embedding width of at least 1, got 0");
  if (tokens > limits::max_tokens)
    fail(field, "expected at most " + std::to_string(limits::max_tokens) + " tokens, got " + std::to_string(tokens));
  if (width > limits::max_width)
    fail(field, "expected an embedding width of at most " + std::to_string(limits::max_width) + ", got " +
                    std::to_string(width));
}

void check_labels(const std::string& field, const std::vector<std::string>& labels, long count, const char* of) {
  if (!labels.empty() && static_cast<long>(labels.size()) != count)
    fail(field, "expected " + std::to_string(count) + " labels (one per token of " + of + "), got " +
                    std::to_string(labels.size()));
}

/// Widths of one projection: what a present W fixes, or the identity's width when W is omitted.
struct Widths {
  long qk = 0, v = 0;
};

/// The projection widths the scenario implies (per head in per-head mode, all heads in full mode).
Widths implied_widths(const Projections& p, Layout layout, long d_x, long d_z) {
  auto width_of = [&](const Matrix& stored) { return layout == Layout::rows ? stored.cols() : stored.rows(); };
  Widths w;
  w.qk = p.W_q ? width_of(*p.W_q) : p.W_k ? width_of(*p.W_k) : d_x;
  w.v = p.W_v ? width_of(*p.W_v) : d_z;
  if (w.qk > limits::max_width * 4L || w.v > limits::max_width * 4L) fail("W_q", "projection too wide");
  return w;
}

/// Rows-convention projection matrix: the given one (shape-checked) or the identity.
Matrix projection(const std::string& field, const std::optional<Matrix>& W, const Dim& in, const Dim& out,
                  Layout layout) {
  if (W) return expect_matrix(field, *W, in, out, layout);
  if (in.size != out.size)
    fail(field, "omitted means identity, which needs " + in.name + " = " + out.name + ", got " +
                    std::to_string(in.size) + " and " + std::to_string(out.size));
  return Matrix::Identity(in.size, out.size);
}

struct Sizes {
  long n_x, d_x, n_z, d_z;
};

std::vector<HeadWeights> resolve_full(const Scenario& s, const Sizes& n, long& d_k, long& d_v) {
  const Projections& p = s.full;
  const Widths w = implied_widths(p, s.layout, n.d_x, n.d_z);
  const Dim dx{n.d_x, "d_x"}, dz{n.d_z, "d_z"}, qk{w.qk, "H*d_k"}, v{w.v, "H*d_v"};
  const Matrix W_q = projection("W_q", p.W_q, dx, qk, s.layout);
  const Matrix W_k = projection("W_k", p.W_k, dz, qk, s.layout);
  const Matrix W_v = projection("W_v", p.W_v, dz, v, s.layout);
  const Vector b_q = expect_vector("b_q", p.b_q, w.qk, "H*d_k");
  const Vector b_k = expect_vector("b_k", p.b_k, w.qk, "H*d_k");
  const Vector b_v = expect_vector("b_v", p.b_v, w.v, "H*d_v");
  const int H = s.num_heads;
  if (H < 1 || H > limits::max_heads)
    fail("num_heads", "expected a whole number from 1 to " + std::to_string(limits::max_heads) + ", got " +
                          std::to_string(H));
  if (w.qk % H != 0)
    fail("num_heads", std::to_string(H) + " heads do not divide H*d_k = " + std::to_string(w.qk) +
                          (p.W_q ? " (the width of W_q)" : " (the width of X, as W_q is omitted)"));
  if (w.v % H != 0)
    fail("num_heads", std::to_string(H) + " heads do not divide H*d_v = " + std::to_string(w.v) +
                          (p.W_v ? " (the width of W_v)" : " (the width of Z, as W_v is omitted)"));
  d_k = w.qk / H;
  d_v = w.v / H;
  std::vector<HeadWeights> heads(H);
  for (int h = 0; h < H; ++h) {
    heads[h].W_q = W_q.middleCols(h * d_k, d_k);
    heads[h].W_k = W_k.middleCols(h * d_k, d_k);
    heads[h].W_v = W_v.middleCols(h * d_v, d_v);
    heads[h].b_q = b_q.segment(h * d_k, d_k);
    heads[h].b_k = b_k.segment(h * d_k, d_k);
    heads[h].b_v = b_v.segment(h * d_v, d_v);
  }
  return heads;
}

std::vector<HeadWeights> resolve_per_head(const Scenario& s, const Sizes& n, long& d_k, long& d_v) {
  const Widths first = implied_widths(s.heads.front(), s.layout, n.d_x, n.d_z);
  d_k = first.qk;
  d_v = first.v;
  const Dim dx{n.d_x, "d_x"}, dz{n.d_z, "d_z"}, qk{d_k, "d_k"}, v{d_v, "d_v"};
  std::vector<HeadWeights> heads;
  for (std::size_t h = 0; h < s.heads.size(); ++h) {
    const std::string prefix = "heads[" + std::to_string(h) + "].";
    const Projections& p = s.heads[h];
    HeadWeights w;
    w.W_q = projection(prefix + "W_q", p.W_q, dx, qk, s.layout);
    w.W_k = projection(prefix + "W_k", p.W_k, dz, qk, s.layout);
    w.W_v = projection(prefix + "W_v", p.W_v, dz, v, s.layout);
    w.b_q = expect_vector(prefix + "b_q", p.b_q, d_k, "d_k");
    w.b_k = expect_vector(prefix + "b_k", p.b_k, d_k, "d_k");
    w.b_v = expect_vector(prefix + "b_v", p.b_v, d_v, "d_v");
    heads.push_back(std::move(w));
  }
  return heads;
}

using BoolMatrix = Eigen::Array<bool, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

BoolMatrix resolve_mask(const MaskSpec& mask, const Sizes& n, Layout layout) {
  BoolMatrix allowed = BoolMatrix::Constant(n.n_x, n.n_z, true);
  if (mask.causal)
    for (long i = 0; i < n.n_x; ++i)
      for (long j = i + 1; j < n.n_z; ++j) allowed(i, j) = false;
  for (std::size_t p = 0; p < mask.padding.size(); ++p) {
    const int j = mask.padding[p];
    if (j < 0 || j >= n.n_z)
      fail("mask.padding[" + std::to_string(p) + "]",
           "expected a context token index from 0 to " + std::to_string(n.n_z - 1) + " (n_z = " +
               std::to_string(n.n_z) + "), got " + std::to_string(j));
    allowed.col(j).setConstant(false);
  }
  if (mask.cells) {
    const std::string field = mask.causal || !mask.padding.empty() ? "mask.cells" : "mask";
    const Matrix cells = expect_matrix(field, *mask.cells, Dim{n.n_x, "n_x"}, Dim{n.n_z, "n_z"}, layout);
    allowed = allowed && (cells.array() != 0.0);
  }
  return allowed;
}

double resolve_scale(const Scale& scale, long d_k) {
  switch (scale.kind) {
    case Scale::Kind::none: return 1.0;
    case Scale::Kind::value:
      if (!(scale.value > 0) || !std::isfinite(scale.value) || scale.value > limits::max_scale)
        fail("scale", "expected a positive number up to 1e12");
      return scale.value;
    default: return 1.0 / std::sqrt(static_cast<double>(d_k));
  }
}

void check_trace_size(const Sizes& n, long H, long d_k, long d_v, long d_out) {
  const double per_head = double(n.n_x) * d_k + double(n.n_z) * (d_k + d_v) + 4.0 * n.n_x * n.n_z + double(n.n_x) * d_v;
  const double cells = H * per_head + double(n.n_x) * (H * d_v + d_out);
  if (cells > limits::max_trace_cells)
    fail("(scenario)", "expected a trace of at most " + std::to_string(long(limits::max_trace_cells / 1e6)) +
                           " million values, this one needs " + std::to_string(long(cells / 1e6)) +
                           " million (fewer tokens, heads or a narrower width)");
}

void resolve_output(const Scenario& s, long concat_width, Model& m) {
  if (!s.W_o) {
    if (s.b_o) fail("b_o", "given without W_o (a bias needs the output projection)");
    return;
  }
  m.has_W_o = true;
  m.W_o = expect_matrix("W_o", *s.W_o, Dim{concat_width, "H*d_v"}, Dim{-1, "d_out"}, s.layout);
  if (m.W_o.cols() > limits::max_width)
    fail("W_o", "expected at most " + std::to_string(limits::max_width) + " output columns, got " +
                    std::to_string(m.W_o.cols()));
  m.b_o = expect_vector("b_o", s.b_o, m.W_o.cols(), "d_out");
}

std::vector<std::string> query_labels(const Scenario& s) {
  if (!s.tokens.empty()) return s.tokens;
  std::vector<std::string> labels;
  for (int i = 0; i < s.n_x(); ++i) labels.push_back("#" + std::to_string(i));
  return labels;
}

}  // namespace

Model resolve(const Scenario& s) {
  const Sizes n{s.n_x(), s.d_x(), s.n_z(), s.d_z()};
  check_sequence("X", n.n_x, n.d_x);
  if (s.Z) check_sequence("Z", n.n_z, n.d_z);
  check_labels("tokens", s.tokens, n.n_x, "X");
  check_labels("context_tokens", s.context_tokens, n.n_z, s.Z ? "Z" : "X, as Z is omitted");
  if (!s.per_head() && (s.num_heads < 1 || s.num_heads > limits::max_heads))
    fail("num_heads", "expected a whole number from 1 to " + std::to_string(limits::max_heads) + ", got " +
                          std::to_string(s.num_heads));
  if (s.per_head() && static_cast<int>(s.heads.size()) > limits::max_heads)
    fail("heads", "expected at most " + std::to_string(limits::max_heads) + " heads");
  Model m;
  long d_k = 0, d_v = 0;
  m.heads = s.per_head() ? resolve_per_head(s, n, d_k, d_v) : resolve_full(s, n, d_k, d_v);
  m.d_k = static_cast<int>(d_k);
  m.d_v = static_cast<int>(d_v);
  const long H = static_cast<long>(m.heads.size());
  resolve_output(s, H * d_v, m);
  check_trace_size(n, H, d_k, d_v, m.has_W_o ? m.W_o.cols() : H * d_v);
  m.allowed = resolve_mask(s.mask, n, s.layout);
  m.scale = resolve_scale(s.scale, d_k);
  check_all_finite(s);
  m.X = to_rows(s.X, s.layout);
  m.Z = s.Z ? to_rows(*s.Z, s.layout) : m.X;
  m.query_labels = query_labels(s);
  return m;
}

void validate(const Scenario& scenario) { (void)resolve(scenario); }

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
  transpose_in_place(s.W_o);
  transpose_in_place(s.mask.cells);
  return s;
}

}  // namespace attnlab
