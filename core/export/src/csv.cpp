#include "attnlab/export/csv.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "attnlab/export/canvas.h"

namespace attnlab::exporter {
namespace {

std::string field(const std::string& s) {
  const bool quote = s.find_first_of(",\"\r\n") != std::string::npos ||
                     (!s.empty() && (s.front() == ' ' || s.back() == ' '));
  if (!quote) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

/// Splits CSV text into records of fields (quoted fields may hold commas and line breaks).
std::vector<std::vector<std::string>> records(const std::string& text) {
  std::vector<std::vector<std::string>> out;
  std::vector<std::string> record;
  std::string current;
  bool quoted = false, any = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') current += text[++i];
      else if (c == '"') quoted = false;
      else current += c;
    } else if (c == '"') {
      quoted = any = true;
    } else if (c == ',') {
      record.push_back(std::move(current));
      current.clear();
      any = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      if (any || !current.empty()) record.push_back(std::move(current));
      if (!record.empty()) out.push_back(std::move(record));
      record.clear();
      current.clear();
      any = false;
    } else {
      current += c;
      any = true;
    }
  }
  if (quoted) throw ExportError("csv: a quoted field is not closed");
  if (any || !current.empty()) record.push_back(std::move(current));
  if (!record.empty()) out.push_back(std::move(record));
  return out;
}

double parse_number(const std::string& s, std::size_t line, std::size_t column) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);  // also reads inf, -inf, nan
  if (s.empty() || *end != '\0')
    throw ExportError("csv line " + std::to_string(line) + ", field " + std::to_string(column) +
                      ": expected a number, got '" + s + "'");
  return v;
}

}  // namespace

std::string matrix_csv(const LabeledMatrix& m) {
  std::string out = field(m.corner);
  for (Eigen::Index j = 0; j < m.values.cols(); ++j)
    out += "," + field(j < static_cast<Eigen::Index>(m.col_labels.size()) ? m.col_labels[j] : std::to_string(j));
  out += "\n";
  for (Eigen::Index i = 0; i < m.values.rows(); ++i) {
    out += field(i < static_cast<Eigen::Index>(m.row_labels.size()) ? m.row_labels[i] : std::to_string(i));
    for (Eigen::Index j = 0; j < m.values.cols(); ++j) out += "," + number(m.values(i, j));
    out += "\n";
  }
  return out;
}

LabeledMatrix parse_matrix_csv(const std::string& text) {
  const auto lines = records(text);
  if (lines.empty()) throw ExportError("csv: expected a header line, got an empty file");
  LabeledMatrix m;
  m.corner = lines[0][0];
  m.col_labels.assign(lines[0].begin() + 1, lines[0].end());
  const std::size_t cols = m.col_labels.size();
  m.values.resize(static_cast<Eigen::Index>(lines.size() - 1), static_cast<Eigen::Index>(cols));
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].size() != cols + 1)
      throw ExportError("csv line " + std::to_string(i + 1) + ": expected " + std::to_string(cols + 1) +
                        " fields (a label and " + std::to_string(cols) + " values), got " +
                        std::to_string(lines[i].size()));
    m.row_labels.push_back(lines[i][0]);
    for (std::size_t j = 0; j < cols; ++j)
      m.values(static_cast<Eigen::Index>(i - 1), static_cast<Eigen::Index>(j)) = parse_number(lines[i][j + 1], i + 1, j + 2);
  }
  return m;
}

}  // namespace attnlab::exporter
