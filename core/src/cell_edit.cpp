// One cell of one matrix (edits.h): the syntax `heads[1].W_q[0][2]=0.5`, and storing it.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "attnlab/edits.h"

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

[[noreturn]] void syntax_error(const std::string& text) {
  throw ScenarioError("cell edit \"" + text + "\": expected MATRIX[row][col]=VALUE, e.g. W_q[0][1]=0.5");
}

// A whole decimal integer, optionally negative (a negative index is refused by set_cell, which
// can name the matrix's shape).
bool parse_index(const std::string& text, int* out) {
  if (text.empty() || text.size() > 10) return false;
  std::size_t i = text[0] == '-' ? 1 : 0;
  if (i == text.size()) return false;
  for (std::size_t k = i; k < text.size(); ++k)
    if (text[k] < '0' || text[k] > '9') return false;
  *out = std::atoi(text.c_str());
  return true;
}

/// "W_q", "heads[1].W_q" or "kv_heads[0].W_k" -> matrix, head and whether it is a key/value head.
void parse_source(const std::string& source, std::string* matrix, int* head, bool* kv) {
  *head = -1;
  *matrix = source;
  *kv = source.compare(0, 3, "kv_") == 0;
  const std::string prefix = *kv ? "kv_heads[" : "heads[";
  if (source.compare(0, prefix.size(), prefix) == 0) {
    const std::size_t close = source.find("].", prefix.size());
    if (close == std::string::npos || !parse_index(source.substr(prefix.size(), close - prefix.size()), head) ||
        *head < 0)
      throw ScenarioError(source + ": expected " + prefix + "h].MATRIX with a head index h >= 0");
    *matrix = source.substr(close + 2);
    if (!per_head_matrix(*matrix) || (*kv && (*matrix)[2] == 'q'))
      throw ScenarioError(source + (*kv ? ": a key/value head owns only W_k, W_v, b_k, b_v"
                                        : ": a head owns only W_q, W_k, W_v, b_q, b_k, b_v"));
    return;
  }
  if (!known_matrix(*matrix))
    throw ScenarioError(source + ": no such matrix (X, Z, W_q, W_k, W_v, b_q, b_k, b_v, W_o, b_o, "
                                 "or heads[h].W_q for head h's own)");
}

std::string shape_text(long rows, long cols) { return std::to_string(rows) + "x" + std::to_string(cols); }

/// Where a cell edit writes: a matrix, or an entry of a vector shown as a row or a column.
struct CellTarget {
  Matrix* matrix = nullptr;
  Vector* vector = nullptr;
  bool vector_as_row = true;
  long rows() const { return matrix ? matrix->rows() : vector_as_row ? 1 : vector->size(); }
  long cols() const { return matrix ? matrix->cols() : vector_as_row ? vector->size() : 1; }
};

Projections& projections_of(Scenario& s, const CellEdit& e) {
  const std::string name = e.source();
  if (e.kv) {
    if (e.head >= static_cast<int>(s.kv_heads.size()))
      throw ScenarioError(name + ": no such key/value head (the scenario has " + std::to_string(s.kv_heads.size()) + ")");
    return s.kv_heads[static_cast<std::size_t>(e.head)];
  }
  if (e.head >= 0) {
    if (!s.per_head())
      throw ScenarioError(name + ": this scenario has no per-head weights; edit the full " + e.matrix);
    if (e.head >= static_cast<int>(s.heads.size()))
      throw ScenarioError(name + ": no such head (the scenario has " + std::to_string(s.heads.size()) + ")");
    return s.heads[static_cast<std::size_t>(e.head)];
  }
  if (s.per_head())
    throw ScenarioError(name + ": each head has its own; name one, e.g. heads[0]." + e.matrix);
  return s.full;
}

CellTarget target_of(Scenario& s, const CellEdit& e) {
  const std::string name = e.source();
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
  if (e.matrix == "X") {
    t.matrix = &s.X;
  } else if (e.matrix == "Z") {
    if (!s.Z) throw ScenarioError("Z: self-attention has no context Z; switch to cross-attention first");
    t.matrix = &*s.Z;
  } else if (e.matrix == "W_o") {
    matrix(s.W_o, "the output is the concatenation");
  } else if (e.matrix == "b_o") {
    vector(s.b_o);
  } else {
    Projections& p = projections_of(s, e);
    const char which = e.matrix[2];
    if (e.matrix[0] == 'W')
      matrix(which == 'q' ? p.W_q : which == 'k' ? p.W_k : p.W_v, "the identity");
    else
      vector(which == 'q' ? p.b_q : which == 'k' ? p.b_k : p.b_v);
  }
  return t;
}

}  // namespace

std::string CellEdit::source() const {
  return (head >= 0 ? std::string(kv ? "kv_heads[" : "heads[") + std::to_string(head) + "]." : std::string()) + matrix;
}

CellEdit parse_cell_edit(const std::string& text) {
  // The cell is the last two [..] before '=': the source may hold brackets ("heads[1].W_q").
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || text[eq - 1] != ']') syntax_error(text);
  const std::size_t open2 = text.rfind('[', eq - 1);
  if (open2 == std::string::npos || open2 == 0 || text[open2 - 1] != ']') syntax_error(text);
  const std::size_t open1 = text.rfind('[', open2 - 1);
  if (open1 == std::string::npos || open1 == 0) syntax_error(text);
  int row = 0, col = 0;
  if (!parse_index(text.substr(open1 + 1, open2 - 1 - (open1 + 1)), &row) ||
      !parse_index(text.substr(open2 + 1, eq - 1 - (open2 + 1)), &col))
    syntax_error(text);
  return cell_edit_of(text.substr(0, open1), row, col, text.substr(eq + 1));
}

CellEdit cell_edit_of(const std::string& source, int row, int col, const std::string& value_text) {
  CellEdit e;
  parse_source(source, &e.matrix, &e.head, &e.kv);
  e.row = row;
  e.col = col;
  e.value_text = value_text;
  return e;
}

double parse_cell_value(const std::string& where, const std::string& text) {
  const char* begin = text.c_str();
  while (*begin == ' ') ++begin;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  while (end && *end == ' ') ++end;
  if (end == begin || *end != '\0') throw ScenarioError(where + ": expected a number, got \"" + text + "\"");
  if (!std::isfinite(v) || errno == ERANGE)
    throw ScenarioError(where + ": expected a finite number, got \"" + text + "\"");
  if (std::fabs(v) > max_cell_magnitude)
    throw ScenarioError(where + ": expected a value between -1e6 and 1e6, got " + text);
  return v;
}

void set_cell(Scenario& s, const CellEdit& edit) {
  const CellTarget t = target_of(s, edit);
  const std::string where = edit.source() + "[" + std::to_string(edit.row) + "][" + std::to_string(edit.col) + "]";
  if (edit.row < 0 || edit.col < 0 || edit.row >= t.rows() || edit.col >= t.cols())
    throw ScenarioError(where + ": no such cell in a " + shape_text(t.rows(), t.cols()) + " matrix");
  const double v = parse_cell_value(where, edit.value_text);
  if (t.matrix)
    (*t.matrix)(edit.row, edit.col) = v;
  else
    (*t.vector)(t.vector_as_row ? edit.col : edit.row) = v;
}

}  // namespace attnlab
