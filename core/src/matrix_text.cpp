#include "attnlab/matrix_text.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "attnlab/limits.h"
#include "attnlab/scenario.h"
#include "attnlab/message_text.h"

namespace attnlab {

namespace {

using Rows = std::vector<std::vector<std::string>>;

[[noreturn]] void fail(const std::string& message) { throw ScenarioError("pasted matrix: " + message); }

std::string trim(const std::string& s) {
  const auto begin = s.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(" \t\r\n") - begin + 1);
}

/// Removes `array(`, `np.array(`, `tensor(` ... `)` and a trailing `, dtype=...`.
std::string strip_wrapper(std::string text) {
  text = trim(text);
  for (const char* prefix : {"np.array(", "numpy.array(", "array(", "torch.tensor(", "tensor("}) {
    const std::string p = prefix;
    if (text.rfind(p, 0) == 0 && text.back() == ')') {
      text = text.substr(p.size(), text.size() - p.size() - 1);
      break;
    }
  }
  const auto bracket = text.rfind(']');
  if (bracket != std::string::npos) text = text.substr(0, bracket + 1);  // drops ", dtype=float64"
  return trim(text);
}

std::vector<std::string> split_fields(const std::string& row) {
  std::vector<std::string> fields;
  std::string current;
  for (char c : row) {
    if (c == ',' || c == ';' || c == '\t' || c == ' ' || c == '\r') {
      if (!current.empty()) fields.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) fields.push_back(current);
  return fields;
}

/// Innermost [...] groups are rows: works for 1-D, 2-D, NumPy's and Python's forms alike.
Rows bracket_rows(const std::string& text) {
  Rows rows;
  std::string current;
  bool in_group = false;
  for (char c : text) {
    if (c == '[') {
      in_group = true;
      current.clear();
    } else if (c == ']') {
      if (in_group) rows.push_back(split_fields(current));
      in_group = false;
    } else if (in_group) {
      current += (c == '\n' ? ' ' : c);
    } else if (!std::isspace(static_cast<unsigned char>(c)) && c != ',') {
      fail(std::string("unexpected '") + c + "' between rows");
    }
  }
  return rows;
}

Rows line_rows(const std::string& text) {
  Rows rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!trim(line).empty()) rows.push_back(split_fields(line));
  return rows;
}

double parse_number(const std::string& field, std::size_t i, std::size_t j) {
  const std::string where = "row " + std::to_string(i + 1) + ", column " + std::to_string(j + 1);
  char* end = nullptr;
  const double x = std::strtod(field.c_str(), &end);
  if (end == field.c_str() || *end != '\0') fail(where + ": expected a number, got " + quoted_excerpt(field));
  if (!std::isfinite(x)) fail(where + ": expected a finite number, got " + field);
  return x;
}

}  // namespace

Matrix parse_matrix_text(const std::string& text) {
  const std::string body = strip_wrapper(text);
  if (body.empty()) fail("expected numbers, got nothing");
  Rows rows = body.find('[') != std::string::npos ? bracket_rows(body) : line_rows(body);
  if (rows.empty() || rows.front().empty()) fail("expected numbers, got an empty row");
  const std::size_t limit = std::max(limits::max_tokens, limits::max_width);
  if (rows.size() > limit || rows.front().size() > limit)
    fail("expected at most " + std::to_string(limit) + " rows and columns");
  Matrix m(rows.size(), rows.front().size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].size() != rows.front().size())
      fail("row " + std::to_string(i + 1) + ": expected " + std::to_string(rows.front().size()) +
           " numbers like row 1, got " + std::to_string(rows[i].size()));
    for (std::size_t j = 0; j < rows[i].size(); ++j) m(i, j) = parse_number(rows[i][j], i, j);
  }
  return m;
}

std::string matrix_to_csv(const Matrix& m) {
  std::string out;
  char buffer[40];
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      std::snprintf(buffer, sizeof buffer, "%.17g", m(i, j));
      out += (j ? "," : "") + std::string(buffer);
    }
    out += "\n";
  }
  return out;
}

}  // namespace attnlab
