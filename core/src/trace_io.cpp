#include "attnlab/trace_io.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "attnlab/head_stats.h"
#include "attnlab/numbering.h"
#include "attnlab/stage.h"

namespace attnlab {

using nlohmann::json;

json matrix_to_json(const Matrix& m) {
  json rows = json::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    json row = json::array();
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      const double x = m(i, j);
      row.push_back(std::isfinite(x) ? json(x) : json(nullptr));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<std::string> head_stage_names(const Trace& t) {
  std::vector<std::string> names;
  for (const StageRow& row : stage_table())
    if (row.per_head && row.cell_name && has_stage(t, row.id)) names.push_back(row.cell_name);
  return names;
}

Matrix head_stage(const Trace& t, std::size_t h, const std::string& name) {
  const std::optional<StageId> id = stage_from_cell_name(name, true);
  if (!id) throw std::invalid_argument("no head stage named '" + name + "'");
  (void)t.heads.at(h);  // a head out of range throws std::out_of_range
  return stage_matrix(t, *id, int(h));
}

json trace_to_json(const Trace& trace) {
  json heads = json::array();
  const std::vector<std::string> names = head_stage_names(trace);
  for (std::size_t h = 0; h < trace.heads.size(); ++h) {
    json head = json::object();
    for (const std::string& name : names) head[name] = matrix_to_json(head_stage(trace, h, name));
    head["kv_head"] = trace.heads[h].kv_head;
    const HeadStats st = head_stats(trace, h);
    head["stats"] = {{"entropy", st.entropy},   {"max_weight", st.max_weight},   {"argmax", st.argmax},
                     {"keys_for_90", st.keys_for_90}, {"first_key", st.first_key}, {"mean_distance", st.mean_distance}};
    heads.push_back(std::move(head));
  }
  json out = {{"layout", layout_name(trace.layout)}};
  if (trace.X_pos.size()) out["X_pos"] = matrix_to_json(trace.X_pos);
  if (trace.Z_pos.size()) out["Z_pos"] = matrix_to_json(trace.Z_pos);
  out["heads"] = std::move(heads);
  out["concat"] = matrix_to_json(trace.concat);
  out["output"] = matrix_to_json(trace.output);
  out["warnings"] = trace.warnings;
  return out;
}

namespace {

/// NumPy's rule (FloatingFormat): scientific when the finite non-zero magnitudes span too much.
bool needs_scientific(const Matrix& m) {
  double lo = INFINITY, hi = 0;
  for (Eigen::Index k = 0; k < m.size(); ++k) {
    const double a = std::abs(m.data()[k]);
    if (!std::isfinite(a) || a == 0) continue;
    lo = std::min(lo, a);
    hi = std::max(hi, a);
  }
  if (hi == 0) return false;
  return hi >= 1e8 || lo < 1e-4 || hi / lo > 1e3;
}

std::string trim_zeros(std::string s) {
  const auto dot = s.find('.');
  if (dot == std::string::npos) return s;
  const auto exp = s.find('e');
  std::string mantissa = s.substr(0, exp), exponent = exp == std::string::npos ? "" : s.substr(exp);
  while (mantissa.back() == '0') mantissa.pop_back();
  return mantissa + exponent;
}

std::string format_cell(double x, int precision, bool scientific) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, scientific ? "%.*e" : "%.*f", precision, x);
  std::string s = trim_zeros(buffer);
  if (s == "-0.") s = "0.";
  return s;
}

bool is_special(const std::string& cell) { return cell == "-inf" || cell == "inf" || cell == "nan"; }

/// Splits at the decimal point so that points align: "-1." -> ("-1", ".").
std::pair<std::string, std::string> split_point(const std::string& s) {
  const auto dot = s.find('.');
  if (dot == std::string::npos) return {s, ""};
  return {s.substr(0, dot), s.substr(dot)};
}

}  // namespace

std::string format_matrix(const Matrix& m, int precision) {
  const bool scientific = needs_scientific(m);
  std::vector<std::string> cells;
  std::size_t int_width = 0, frac_width = 0;
  for (Eigen::Index k = 0; k < m.size(); ++k) cells.push_back(format_cell(m.data()[k], precision, scientific));
  for (const std::string& c : cells) {
    if (is_special(c)) continue;
    const auto [whole, frac] = split_point(c);
    int_width = std::max(int_width, whole.size());
    frac_width = std::max(frac_width, frac.size());
  }
  auto padded = [&](const std::string& c) {
    const auto [whole, frac] = split_point(c);
    if (is_special(c))  // right-aligned over the whole width, as NumPy does
      return std::string(int_width + frac_width - std::min(c.size(), int_width + frac_width), ' ') + c;
    return std::string(int_width - whole.size(), ' ') + whole + frac + std::string(frac_width - frac.size(), ' ');
  };
  std::ostringstream out;
  out << "[";
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    out << (i == 0 ? "[" : " [");
    for (Eigen::Index j = 0; j < m.cols(); ++j) out << (j ? " " : "") << padded(cells[i * m.cols() + j]);
    out << "]" << (i + 1 < m.rows() ? "\n" : "");
  }
  out << "]";
  return out.str();
}

namespace {

/// One statistic as a NumPy-style row, `[0.69 1.  ]`: format_matrix's [[...]] without the outer pair.
std::string stat_row(const Matrix& values, int precision) {
  const std::string m = format_matrix(values, precision);
  return m.substr(1, m.size() - 2);
}

template <typename T>
Matrix as_row(const std::vector<T>& v) {
  Matrix m(1, Eigen::Index(v.size()));
  for (std::size_t k = 0; k < v.size(); ++k) m(0, Eigen::Index(k)) = double(v[k]);
  return m;
}

std::string int_row(const std::vector<int>& v) {
  std::string s = "[";
  for (std::size_t k = 0; k < v.size(); ++k) s += (k ? " " : "") + std::to_string(v[k]);
  return s + "]";
}

/// Head h's statistics, one line each, one entry per query (docs/FORMAT.md, "Per-head statistics").
void stats_to_text(const HeadStats& st, std::size_t h, int precision, std::ostringstream& out) {
  out << "\n"
      << head_label(int(h)) << " stats (per query; entropy in nats; argmax -1: attends no key):\n"
      << "  entropy       " << stat_row(as_row(st.entropy), precision) << "\n"
      << "  max_weight    " << stat_row(as_row(st.max_weight), precision) << "\n"
      << "  argmax        " << int_row(st.argmax) << "\n"
      << "  keys_for_90   " << int_row(st.keys_for_90) << "\n"
      << "  first_key     " << stat_row(as_row(st.first_key), precision) << "\n"
      << "  mean_distance " << stat_row(as_row(st.mean_distance), precision) << "\n";
}

}  // namespace

std::string trace_to_text(const Trace& trace, int precision) {
  std::ostringstream out;
  out << "layout: " << layout_name(trace.layout) << "\n";
  if (trace.X_pos.size()) out << "\nX_pos (X + PE):\n" << format_matrix(trace.X_pos, precision) << "\n";
  if (trace.Z_pos.size()) out << "\nZ_pos (Z + PE):\n" << format_matrix(trace.Z_pos, precision) << "\n";
  const std::vector<std::string> names = head_stage_names(trace);
  bool grouped = false;
  for (std::size_t h = 0; h < trace.heads.size(); ++h) grouped = grouped || trace.heads[h].kv_head != int(h);
  for (std::size_t h = 0; h < trace.heads.size(); ++h) {
    if (grouped)
      out << "\n"
          << head_label(int(h)) << " reads key/value head " << index_text(trace.heads[h].kv_head)
          << "\n";
    for (const std::string& name : names)
      out << "\n"
          << head_label(int(h)) << " " << name << ":\n"
          << format_matrix(head_stage(trace, h, name), precision) << "\n";
    stats_to_text(head_stats(trace, h), h, precision, out);
  }
  out << "\nconcat:\n" << format_matrix(trace.concat, precision) << "\n";
  out << "\noutput:\n" << format_matrix(trace.output, precision) << "\n";
  for (const std::string& w : trace.warnings) out << "\nwarning: " << w << "\n";
  return out.str();
}

}  // namespace attnlab
