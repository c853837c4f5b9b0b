// The one cell syntax (cell_ref.h): parsing `heads[1].W_q[0][2]`, reading and writing the scenario
// number it names, and the cell edits built on it (edits.h).
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "attnlab/cell_ref.h"
#include "attnlab/edits.h"
#include "attnlab/limits.h"
#include "attnlab/matrix_text.h"
#include "attnlab/message_text.h"
#include "attnlab/model.h"
#include "attnlab/numbering.h"
#include "attnlab/positions.h"

namespace attnlab {
namespace {

const char* const kMatrices[] = {"X", "Z", "W_q", "W_k", "W_v", "b_q", "b_k", "b_v", "W_o", "b_o"};

bool known_matrix(const std::string& name) {
  for (const char* m : kMatrices)
    if (name == m) return true;
  return false;
}

// The projections a head may own: W_q, W_k, W_v and their biases.
bool per_head_matrix(const std::string& name) {
  return name.size() == 3 && (name[0] == 'W' || name[0] == 'b') && name[1] == '_' &&
         (name[2] == 'q' || name[2] == 'k' || name[2] == 'v');
}

// A whole decimal integer of at most 9 digits (so it fits an int), optionally negative: a
// negative index is refused by whoever reads the reference, which can name the matrix's shape.
bool parse_index(const std::string& text, long* out) {
  const std::size_t first = !text.empty() && text[0] == '-' ? 1 : 0;
  if (text.size() == first || text.size() - first > 9) return false;
  for (std::size_t k = first; k < text.size(); ++k)
    if (text[k] < '0' || text[k] > '9') return false;
  *out = std::strtol(text.c_str(), nullptr, 10);
  return true;
}

bool name_char(char c, bool first) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (!first && ((c >= '0' && c <= '9') || c == '.'));
}

// Reads "[n]" at `pos` into `out`: 1 when read, 0 when there is no '[' there, -1 when malformed.
int read_bracket(const std::string& text, std::size_t* pos, long* out) {
  if (*pos >= text.size() || text[*pos] != '[') return 0;
  const std::size_t close = text.find(']', *pos);
  if (close == std::string::npos || !parse_index(text.substr(*pos + 1, close - *pos - 1), out)) return -1;
  *pos = close + 1;
  return 1;
}

/// The syntax of cell_ref.h; nothing when `text` is not of that shape. Throws for a negative head
/// index, naming the matrix ("heads[-1].W_q: ...").
std::optional<CellRef> read_cell_ref(const std::string& text) {
  CellRef ref;
  std::size_t pos = 0;
  for (const char* prefix : {"kv_heads", "heads"}) {
    const std::string p = prefix;
    if (text.compare(0, p.size() + 1, p + "[") != 0) continue;
    pos = p.size();
    long h = 0;
    if (read_bracket(text, &pos, &h) != 1 || pos >= text.size() || text[pos] != '.') return std::nullopt;
    ++pos;
    ref.head = h < 0 ? -2 : int(h);
    ref.kv = p == "kv_heads";
    break;
  }
  const std::size_t name_start = pos;
  while (pos < text.size() && name_char(text[pos], pos == name_start)) ++pos;
  ref.name = text.substr(name_start, pos - name_start);
  if (ref.name.empty() || ref.name.back() == '.') return std::nullopt;
  if (ref.head == -2) throw ScenarioError(text.substr(0, pos) + ": expected a head index h >= 0");
  long index = 0;
  for (int read; (read = read_bracket(text, &pos, &index)) != 0;) {
    if (read < 0 || ref.index.size() == 2) return std::nullopt;
    ref.index.push_back(index);
  }
  if (pos != text.size()) return std::nullopt;
  return ref;
}

std::string shape_text(long rows, long cols) { return std::to_string(rows) + "x" + std::to_string(cols); }

/// A matrix reference's name and head prefix are ones the scenario format has; throws naming it.
void check_matrix_source(const CellRef& ref) {
  const std::string source = ref.source();
  if (ref.head >= 0) {
    if (!per_head_matrix(ref.name) || (ref.kv && ref.name[2] == 'q'))
      throw ScenarioError(source + (ref.kv ? ": a key/value head owns only W_k, W_v, b_k, b_v"
                                           : ": a head owns only W_q, W_k, W_v, b_q, b_k, b_v"));
    return;
  }
  if (!known_matrix(ref.name))
    throw ScenarioError(source + ": no such matrix (X, Z, W_q, W_k, W_v, b_q, b_k, b_v, W_o, b_o, "
                                 "or heads[h].W_q for head h's own)");
}

/// Where a cell lives: a matrix, or an entry of a vector shown as a row or a column.
struct CellTarget {
  Matrix* matrix = nullptr;
  Vector* vector = nullptr;
  bool vector_as_row = true;
  long rows() const { return matrix ? matrix->rows() : vector_as_row ? 1 : vector->size(); }
  long cols() const { return matrix ? matrix->cols() : vector_as_row ? vector->size() : 1; }
};

Projections& projections_of(Scenario& s, const CellRef& ref) {
  const std::string name = ref.source();
  if (ref.kv) {
    if (ref.head >= static_cast<int>(s.kv_heads.size()))
      throw ScenarioError(name + ": no such key/value head (the scenario has " + std::to_string(s.kv_heads.size()) + ")");
    return s.kv_heads[static_cast<std::size_t>(ref.head)];
  }
  if (ref.head >= 0) {
    if (!s.per_head())
      throw ScenarioError(name + ": this scenario has no per-head weights; edit the full " + ref.name);
    if (ref.head >= static_cast<int>(s.heads.size()))
      throw ScenarioError(name + ": no such head (the scenario has " + std::to_string(s.heads.size()) + ")");
    return s.heads[static_cast<std::size_t>(ref.head)];
  }
  if (s.per_head())
    throw ScenarioError(name + ": each head has its own; name one, e.g. heads[0]." + ref.name);
  return s.full;
}

CellTarget target_of(Scenario& s, const CellRef& ref) {
  check_matrix_source(ref);
  const std::string name = ref.source();
  CellTarget t;
  t.vector_as_row = s.layout == Layout::rows;  // a bias is shown the way it is added
  const auto matrix = [&](std::optional<Matrix>& W, const char* absent) {
    if (!W) throw ScenarioError(name + ": omitted (" + absent + "); add it before editing a cell");
    t.matrix = &*W;
  };
  const auto vector = [&](std::optional<Vector>& b) {
    if (!b) throw ScenarioError(name + ": omitted (zeros); add it before editing a cell");
    t.vector = &*b;
  };
  if (ref.name == "X") {
    t.matrix = &s.X;
  } else if (ref.name == "Z") {
    if (!s.Z) throw ScenarioError("Z: self-attention has no context Z; switch to cross-attention first");
    t.matrix = &*s.Z;
  } else if (ref.name == "W_o") {
    matrix(s.W_o, "the output is the concatenation");
  } else if (ref.name == "b_o") {
    vector(s.b_o);
  } else {
    Projections& p = projections_of(s, ref);
    const char which = ref.name[2];
    if (ref.name[0] == 'W')
      matrix(which == 'q' ? p.W_q : which == 'k' ? p.W_k : p.W_v, "the identity");
    else
      vector(which == 'q' ? p.b_q : which == 'k' ? p.b_k : p.b_v);
  }
  return t;
}

/// The number a matrix reference names; throws for an index outside the matrix. A bias takes one
/// index (its entry) or two (as it is shown).
double& cell_of(Scenario& s, const CellRef& ref) {
  const CellTarget t = target_of(s, ref);
  const std::string where = ref.text();
  if (ref.index.size() == 1) {
    if (!t.vector) throw ScenarioError(where + ": a matrix cell takes two indices, " + ref.source() + "[row][col]");
    const long i = ref.index[0];
    if (i < 0 || i >= t.vector->size())
      throw ScenarioError(where + ": no such entry in a vector of " + std::to_string(t.vector->size()));
    return (*t.vector)(i);
  }
  if (ref.index.size() != 2) throw ScenarioError(where + ": expected " + ref.source() + "[row][col]");
  const long r = ref.index[0], c = ref.index[1];
  if (r < 0 || c < 0 || r >= t.rows() || c >= t.cols())
    throw ScenarioError(where + ": no such cell in a " + shape_text(t.rows(), t.cols()) + " matrix");
  return t.matrix ? (*t.matrix)(r, c) : (*t.vector)(t.vector_as_row ? c : r);
}

void expect_plain(const CellRef& ref, std::size_t indices) {
  if (ref.head != -1 || ref.index.size() != indices) {
    const std::string shape = indices == 0 ? ref.name : ref.name + "[h]";
    throw ScenarioError(ref.text() + ": expected " + shape);
  }
}

/// The head an `alibi[h]` reference names; throws without ALiBi or for a head out of range.
std::size_t alibi_head(const Scenario& s, const CellRef& ref) {
  expect_plain(ref, 1);
  if (!s.alibi) throw ScenarioError(ref.text() + ": the scenario has no ALiBi");
  const long heads = s.alibi->slopes.empty() ? s.head_count() : long(s.alibi->slopes.size());
  if (ref.index[0] < 0 || ref.index[0] >= heads)
    throw ScenarioError(ref.text() + ": no such head (the scenario has " + std::to_string(heads) + ")");
  return std::size_t(ref.index[0]);
}

double& rope_base(Scenario& s, const CellRef& ref) {
  expect_plain(ref, 0);
  if (!s.rope) throw ScenarioError(ref.text() + ": the scenario has no RoPE");
  return s.rope->base;
}

[[noreturn]] void out_of_range(const CellRef& ref, const std::string& range, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", value);
  throw ScenarioError(ref.text() + ": expected " + range + ", got " + buf);
}

}  // namespace

// ---- The syntax -----------------------------------------------------------------------------------

std::string CellRef::source() const {
  return (head >= 0 || kv ? std::string(kv ? "kv_heads[" : "heads[") + std::to_string(head) + "]." : std::string()) + name;
}

std::string CellRef::text() const {
  std::string t = source();
  for (long i : index) t += "[" + std::to_string(i) + "]";
  return t;
}

CellRef CellRef::at(long row, long col) const {
  CellRef cell = *this;
  cell.index = {row, col};
  return cell;
}

std::optional<CellRef> stage_cell_ref(StageId stage, int head, long row, long col) {
  const StageRow& r = stage_row(stage);
  if (!r.cell_name) return std::nullopt;
  CellRef ref;
  ref.name = r.cell_name;
  ref.head = r.per_head ? head : -1;
  return ref.at(row, col);
}

std::string head_words(const CellRef& ref) {
  if (ref.head < 0) return {};
  return ref.kv ? kv_head_label(ref.head) : head_label(ref.head);
}

std::string cell_ref_words(const CellRef& ref) {
  CellRef plain = ref;
  plain.head = -1;
  plain.kv = false;
  return ref.head < 0 ? plain.text() : plain.text() + " of " + head_words(ref);
}

CellRef parse_cell_ref(const std::string& text) {
  std::optional<CellRef> ref = read_cell_ref(text);
  if (!ref)
    throw ScenarioError("cell " + quoted_excerpt(text) + ": expected NAME, NAME[i] or NAME[i][j], optionally after heads[h]. " +
                        "(e.g. scale, b_v[1], W_q[0][1], heads[1].W_k[0][0])");
  return *ref;
}

// ---- The scenario's numbers -----------------------------------------------------------------------

double scenario_value(const Scenario& s, const CellRef& ref) {
  if (ref.name == "scale") {
    expect_plain(ref, 0);
    if (s.scale.kind == Scale::Kind::value) return s.scale.value;
    if (s.scale.kind == Scale::Kind::none) return 1.0;
    return resolve(s).scale;
  }
  if (ref.name == "alibi") {
    const std::size_t h = alibi_head(s, ref);
    return s.alibi->slopes.empty() ? positional::alibi_slopes(s.head_count())[h] : s.alibi->slopes[h];
  }
  // The lookups below return a reference to write through; reading through it writes nothing.
  Scenario& mutable_s = const_cast<Scenario&>(s);
  if (ref.name == "rope.base") return rope_base(mutable_s, ref);
  return cell_of(mutable_s, ref);
}

void set_scenario_value(Scenario& s, const CellRef& ref, double value) {
  if (ref.name == "scale") {
    expect_plain(ref, 0);
    if (!(value > 0) || value > limits::max_scale) out_of_range(ref, "a positive number up to 1e12", value);
    s.scale = Scale{Scale::Kind::value, value};
  } else if (ref.name == "rope.base") {
    double& base = rope_base(s, ref);
    if (!(value > 1) || value > limits::max_rope_base) out_of_range(ref, limits::rope_base_range, value);
    base = value;
  } else if (ref.name == "alibi") {
    const std::size_t h = alibi_head(s, ref);
    if (!(value >= 0) || value > max_cell_magnitude) out_of_range(ref, "a slope from 0 to 1e6", value);
    if (s.alibi->slopes.empty()) s.alibi->slopes = positional::alibi_slopes(s.head_count());
    s.alibi->slopes[h] = value;
  } else {
    double& cell = cell_of(s, ref);
    if (!std::isfinite(value) || std::fabs(value) > max_cell_magnitude)
      out_of_range(ref, "a finite value between -1e6 and 1e6", value);
    cell = value;
  }
}

// ---- Cell edits (edits.h) -------------------------------------------------------------------------

std::string CellEdit::source() const {
  return (head >= 0 ? std::string(kv ? "kv_heads[" : "heads[") + std::to_string(head) + "]." : std::string()) + matrix;
}

CellEdit parse_cell_edit(const std::string& text) {
  const auto syntax_error = [&] {
    throw ScenarioError("cell edit " + quoted_excerpt(text) + ": expected MATRIX[row][col]=VALUE, e.g. W_q[0][1]=0.5");
  };
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos) syntax_error();
  const std::optional<CellRef> ref = read_cell_ref(text.substr(0, eq));
  if (!ref || ref->index.size() != 2) syntax_error();
  check_matrix_source(*ref);
  return CellEdit{ref->name, ref->head, ref->kv, int(ref->index[0]), int(ref->index[1]), text.substr(eq + 1)};
}

CellEdit cell_edit_of(const std::string& source, int row, int col, const std::string& value_text) {
  CellRef ref = parse_cell_ref(source);
  if (!ref.index.empty()) throw ScenarioError(source + ": expected a matrix name, e.g. W_q or heads[1].b_k");
  check_matrix_source(ref);
  return CellEdit{ref.name, ref.head, ref.kv, row, col, value_text};
}

double parse_cell_value(const std::string& where, const std::string& text) {
  const char* begin = text.c_str();
  while (*begin == ' ') ++begin;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  while (end && *end == ' ') ++end;
  if (end == begin || *end != '\0') throw ScenarioError(where + ": expected a number, got " + quoted_excerpt(text));
  if (!std::isfinite(v) || errno == ERANGE)
    throw ScenarioError(where + ": expected a finite number, got " + quoted_excerpt(text));
  if (std::fabs(v) > max_cell_magnitude)
    throw ScenarioError(where + ": expected a value between -1e6 and 1e6, got " + excerpt(text));
  return v;
}

void set_cell(Scenario& s, const CellEdit& edit) {
  const CellRef ref{edit.matrix, edit.head, edit.kv, {edit.row, edit.col}};
  double& cell = cell_of(s, ref);
  cell = parse_cell_value(ref.text(), edit.value_text);
}

void set_matrix_cell(Scenario& s, const std::string& source, int row, int col, double value) {
  CellRef ref = parse_cell_ref(source);
  if (!ref.index.empty()) throw ScenarioError(source + ": expected a matrix name, e.g. W_q or heads[1].b_k");
  check_matrix_source(ref);
  ref.index = {row, col};
  set_scenario_value(s, ref, value);
}

// ---- Whole matrices (edits.h) ---------------------------------------------------------------------

namespace {

/// A matrix name (no indices) whose name and head prefix the scenario format has.
CellRef matrix_ref(const std::string& source) {
  const CellRef ref = parse_cell_ref(source);
  if (!ref.index.empty()) throw ScenarioError(source + ": expected a matrix name, e.g. W_q or heads[1].b_k");
  check_matrix_source(ref);
  return ref;
}

/// The optional W or b a reference names (never X or Z); W_o and b_o are the scenario's own.
struct OptionalPart {
  std::optional<Matrix>* W = nullptr;
  std::optional<Vector>* b = nullptr;
};

OptionalPart optional_part(Scenario& s, const CellRef& ref) {
  if (ref.name == "X" || ref.name == "Z") return {};
  if (ref.name == "W_o") return {&s.W_o, nullptr};
  if (ref.name == "b_o") return {nullptr, &s.b_o};
  Projections& p = projections_of(s, ref);
  const char which = ref.name[2];
  if (ref.name[0] == 'W') return {which == 'q' ? &p.W_q : which == 'k' ? &p.W_k : &p.W_v, nullptr};
  return {nullptr, which == 'q' ? &p.b_q : which == 'k' ? &p.b_k : &p.b_v};
}

/// How wide the bias of `ref` is: its projection's width as the scenario resolves.
long bias_width(const Scenario& s, const CellRef& ref) {
  const Model m = resolve(s);
  const long per = ref.name[2] == 'v' ? m.d_v : m.d_k;
  if (ref.head >= 0) return per;  // a head's own, or a key/value head's
  return per * (ref.name[2] == 'q' ? m.num_heads : m.num_kv_heads);
}

}  // namespace

void add_matrix(Scenario& s, const std::string& source, NewMatrix start) {
  const CellRef ref = matrix_ref(source);
  const OptionalPart part = optional_part(s, ref);
  if (!part.W && !part.b) throw ScenarioError(source + ": is always there");
  if (part.W ? part.W->has_value() : part.b->has_value()) throw ScenarioError(source + ": already there");
  if (ref.name == "W_o") {
    const Model m = resolve(s);
    const long concat = long(m.num_heads) * m.d_v;
    s.W_o = start == NewMatrix::zeros ? Matrix(Matrix::Zero(concat, concat)) : Matrix(Matrix::Identity(concat, concat));
  } else if (ref.name == "b_o") {
    if (!s.W_o) throw ScenarioError("b_o: add W_o first (without it the output is the concatenation)");
    s.b_o = Vector(Vector::Zero(s.layout == Layout::rows ? s.W_o->cols() : s.W_o->rows()));
  } else if (part.W) {
    const long in = ref.name[2] == 'q' ? s.d_x() : s.d_z();
    *part.W = start == NewMatrix::zeros ? Matrix(Matrix::Zero(in, in)) : Matrix(Matrix::Identity(in, in));
  } else {
    *part.b = Vector(Vector::Zero(bias_width(s, ref)));
  }
}

void remove_matrix(Scenario& s, const std::string& source) {
  const CellRef ref = matrix_ref(source);
  const OptionalPart part = optional_part(s, ref);
  if (!part.W && !part.b) throw ScenarioError(source + ": cannot be omitted");
  if (!(part.W ? part.W->has_value() : part.b->has_value())) throw ScenarioError(source + ": already omitted");
  if (part.W) part.W->reset();
  else part.b->reset();
  if (ref.name == "W_o") s.b_o.reset();  // b_o is added after W_o: without it, nothing to add to
}

void paste_matrix(Scenario& s, const std::string& source, const std::string& text) {
  const CellRef ref = matrix_ref(source);
  const CellTarget t = target_of(s, ref);
  Matrix pasted;
  try {
    pasted = parse_matrix_text(text);
  } catch (const std::exception& e) {
    throw ScenarioError(source + ": cannot paste: " + e.what());
  }
  // A vector may be pasted either way round: [1 2 3] or one number per line.
  if (pasted.rows() == t.cols() && pasted.cols() == t.rows() && (t.rows() == 1 || t.cols() == 1))
    pasted.transposeInPlace();
  if (pasted.rows() != t.rows() || pasted.cols() != t.cols())
    throw ScenarioError(source + ": pasted " + shape_text(pasted.rows(), pasted.cols()) + ", expected " +
                        shape_text(t.rows(), t.cols()));
  for (Eigen::Index i = 0; i < pasted.size(); ++i)
    if (std::fabs(pasted.data()[i]) > max_cell_magnitude)
      throw ScenarioError(source + ": pasted values must lie between -1e6 and 1e6");
  if (t.matrix) *t.matrix = pasted;
  else *t.vector = Vector(Eigen::Map<const Vector>(pasted.data(), pasted.size()));
}

}  // namespace attnlab
