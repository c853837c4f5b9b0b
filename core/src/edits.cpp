#include "attnlab/edits.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <sstream>

#include "attnlab/limits.h"
#include "attnlab/matrix_text.h"
#include "attnlab/model.h"
#include "attnlab/number_format.h"
#include "attnlab/stage.h"

namespace attnlab {
namespace {

// ---- Tokens ---------------------------------------------------------------------------------------

/// Picks entries along one axis: new index i takes old order[i], or `fill` where it is -1.
Matrix take_along(const Matrix& m, bool along_rows, const std::vector<int>& order, double fill) {
  const long n = static_cast<long>(order.size());
  Matrix out = along_rows ? Matrix::Constant(n, m.cols(), fill) : Matrix::Constant(m.rows(), n, fill);
  for (long i = 0; i < n; ++i) {
    const int k = order[static_cast<std::size_t>(i)];
    if (k < 0) continue;
    if (along_rows)
      out.row(i) = m.row(k);
    else
      out.col(i) = m.col(k);
  }
  return out;
}

std::vector<std::string> take_labels(const std::vector<std::string>& labels,
                                     const std::vector<int>& order, const std::string& new_label) {
  if (labels.empty()) return labels;  // unlabelled stays unlabelled
  std::vector<std::string> out;
  for (int k : order) out.push_back(k < 0 ? new_label : labels[static_cast<std::size_t>(k)]);
  return out;
}

// Padding names context tokens by index: each follows its token; removed tokens drop out.
std::vector<int> remap_padding(const std::vector<int>& padding, const std::vector<int>& order) {
  std::vector<int> out;
  for (int p : padding)
    for (std::size_t i = 0; i < order.size(); ++i)
      if (order[i] == p) out.push_back(static_cast<int>(i));
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int> identity_order(int n) {
  std::vector<int> order(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
  return order;
}

int token_count(const Scenario& s, Sequence seq) { return seq == Sequence::X ? s.n_x() : s.n_z(); }

const char* sequence_name(Sequence seq) { return seq == Sequence::X ? "X" : "Z"; }

// ---- Widths ---------------------------------------------------------------------------------------

// Matrices are resized in the rows convention (W is inputs x outputs) and stored back as they were.
Matrix to_rows(const Matrix& stored, Layout l) {
  return l == Layout::rows ? stored : Matrix(stored.transpose());
}
Matrix from_rows(const Matrix& rows, Layout l) {
  return l == Layout::rows ? rows : Matrix(rows.transpose());
}

// Distinct random streams per matrix, so grown W_q and W_k do not get the same numbers.
enum Stream : std::uint64_t {
  stream_x = 101, stream_z, stream_w_q, stream_w_k, stream_w_v,
  stream_b_q, stream_b_k, stream_b_v, stream_w_o, stream_b_o
};

Matrix blank(long rows, long cols, const Fill& fill, std::uint64_t stream) {
  if (fill.random) return random_matrix(int(rows), int(cols), fill.spec, stream);
  return Matrix::Zero(rows, cols);
}

/// rows x cols, keeping the top-left overlap of m.
Matrix resized(const Matrix& m, long rows, long cols, const Fill& fill, std::uint64_t stream) {
  Matrix out = blank(rows, cols, fill, stream);
  const long r = std::min(rows, long(m.rows())), c = std::min(cols, long(m.cols()));
  out.topLeftCorner(r, c) = m.topLeftCorner(r, c);
  return out;
}

/// Columns in H bands of old_w become H bands of new_w; each band keeps its own leading columns.
Matrix resized_bands(const Matrix& m, int H, long old_w, long new_w, const Fill& fill,
                     std::uint64_t stream) {
  Matrix out = blank(m.rows(), H * new_w, fill, stream);
  const long keep = std::min(old_w, new_w);
  for (int h = 0; h < H; ++h) out.middleCols(h * new_w, keep) = m.middleCols(h * old_w, keep);
  return out;
}

Matrix rows_or_identity(const std::optional<Matrix>& W, long in, Layout l) {
  return W ? to_rows(*W, l) : Matrix(Matrix::Identity(in, in));
}

// The input side (rows, in the rows convention) of a projection grows or shrinks.
void resize_input(std::optional<Matrix>& W, long old_in, long new_in, Layout l, const Fill& fill,
                  std::uint64_t stream) {
  const Matrix r = rows_or_identity(W, old_in, l);
  W = from_rows(resized(r, new_in, r.cols(), fill, stream), l);
}

void resize_output(std::optional<Matrix>& W, long in, int H, long old_w, long new_w, Layout l,
                   const Fill& fill, std::uint64_t stream) {
  const Matrix r = rows_or_identity(W, in, l);
  W = from_rows(resized_bands(r, H, old_w, new_w, fill, stream), l);
}

void resize_bias(std::optional<Vector>& b, int H, long old_w, long new_w, const Fill& fill,
                 std::uint64_t stream) {
  if (!b) return;
  const Matrix row = resized_bands(Matrix(b->transpose()), H, old_w, new_w, fill, stream);
  b = Vector(row.row(0).transpose());
}

void check_size(const char* name, int value) {
  if (value < 1)
    throw ScenarioError(std::string(name) + ": expected at least 1, got " + std::to_string(value));
}

long stored_width(const Matrix& W, const Scenario& s) {
  return s.layout == Layout::rows ? W.cols() : W.rows();
}

// Projection widths as the core resolves them: explicit W's width, or the identity's.
long qk_width(const Projections& p, const Scenario& s) {
  return p.W_q ? stored_width(*p.W_q, s) : p.W_k ? stored_width(*p.W_k, s) : s.d_x();
}
long v_width(const Projections& p, const Scenario& s) {
  return p.W_v ? stored_width(*p.W_v, s) : s.d_z();
}

/// A projection set and how many bands its query and key/value matrices hold: the full matrices
/// (H and G bands), a head's own (one; only W_q and b_q when the scenario has kv_heads) or a
/// key/value head's (W_k, W_v and their biases, one band).
struct Part {
  Projections* p;
  int query_bands, kv_bands;  ///< 0: the part has no such matrices
};

std::vector<Part> all_parts(Scenario& s) {
  std::vector<Part> out;
  if (!s.per_head()) return {{&s.full, s.num_heads, s.kv_head_count()}};
  const int own_kv = s.kv_heads.empty() ? 1 : 0;
  for (Projections& p : s.heads) out.push_back({&p, 1, own_kv});
  for (Projections& p : s.kv_heads) out.push_back({&p, 0, 1});
  return out;
}

/// One entry per new token: its old position, or one past the largest for a new token.
std::vector<int> take_positions(const std::vector<int>& positions, const std::vector<int>& order) {
  if (positions.empty()) return positions;  // the defaults 0 .. n - 1 renumber themselves
  const int next = std::min(*std::max_element(positions.begin(), positions.end()) + 1, limits::max_position);
  std::vector<int> out;
  for (int k : order) out.push_back(k < 0 ? next : positions[static_cast<std::size_t>(k)]);
  return out;
}

}  // namespace

void reorder_tokens(Scenario& s, Sequence seq, const std::vector<int>& order,
                    const std::string& new_label) {
  if (order.empty())
    throw ScenarioError(std::string(sequence_name(seq)) +
                        ": cannot remove the last token (attention needs at least one)");
  const bool rows = s.layout == Layout::rows;  // tokens are rows of X (or its columns)
  const bool self = !s.cross_attention();
  if (seq == Sequence::X) {
    s.X = take_along(s.X, rows, order, 0.0);
    s.tokens = take_labels(s.tokens, order, new_label);
    s.positions = take_positions(s.positions, order);
    if (self) s.context_tokens = take_labels(s.context_tokens, order, new_label);
  } else {
    if (!s.Z) return;
    s.Z = take_along(*s.Z, rows, order, 0.0);
    s.context_tokens = take_labels(s.context_tokens, order, new_label);
    s.context_positions = take_positions(s.context_positions, order);
  }
  // The mask's query axis is X's tokens; its key axis is Z's (X's in self-attention).
  const bool queries = seq == Sequence::X, keys = seq == Sequence::Z || self;
  if (s.mask.cells) {
    if (queries) s.mask.cells = take_along(*s.mask.cells, rows, order, 1.0);
    if (keys) s.mask.cells = take_along(*s.mask.cells, !rows, order, 1.0);
  }
  if (keys) s.mask.padding = remap_padding(s.mask.padding, order);
}

void insert_token(Scenario& s, Sequence seq, int at) {
  std::vector<int> order = identity_order(token_count(s, seq));
  at = std::clamp(at, 0, static_cast<int>(order.size()));
  order.insert(order.begin() + at, -1);
  const auto& labels = seq == Sequence::X ? s.tokens : s.context_tokens;
  std::string label = "new";
  for (int k = 2; std::find(labels.begin(), labels.end(), label) != labels.end(); ++k)
    label = "new" + std::to_string(k);
  reorder_tokens(s, seq, order, label);
}

void remove_token(Scenario& s, Sequence seq, int index) {
  std::vector<int> order = identity_order(token_count(s, seq));
  if (index < 0 || index >= static_cast<int>(order.size())) return;
  order.erase(order.begin() + index);
  reorder_tokens(s, seq, order);
}

void move_token(Scenario& s, Sequence seq, int index, int delta) {
  std::vector<int> order = identity_order(token_count(s, seq));
  const int to = index + delta;
  const int n = static_cast<int>(order.size());
  if (index < 0 || to < 0 || index >= n || to >= n) return;
  std::swap(order[static_cast<std::size_t>(index)], order[static_cast<std::size_t>(to)]);
  reorder_tokens(s, seq, order);
}

void set_token_label(Scenario& s, Sequence seq, int index, const std::string& label) {
  const int n = token_count(s, seq);
  if (index < 0 || index >= n || (seq == Sequence::Z && !s.Z))
    throw ScenarioError(std::string(sequence_name(seq)) + ": no token " + std::to_string(index) + " (" +
                        std::to_string(s.Z || seq == Sequence::X ? n : 0) + " tokens)");
  std::vector<std::string>& labels = seq == Sequence::X ? s.tokens : s.context_tokens;
  if (labels.empty())  // the first label given: the others keep the names the views show
    for (int k = 0; k < n; ++k) labels.push_back("#" + std::to_string(k));
  labels[static_cast<std::size_t>(index)] = label;
  // Self-attention keys are X's tokens: their labels follow when given separately.
  if (seq == Sequence::X && !s.cross_attention() && !s.context_tokens.empty())
    s.context_tokens[static_cast<std::size_t>(index)] = label;
}

void set_token_embedding(Scenario& s, Sequence seq, int index, const Vector& value) {
  const int n = token_count(s, seq);
  if (index < 0 || index >= n || (seq == Sequence::Z && !s.Z))
    throw ScenarioError(std::string(sequence_name(seq)) + ": no token " + std::to_string(index) +
                        " (" + std::to_string(s.Z || seq == Sequence::X ? n : 0) + " tokens)");
  Matrix& m = seq == Sequence::X ? s.X : *s.Z;
  const bool rows = s.layout == Layout::rows;
  const Eigen::Index width = rows ? m.cols() : m.rows();
  if (value.size() != width)
    throw ScenarioError(std::string(sequence_name(seq)) + ": token " + std::to_string(index) +
                        " is " + std::to_string(width) + " wide, got " +
                        std::to_string(value.size()) + " numbers");
  if (rows)
    m.row(index) = value.transpose();
  else
    m.col(index) = value;
}

void set_cross_attention(Scenario& s, bool cross) {
  if (cross == s.cross_attention()) return;
  if (cross) {
    s.Z = s.X;
    if (s.context_tokens.empty()) s.context_tokens = s.tokens;
    s.context_positions = s.positions;
    return;
  }
  if (s.d_z() != s.d_x())
    throw ScenarioError("Z: is " + std::to_string(s.d_z()) + " wide and X " + std::to_string(s.d_x()) +
                        "; make them equal (Sizes tab) before switching to self-attention");
  // Keys become X's tokens: keep the explicit mask's overlap, allow new keys, drop gone padding.
  std::vector<int> keys(static_cast<std::size_t>(s.n_x()), -1);
  for (int i = 0; i < s.n_x() && i < s.n_z(); ++i) keys[static_cast<std::size_t>(i)] = i;
  const bool rows = s.layout == Layout::rows;
  if (s.mask.cells) s.mask.cells = take_along(*s.mask.cells, !rows, keys, 1.0);
  s.mask.padding = remap_padding(s.mask.padding, keys);
  s.Z.reset();
  s.context_tokens.clear();
  s.context_positions.clear();
}

void set_model_width(Scenario& s, int d_x, const Fill& fill) {
  check_size("d_model", d_x);
  const long old = s.d_x();
  if (d_x == old) return;
  const Layout l = s.layout;
  const bool self = !s.cross_attention();
  long d_out = -1;
  if (s.W_o) d_out = l == Layout::rows ? s.W_o->cols() : s.W_o->rows();
  for (const Part& part : all_parts(s)) {
    Projections* p = part.p;
    if (part.query_bands) resize_input(p->W_q, old, d_x, l, fill, stream_w_q);
    if (self && part.kv_bands) {
      resize_input(p->W_k, old, d_x, l, fill, stream_w_k);
      resize_input(p->W_v, old, d_x, l, fill, stream_w_v);
    }
  }
  s.X = from_rows(resized(to_rows(s.X, l), s.n_x(), d_x, fill, stream_x), l);
  if (s.W_o && d_out == old) {  // the output projection maps back to d_model: it follows
    const Matrix r = to_rows(*s.W_o, l);
    s.W_o = from_rows(resized(r, r.rows(), d_x, fill, stream_w_o), l);
    resize_bias(s.b_o, 1, old, d_x, fill, stream_b_o);
  }
}

void set_context_width(Scenario& s, int d_z, const Fill& fill) {
  check_size("d_z", d_z);
  if (!s.Z || d_z == s.d_z()) return;
  const long old = s.d_z();
  const Layout l = s.layout;
  for (const Part& part : all_parts(s)) {
    if (!part.kv_bands) continue;
    resize_input(part.p->W_k, old, d_z, l, fill, stream_w_k);
    resize_input(part.p->W_v, old, d_z, l, fill, stream_w_v);
  }
  s.Z = from_rows(resized(to_rows(*s.Z, l), s.n_z(), d_z, fill, stream_z), l);
}

void set_key_width(Scenario& s, int d_k, const Fill& fill) {
  check_size("d_k", d_k);
  const Layout l = s.layout;
  for (const Part& part : all_parts(s)) {
    Projections* p = part.p;
    const int H = part.query_bands, G = part.kv_bands;
    // The current d_k: from W_q's bands, else W_k's, else the identity's (a key/value head's is d_z wide).
    const long old = H && p->W_q ? stored_width(*p->W_q, s) / H
                     : G && p->W_k ? stored_width(*p->W_k, s) / G
                     : H ? s.d_x() / H : s.d_z() / G;
    if (old == d_k) continue;
    if (H) {
      resize_output(p->W_q, s.d_x(), H, old, d_k, l, fill, stream_w_q);
      resize_bias(p->b_q, H, old, d_k, fill, stream_b_q);
    }
    if (G) {
      resize_output(p->W_k, s.d_z(), G, old, d_k, l, fill, stream_w_k);
      resize_bias(p->b_k, G, old, d_k, fill, stream_b_k);
    }
  }
}

void set_value_width(Scenario& s, int d_v, const Fill& fill) {
  check_size("d_v", d_v);
  const Layout l = s.layout;
  long old = 0;
  for (const Part& part : all_parts(s)) {
    const int G = part.kv_bands;
    if (!G) continue;
    old = v_width(*part.p, s) / G;
    if (old == d_v) continue;
    resize_output(part.p->W_v, s.d_z(), G, old, d_v, l, fill, stream_w_v);
    resize_bias(part.p->b_v, G, old, d_v, fill, stream_b_v);
  }
  if (s.W_o && old != d_v) {
    // W_o's inputs are the heads' concatenated outputs: H bands of d_v rows.
    const Matrix r = to_rows(*s.W_o, l);
    const Matrix t = resized_bands(Matrix(r.transpose()), s.head_count(), old, d_v, fill, stream_w_o);
    s.W_o = from_rows(Matrix(t.transpose()), l);
  }
}

void randomize_embeddings(Scenario& s, const RandomSpec& spec) {
  s.X = random_matrix(int(s.X.rows()), int(s.X.cols()), spec, stream_x);
  if (s.Z) s.Z = random_matrix(int(s.Z->rows()), int(s.Z->cols()), spec, stream_z);
}

void set_head_count(Scenario& s, int heads) {
  if (s.per_head())
    throw ScenarioError("num_heads: each head has its own weights (heads[0.." +
                        std::to_string(s.heads.size() - 1) + "]); the count is theirs");
  if (heads < 1 || heads > limits::max_heads)
    throw ScenarioError("num_heads: expected a whole number from 1 to " +
                        std::to_string(limits::max_heads) + ", got " + std::to_string(heads));
  s.num_heads = heads;
  // Heads that no longer exist cannot stay off.
  s.heads_off.erase(std::remove_if(s.heads_off.begin(), s.heads_off.end(), [heads](int h) { return h >= heads; }),
                    s.heads_off.end());
}

void set_head_off(Scenario& s, int head, bool off) {
  const int H = s.head_count();
  if (head < 0 || head >= H)
    throw ScenarioError("heads_off: no head " + std::to_string(head) + " (" + std::to_string(H) + " heads, 0 to " +
                        std::to_string(H - 1) + ")");
  auto& list = s.heads_off;
  list.erase(std::remove(list.begin(), list.end(), head), list.end());
  if (off) list.insert(std::upper_bound(list.begin(), list.end(), head), head);
}

std::vector<int> valid_head_counts(const Scenario& s) {
  std::vector<int> counts;
  if (s.per_head()) return counts;
  const long qk = qk_width(s.full, s), v = v_width(s.full, s);
  const int G = s.num_kv_heads;
  for (int h = 1; h <= limits::max_heads && h <= std::max(qk, v); ++h) {
    // Grouped: W_k and W_v keep their G bands; H is a multiple of G and d_k = H d_k / H.
    // Grouped: W_k stays G d_k wide, so d_k = H d_k / h must give G d_k = its width.
    const long kv = s.full.W_k ? stored_width(*s.full.W_k, s) : s.d_z();
    const bool fits = G > 0 ? h % G == 0 && qk % h == 0 && qk / h * G == kv : qk % h == 0 && v % h == 0;
    if (fits) counts.push_back(h);
  }
  return counts;
}

std::vector<int> valid_kv_head_counts(const Scenario& s) {
  std::vector<int> counts;
  if (s.per_head()) return counts;
  for (int g = 1; g <= s.num_heads; ++g)
    if (s.num_heads % g == 0) counts.push_back(g);
  return counts;
}

namespace {
/// Bands of `width` columns (rows convention): new band g is old band pick(g).
Matrix pick_bands(const Matrix& m, long width, const std::vector<int>& pick) {
  Matrix out(m.rows(), long(pick.size()) * width);
  for (std::size_t g = 0; g < pick.size(); ++g) out.middleCols(long(g) * width, width) = m.middleCols(pick[g] * width, width);
  return out;
}
void pick_output(std::optional<Matrix>& W, long in, long width, const std::vector<int>& pick, Layout l) {
  const Matrix r = rows_or_identity(W, in, l);
  W = from_rows(pick_bands(r, width, pick), l);
}
void pick_bias(std::optional<Vector>& b, long width, const std::vector<int>& pick) {
  if (!b) return;
  const Matrix row = pick_bands(Matrix(b->transpose()), width, pick);
  b = Vector(row.row(0).transpose());
}
}  // namespace

void set_kv_head_count(Scenario& s, int kv_heads) {
  if (s.per_head())
    throw ScenarioError("num_kv_heads: per-head weights give their key/value heads in kv_heads; the count is theirs");
  const int H = s.num_heads, old = s.kv_head_count();
  if (kv_heads < 1 || kv_heads > H || H % kv_heads != 0)
    throw ScenarioError("num_kv_heads: expected a divisor of num_heads = " + std::to_string(H) + ", got " +
                        std::to_string(kv_heads));
  if (kv_heads == old) return;
  const long d_k = qk_width(s.full, s) / H;
  const long d_v = v_width(s.full, s) / old;
  std::vector<int> pick;  // new key/value head g: the one its first query head, g H / G, read
  for (int g = 0; g < kv_heads; ++g) pick.push_back(g * (H / kv_heads) / (H / old));
  pick_output(s.full.W_k, s.d_z(), d_k, pick, s.layout);
  pick_output(s.full.W_v, s.d_z(), d_v, pick, s.layout);
  pick_bias(s.full.b_k, d_k, pick);
  pick_bias(s.full.b_v, d_v, pick);
  s.num_kv_heads = kv_heads == H ? 0 : kv_heads;
}

int parse_head_count(const std::string& text) {
  const char* begin = text.c_str();
  char* end = nullptr;
  const long typed = std::strtol(begin, &end, 10);
  if (end == begin || *end != '\0' || typed < 0 || typed > 100000)
    throw ScenarioError("num_heads: expected a whole number, got \"" + text + "\"");
  return int(typed);
}

void set_typed_head_count(Scenario& s, const std::string& text) { set_head_count(s, parse_head_count(text)); }

// ---- Layout and scale -----------------------------------------------------------------------------

void set_layout(Scenario& s, Layout l) {
  if (s.layout != l) s = with_layout(s, l);
}

void set_scale_kind(Scenario& s, Scale::Kind kind) {
  if (kind == s.scale.kind) return;
  s.scale.kind = kind;
  if (kind == Scale::Kind::value) s.scale.value = 1.0;
}

void set_scale(Scenario& s, double scale) {
  if (!(scale > 0) || !std::isfinite(scale) || scale > limits::max_scale)
    throw ScenarioError("scale: expected a positive number up to 1e12, got " + format_trimmed(scale, 6));
  s.scale = Scale{Scale::Kind::value, scale};
}

void set_temperature(Scenario& s, double temperature) {
  if (!(temperature > 0) || !std::isfinite(temperature))
    throw ScenarioError("scale: expected a positive temperature T, got " + format_trimmed(temperature, 6));
  set_scale(s, 1.0 / temperature);
}

// ---- Mask -----------------------------------------------------------------------------------------

namespace {

// The explicit cells as stored, or all ones (every query may attend every key).
Matrix cells_or_ones(const Scenario& s) {
  if (s.mask.cells) return *s.mask.cells;
  return s.layout == Layout::columns ? Matrix::Ones(s.n_z(), s.n_x()) : Matrix::Ones(s.n_x(), s.n_z());
}

bool padded_key(const Scenario& s, int j) {
  return std::find(s.mask.padding.begin(), s.mask.padding.end(), j) != s.mask.padding.end();
}

// What causal, the window and padding say of query i and key j (resolve()'s rule).
bool masked_by_rules(const Scenario& s, int i, int j) {
  const int p = s.position(i), c = s.context_position(j);
  return (s.mask.causal && c > p) || (s.mask.window > 0 && std::abs(p - c) >= s.mask.window) || padded_key(s, j);
}

// The cell the baked mask gets: a sink key is allowed iff causal and the padding allow it, whatever
// the window or its own cell say; any other key as the cell and the rules say.
double baked_cell(const Scenario& s, int i, int j, double cell) {
  if (s.mask.sink(j) && !padded_key(s, j)) return s.mask.causal && s.context_position(j) > s.position(i) ? 0.0 : 1.0;
  return masked_by_rules(s, i, j) ? 0.0 : cell;
}

}  // namespace

void toggle_mask_cell(Scenario& s, int row, int col) {
  Matrix cells = cells_or_ones(s);
  if (row < 0 || col < 0 || row >= cells.rows() || col >= cells.cols())
    throw ScenarioError("mask.cells: no cell (" + std::to_string(row) + ", " + std::to_string(col) + ") in a " +
                        std::to_string(cells.rows()) + "x" + std::to_string(cells.cols()) + " mask");
  cells(row, col) = cells(row, col) == 0.0 ? 1.0 : 0.0;
  s.mask.cells = std::move(cells);
}

void set_mask_window(Scenario& s, int window) {
  if (window < 0 || window > limits::max_position + 1)
    throw ScenarioError("mask.window: expected 0 (none) or a width from 1 to " + std::to_string(limits::max_position + 1) +
                        ", got " + std::to_string(window));
  s.mask.window = window;
}

void set_mask_sinks(Scenario& s, int sinks) {
  if (sinks < 0 || sinks > limits::max_tokens)
    throw ScenarioError("mask.sinks: expected 0 (none) or a count of sink keys from 1 to " +
                        std::to_string(limits::max_tokens) + ", got " + std::to_string(sinks));
  s.mask.sinks = sinks;
}

void set_causal(Scenario& s, bool causal) { s.mask.causal = causal; }

void clear_mask(Scenario& s) { s.mask = MaskSpec{}; }

void bake_mask(Scenario& s) {
  Matrix cells = cells_or_ones(s);
  const bool cols = s.layout == Layout::columns;
  for (int r = 0; r < cells.rows(); ++r)
    for (int c = 0; c < cells.cols(); ++c)
      cells(r, c) = baked_cell(s, cols ? c : r, cols ? r : c, cells(r, c));
  s.mask = MaskSpec{};
  s.mask.cells = std::move(cells);
}

void set_padding(Scenario& s, int key, bool padded) {
  const int n = s.n_z();
  if (key < 0 || key >= n)
    throw ScenarioError("mask.padding: no key " + std::to_string(key) + " (" + std::to_string(n) + " keys, 0 to " +
                        std::to_string(n - 1) + ")");
  auto& p = s.mask.padding;
  p.erase(std::remove(p.begin(), p.end(), key), p.end());
  if (padded) {
    p.push_back(key);
    std::sort(p.begin(), p.end());
  }
}

// ---- Positions ------------------------------------------------------------------------------------

namespace {

std::vector<int>& positions_of(Scenario& s, Sequence seq) {
  if (seq == Sequence::X) return s.positions;
  if (!s.cross_attention())
    throw ScenarioError("context_positions: self-attention has no context Z; its keys are at X's positions");
  return s.context_positions;
}

Rope& rope_of(Scenario& s) {
  if (!s.rope) throw ScenarioError("rope: the scenario has no RoPE; switch it on first");
  return *s.rope;
}

}  // namespace

void set_positions(Scenario& s, Sequence seq, const std::string& text) {
  std::vector<int>& positions = positions_of(s, seq);
  const std::string field = seq == Sequence::X ? "positions" : "context_positions";
  std::istringstream in(text);
  std::vector<int> out;
  std::string word;
  while (in >> word) {
    char* end = nullptr;
    const long p = std::strtol(word.c_str(), &end, 10);
    if (*end != '\0' || p < 0 || p > limits::max_position)
      throw ScenarioError(field + ": expected whole numbers from 0 to " + std::to_string(limits::max_position) +
                          " separated by spaces, got \"" + word + "\"");
    out.push_back(int(p));
  }
  positions = std::move(out);
}

void reset_positions(Scenario& s, Sequence seq) { positions_of(s, seq).clear(); }

void set_sinusoidal_encoding(Scenario& s, bool on) {
  s.positional_encoding = on ? PositionalEncoding::sinusoidal : PositionalEncoding::none;
}

void set_rope(Scenario& s, bool on) {
  if (!on) s.rope.reset();
  else if (!s.rope) s.rope = Rope{};
}

void set_rope_style(Scenario& s, Rope::Style style) { rope_of(s).style = style; }

void set_rope_base(Scenario& s, double base) {
  Rope& rope = rope_of(s);
  if (!(base > 1) || base > limits::max_rope_base)
    throw ScenarioError(std::string("rope.base: expected ") + limits::rope_base_range + ", got " + format_trimmed(base, 6));
  rope.base = base;
}

void set_rope_dims(Scenario& s, int dims) {
  Rope& rope = rope_of(s);
  if (dims < 0) throw ScenarioError("rope.dims: expected 0 (all of d_k) or more, got " + std::to_string(dims));
  rope.dims = dims;
}

void set_alibi(Scenario& s, bool on) {
  if (!on) s.alibi.reset();
  else if (!s.alibi) s.alibi = Alibi{};
}

void set_rope_scaling(Scenario& s, RopeScaling::Kind kind) {
  Rope& rope = rope_of(s);
  RopeScaling scaling;
  scaling.kind = kind;
  if (kind == RopeScaling::Kind::linear) scaling.factor = 2;
  if (kind == RopeScaling::Kind::llama3) scaling.factor = 8;  // Llama 3.1's
  if (kind == RopeScaling::Kind::longrope) {
    const int pairs = (rope.dims > 0 ? rope.dims : head_d_k(s, 0)) / 2;
    scaling.original_positions = 4096;  // Phi-3's
    scaling.short_factors.assign(std::size_t(std::max(pairs, 1)), 1.0);
    scaling.long_factors.assign(std::size_t(std::max(pairs, 1)), 2.0);
  }
  rope.scaling = scaling;
}

void set_rope_scaling_number(Scenario& s, const std::string& name, double value) {
  RopeScaling& scaling = rope_of(s).scaling;
  double* number = name == "factor"               ? &scaling.factor
                   : name == "low_freq_factor"    ? &scaling.low_freq_factor
                   : name == "high_freq_factor"   ? &scaling.high_freq_factor
                   : name == "original_positions" ? &scaling.original_positions
                   : name == "attention_factor"   ? &scaling.attention_factor
                                                  : nullptr;
  if (!number) throw ScenarioError("rope.scaling." + name + ": unknown key");
  if (!(value > 0) || !std::isfinite(value) || value > limits::max_scale)
    throw ScenarioError("rope.scaling." + name + ": expected a positive number up to 1e12, got " + format_trimmed(value, 6));
  *number = value;
}

void set_rope_scaling_factors(Scenario& s, bool long_factors, const std::string& text) {
  RopeScaling& scaling = rope_of(s).scaling;
  const std::string field = std::string("rope.scaling.") + (long_factors ? "long_factors" : "short_factors");
  std::istringstream in(text);
  std::vector<double> factors;
  std::string word;
  while (in >> word) {
    char* end = nullptr;
    const double f = std::strtod(word.c_str(), &end);
    if (*end != '\0' || !std::isfinite(f) || !(f > 0))
      throw ScenarioError(field + "[" + std::to_string(factors.size()) + "]: expected a positive number, got \"" + word + "\"");
    factors.push_back(f);
  }
  (long_factors ? scaling.long_factors : scaling.short_factors) = factors;
}

void set_qk_norm(Scenario& s, bool on) {
  if (!on) s.qk_norm.reset();
  else if (!s.qk_norm) s.qk_norm = QkNorm{};
}

namespace {
QkNorm& qk_norm_of(Scenario& s) {
  if (!s.qk_norm) throw ScenarioError("qk_norm: the scenario has no QK-norm; switch it on first");
  return *s.qk_norm;
}
}  // namespace

void set_qk_norm_scope(Scenario& s, QkNorm::Scope scope) {
  QkNorm& norm = qk_norm_of(s);
  if (norm.scope == scope) return;
  norm.scope = scope;
  norm.w_q = Vector();  // d_k against H d_k: the weights no longer fit
  norm.w_k = Vector();
}

void set_qk_norm_plus_one(Scenario& s, bool plus_one) {
  QkNorm& norm = qk_norm_of(s);
  if (norm.plus_one == plus_one) return;
  // The same gains either way: w becomes w - 1 (or w + 1), so the trace does not move.
  const double shift = plus_one ? -1.0 : 1.0;
  norm.w_q.array() += shift;
  norm.w_k.array() += shift;
  norm.plus_one = plus_one;
}

void set_softcap(Scenario& s, double cap) {
  if (!(cap >= 0) || !std::isfinite(cap) || cap > limits::max_scale)
    throw ScenarioError("softcap: expected a positive number up to 1e12 (or 0: none), got " + format_trimmed(cap, 6));
  s.softcap = cap;
}

void set_alibi_slopes(Scenario& s, const std::string& text) {
  if (!s.alibi) throw ScenarioError("alibi: the scenario has no ALiBi");
  std::istringstream in(text);
  std::vector<double> slopes;
  std::string word;
  while (in >> word) {
    const std::string field = "alibi[" + std::to_string(slopes.size()) + "]";
    char* end = nullptr;
    const double m = std::strtod(word.c_str(), &end);
    if (*end != '\0' || !std::isfinite(m) || m < 0)
      throw ScenarioError(field + ": expected a slope of 0 or more, got \"" + word + "\"");
    slopes.push_back(m);
  }
  if (!slopes.empty() && long(slopes.size()) != s.head_count())
    throw ScenarioError("alibi: expected " + std::to_string(s.head_count()) + " slopes (one per query head), got " +
                        std::to_string(slopes.size()));
  s.alibi->slopes = std::move(slopes);
}

namespace {

// X or Z: the sequence whose tokens `source` holds; nullopt for any other matrix.
std::optional<Sequence> token_matrix(const Scenario& s, const std::string& source) {
  if (source == "X") return Sequence::X;
  if (source == "Z" && s.cross_attention()) return Sequence::Z;
  return std::nullopt;
}

// Tokens along a pasted matrix's token axis, or -1 when its width is not the embedding's.
int pasted_tokens(const Scenario& s, const Matrix& stored, const Matrix& pasted) {
  const bool rows = s.layout == Layout::rows;
  if ((rows ? pasted.cols() : pasted.rows()) != (rows ? stored.cols() : stored.rows())) return -1;
  return int(rows ? pasted.rows() : pasted.cols());
}

// `seq` cut or grown to `n` tokens at its end in one reorder (a token at a time would copy the
// mask n times): new tokens are "new", "new2", ... and, with explicit positions, follow the last.
void resize_tokens(Scenario& s, Sequence seq, int n) {
  const int now = token_count(s, seq);
  std::vector<int> order;
  for (int i = 0; i < n; ++i) order.push_back(i < now ? i : -1);
  reorder_tokens(s, seq, order);
  std::vector<int>& positions = seq == Sequence::X ? s.positions : s.context_positions;
  for (int i = now + 1; i < n && !positions.empty(); ++i)
    positions[std::size_t(i)] = std::min(positions[std::size_t(i) - 1] + 1, limits::max_position);
  // In self-attention X's labels are the keys' too (reorder_tokens moved both).
  const bool both = seq == Sequence::X && !s.cross_attention();
  for (std::vector<std::string>* labels : {seq == Sequence::X ? &s.tokens : &s.context_tokens, both ? &s.context_tokens : nullptr})
    for (int i = now; labels && i < n && i < int(labels->size()); ++i)
      (*labels)[std::size_t(i)] = i == now ? "new" : "new" + std::to_string(i - now + 1);
}

}  // namespace

int paste_token_count(const Scenario& s, const std::string& source, const std::string& text) {
  const std::optional<Sequence> seq = token_matrix(s, source);
  if (!seq) return 0;
  Matrix pasted;
  try {
    pasted = parse_matrix_text(text);
  } catch (const std::exception&) {
    return 0;  // paste_matrix says why
  }
  const Matrix& stored = *seq == Sequence::X ? s.X : *s.Z;
  const int n = pasted_tokens(s, stored, pasted);
  const int now = *seq == Sequence::X ? s.n_x() : s.n_z();
  return n > 0 && n != now && n <= limits::max_tokens ? n : 0;
}

void paste_matrix_resizing_tokens(Scenario& s, const std::string& source, const std::string& text) {
  const std::optional<Sequence> seq = token_matrix(s, source);
  if (!seq) throw ScenarioError(source + ": only X and Z change their number of tokens");
  const int n = paste_token_count(s, source, text);
  if (n > 0) resize_tokens(s, *seq, n);
  paste_matrix(s, source, text);  // the values, or the refusal of a paste no token count fits
}

// ---- Whole scenario -------------------------------------------------------------------------------

void restore_scenario(Scenario& s, const Scenario& saved) { s = saved; }

}  // namespace attnlab
