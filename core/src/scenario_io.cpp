#include "attnlab/scenario_io.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attnlab/limits.h"

namespace attnlab {

using nlohmann::json;

namespace {

constexpr const char* kFormat = "attnlab/1";

[[noreturn]] void fail(const std::string& field, const std::string& message) {
  throw ScenarioError(field + ": " + message);
}

/// A short description of a JSON value for "got ..." in messages.
std::string describe(const json& value) {
  switch (value.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return value.get<bool>() ? "true" : "false";
    case json::value_t::string: {
      std::string s = value.get<std::string>();
      if (s.size() > 24) s = s.substr(0, 24) + "...";
      return "string \"" + s + "\"";
    }
    case json::value_t::array: return "an array of " + std::to_string(value.size());
    case json::value_t::object: return "an object";
    case json::value_t::discarded: return "nothing";
    default: {
      std::string s = value.dump();
      return s.size() > 24 ? s.substr(0, 24) + "..." : s;
    }
  }
}

std::string lowercase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// Refuses keys outside `known`; suggests the key that differs only by case (W_Q -> W_q).
void check_keys(const json& object, const std::set<std::string>& known, const std::string& path) {
  for (const auto& item : object.items()) {
    if (known.count(item.key())) continue;
    std::string message = "unknown key";
    for (const std::string& k : known)
      if (lowercase(k) == lowercase(item.key())) message += " (did you mean \"" + k + "\"?)";
    fail(path + item.key(), message);
  }
}

/// Marks a number literal the JSON parser could not hold, so the reader can name its field.
constexpr const char* kOverflowMarker = "\x01" "attnlab:out-of-range:";

double read_number(const json& value, const std::string& field) {
  if (value.is_string() && value.get<std::string>().rfind(kOverflowMarker, 0) == 0)
    fail(field, "expected a finite number, got " + value.get<std::string>().substr(std::strlen(kOverflowMarker)) +
                    " (out of double range)");
  if (!value.is_number()) fail(field, "expected a number, got " + describe(value));
  double x = value.get<double>();
  if (!std::isfinite(x)) fail(field, "expected a finite number, got a number out of double range");
  return x;
}

std::string read_string(const json& value, const std::string& field) {
  if (!value.is_string()) fail(field, "expected a string, got " + describe(value));
  return value.get<std::string>();
}

Matrix read_matrix(const json& value, const std::string& field) {
  if (!value.is_array()) fail(field, "expected a matrix (an array of rows), got " + describe(value));
  if (value.empty()) fail(field, "expected a non-empty matrix, got an empty array");
  const json& first = value.front();
  if (!first.is_array())
    fail(field + "[0]", "expected a row (an array of numbers), got " + describe(first));
  if (first.empty()) fail(field + "[0]", "expected a non-empty row, got an empty array");
  const std::size_t rows = value.size(), cols = first.size();
  const std::size_t limit = std::max(limits::max_tokens, limits::max_width);
  if (rows > limit || cols > limit)
    fail(field, "expected at most " + std::to_string(limit) + " rows and columns, got " +
                    std::to_string(rows) + "x" + std::to_string(cols));
  Matrix m(rows, cols);
  for (std::size_t i = 0; i < rows; ++i) {
    const std::string row_field = field + "[" + std::to_string(i) + "]";
    const json& row = value[i];
    if (!row.is_array()) fail(row_field, "expected a row (an array of numbers), got " + describe(row));
    if (row.size() != cols)
      fail(row_field, "expected " + std::to_string(cols) + " numbers like row 0 (a rectangular matrix), got " +
                          std::to_string(row.size()));
    for (std::size_t j = 0; j < cols; ++j)
      m(i, j) = read_number(row[j], row_field + "[" + std::to_string(j) + "]");
  }
  return m;
}

Vector read_vector(const json& value, const std::string& field) {
  if (!value.is_array()) fail(field, "expected a vector (an array of numbers), got " + describe(value));
  if (value.empty()) fail(field, "expected a non-empty vector, got an empty array");
  if (value.size() > static_cast<std::size_t>(limits::max_width))
    fail(field, "expected at most " + std::to_string(limits::max_width) + " numbers, got " +
                    std::to_string(value.size()));
  Vector v(value.size());
  for (std::size_t i = 0; i < value.size(); ++i)
    v(i) = read_number(value[i], field + "[" + std::to_string(i) + "]");
  return v;
}

/// 0/1 matrix (numbers 0 or 1, or booleans).
Matrix read_mask_cells(const json& value, const std::string& field) {
  if (!value.is_array()) fail(field, "expected a 0/1 matrix (an array of rows), got " + describe(value));
  json numeric = value;
  for (std::size_t i = 0; i < numeric.size(); ++i) {
    if (!numeric[i].is_array()) continue;  // read_matrix names the malformed row
    for (auto& cell : numeric[i])
      if (cell.is_boolean()) cell = cell.get<bool>() ? 1 : 0;
  }
  Matrix cells = read_matrix(numeric, field);
  for (Eigen::Index i = 0; i < cells.rows(); ++i)
    for (Eigen::Index j = 0; j < cells.cols(); ++j)
      if (cells(i, j) != 0.0 && cells(i, j) != 1.0)
        fail(field + "[" + std::to_string(i) + "][" + std::to_string(j) + "]",
             "expected 0 or 1, got " + numeric[i][j].dump());
  return cells;
}

std::vector<std::string> read_labels(const json& value, const std::string& field) {
  if (!value.is_array()) fail(field, "expected an array of strings, got " + describe(value));
  if (value.size() > static_cast<std::size_t>(limits::max_tokens))
    fail(field, "expected at most " + std::to_string(limits::max_tokens) + " labels, got " +
                    std::to_string(value.size()));
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < value.size(); ++i)
    labels.push_back(read_string(value[i], field + "[" + std::to_string(i) + "]"));
  return labels;
}

int read_positive_int(const json& value, const std::string& field, int max) {
  const std::string expected = "expected a whole number from 1 to " + std::to_string(max) + ", got ";
  if (!value.is_number()) fail(field, expected + describe(value));
  const double x = value.get<double>();
  if (!std::isfinite(x) || x != std::floor(x) || x < 1 || x > max) fail(field, expected + value.dump());
  return static_cast<int>(x);
}

Scale read_scale(const json& value) {
  Scale scale;
  if (value.is_string()) {
    const std::string word = value.get<std::string>();
    if (word == "inv_sqrt_dk") return scale;
    if (word == "none") return Scale{Scale::Kind::none, 1.0};
    fail("scale", "expected \"inv_sqrt_dk\", \"none\" or a positive number, got " + describe(value));
  }
  if (!value.is_number())
    fail("scale", "expected \"inv_sqrt_dk\", \"none\" or a positive number, got " + describe(value));
  const double x = read_number(value, "scale");
  if (!(x > 0) || x > limits::max_scale)
    fail("scale", "expected a positive number up to 1e12, got " + value.dump());
  return Scale{Scale::Kind::value, x};
}

std::vector<int> read_padding(const json& value) {
  if (!value.is_array()) fail("mask.padding", "expected an array of context token indices, got " + describe(value));
  if (value.size() > static_cast<std::size_t>(limits::max_tokens))
    fail("mask.padding", "expected at most " + std::to_string(limits::max_tokens) + " indices");
  std::vector<int> padding;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string field = "mask.padding[" + std::to_string(i) + "]";
    const json& j = value[i];
    const bool whole = j.is_number() && std::isfinite(j.get<double>()) && j.get<double>() == std::floor(j.get<double>());
    if (!whole || j.get<double>() < 0 || j.get<double>() >= limits::max_tokens)
      fail(field, "expected a context token index (a whole number from 0), got " + describe(j));
    padding.push_back(static_cast<int>(j.get<double>()));
  }
  return padding;
}

MaskSpec read_mask(const json& value) {
  MaskSpec mask;
  if (value.is_string()) {
    const std::string word = value.get<std::string>();
    if (word == "none") return mask;
    if (word == "causal") { mask.causal = true; return mask; }
    fail("mask", "expected \"none\", \"causal\", a 0/1 matrix or an object, got " + describe(value));
  }
  if (value.is_array()) { mask.cells = read_mask_cells(value, "mask"); return mask; }
  if (!value.is_object())
    fail("mask", "expected \"none\", \"causal\", a 0/1 matrix or an object, got " + describe(value));
  check_keys(value, {"causal", "padding", "cells"}, "mask.");
  if (value.contains("causal")) {
    if (!value["causal"].is_boolean()) fail("mask.causal", "expected true or false, got " + describe(value["causal"]));
    mask.causal = value["causal"].get<bool>();
  }
  if (value.contains("padding")) mask.padding = read_padding(value["padding"]);
  if (value.contains("cells")) mask.cells = read_mask_cells(value["cells"], "mask.cells");
  return mask;
}

const std::set<std::string> kProjectionKeys = {"W_q", "W_k", "W_v", "b_q", "b_k", "b_v"};

Projections read_projections(const json& object, const std::string& prefix) {
  Projections p;
  auto matrix = [&](const char* key, std::optional<Matrix>& out) {
    if (object.contains(key)) out = read_matrix(object[key], prefix + key);
  };
  auto vector = [&](const char* key, std::optional<Vector>& out) {
    if (object.contains(key)) out = read_vector(object[key], prefix + key);
  };
  matrix("W_q", p.W_q); matrix("W_k", p.W_k); matrix("W_v", p.W_v);
  vector("b_q", p.b_q); vector("b_k", p.b_k); vector("b_v", p.b_v);
  return p;
}

std::vector<Projections> read_heads(const json& value) {
  if (!value.is_array()) fail("heads", "expected an array of head objects, got " + describe(value));
  if (value.empty()) fail("heads", "expected at least one head, got an empty array");
  if (value.size() > static_cast<std::size_t>(limits::max_heads))
    fail("heads", "expected at most " + std::to_string(limits::max_heads) + " heads, got " + std::to_string(value.size()));
  std::vector<Projections> heads;
  for (std::size_t h = 0; h < value.size(); ++h) {
    const std::string prefix = "heads[" + std::to_string(h) + "].";
    if (!value[h].is_object()) fail("heads[" + std::to_string(h) + "]", "expected an object, got " + describe(value[h]));
    check_keys(value[h], kProjectionKeys, prefix);
    heads.push_back(read_projections(value[h], prefix));
  }
  return heads;
}

Layout read_layout(const json& value) {
  const std::string word = read_string(value, "layout");
  if (word == "rows") return Layout::rows;
  if (word == "columns") return Layout::columns;
  fail("layout", "expected \"rows\" or \"columns\", got " + describe(value));
}

void read_heads_or_full(const json& doc, Scenario& s) {
  const bool has_full = std::any_of(kProjectionKeys.begin(), kProjectionKeys.end(),
                                    [&](const std::string& k) { return doc.contains(k); });
  if (doc.contains("num_heads")) s.num_heads = read_positive_int(doc["num_heads"], "num_heads", limits::max_heads);
  if (!doc.contains("heads")) {
    s.full = read_projections(doc, "");
    return;
  }
  if (has_full) fail("heads", "give either heads or the full matrices (W_q, W_k, W_v, b_q, b_k, b_v), not both");
  s.heads = read_heads(doc["heads"]);
  if (doc.contains("num_heads") && s.num_heads != static_cast<int>(s.heads.size()))
    fail("num_heads", "expected " + std::to_string(s.heads.size()) + " (the number of entries in heads), got " +
                          std::to_string(s.num_heads));
  s.num_heads = static_cast<int>(s.heads.size());
}

/// Depth of nesting outside strings, so a hostile file cannot exhaust the stack.
void check_depth(const std::string& text) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > limits::max_json_depth)
        fail("(file)", "expected JSON nested at most " + std::to_string(limits::max_json_depth) + " levels deep, got deeper");
    } else if (c == ']' || c == '}') --depth;
  }
}

bool is_number_char(char c) { return std::isdigit(static_cast<unsigned char>(c)) || std::strchr("+-.eE", c); }

/// Replaces every occurrence of the number literal `literal` outside strings with a marked string.
bool mark_overflowing_literal(std::string& text, const std::string& literal) {
  bool in_string = false, escaped = false, replaced = false;
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (text.compare(i, literal.size(), literal) == 0 && (i == 0 || !is_number_char(text[i - 1])) &&
               (i + literal.size() == text.size() || !is_number_char(text[i + literal.size()]))) {
      out += std::string("\"") + "\\u0001attnlab:out-of-range:" + literal + "\"";
      i += literal.size() - 1;
      replaced = true;
      continue;
    }
    out += c;
  }
  text.swap(out);
  return replaced;
}

/// nlohmann's message without its "[json.exception...]" prefix.
std::string parse_error_text(const json::parse_error& e) {
  std::string what = e.what();
  const auto pos = what.find("] ");
  if (pos != std::string::npos) what = what.substr(pos + 2);
  return what;
}

}  // namespace

Scenario scenario_from_json(const json& doc) {
  if (!doc.is_object()) fail("(file)", "expected a JSON object at the top level, got " + describe(doc));
  check_keys(doc, {"format", "title", "notes", "layout", "tokens", "context_tokens", "X", "Z", "W_q", "W_k", "W_v",
                   "b_q", "b_k", "b_v", "num_heads", "heads", "W_o", "b_o", "scale", "mask", "view"},
             "");
  if (doc.contains("format") && read_string(doc["format"], "format") != kFormat)
    fail("format", std::string("expected \"") + kFormat + "\", got " + describe(doc["format"]));
  Scenario s;
  if (doc.contains("title")) s.title = read_string(doc["title"], "title");
  if (doc.contains("notes")) s.notes = read_string(doc["notes"], "notes");
  if (doc.contains("layout")) s.layout = read_layout(doc["layout"]);
  if (doc.contains("tokens")) s.tokens = read_labels(doc["tokens"], "tokens");
  if (doc.contains("context_tokens")) s.context_tokens = read_labels(doc["context_tokens"], "context_tokens");
  if (!doc.contains("X")) fail("X", "expected the token embeddings (a matrix), got nothing");
  s.X = read_matrix(doc["X"], "X");
  if (doc.contains("Z")) s.Z = read_matrix(doc["Z"], "Z");
  read_heads_or_full(doc, s);
  if (doc.contains("W_o")) s.W_o = read_matrix(doc["W_o"], "W_o");
  if (doc.contains("b_o")) s.b_o = read_vector(doc["b_o"], "b_o");
  if (doc.contains("scale")) s.scale = read_scale(doc["scale"]);
  if (doc.contains("mask")) s.mask = read_mask(doc["mask"]);
  if (doc.contains("view")) {
    if (!doc["view"].is_object()) fail("view", "expected an object, got " + describe(doc["view"]));
    s.view = doc["view"];
  }
  return s;
}

Scenario scenario_from_string(const std::string& text) {
  if (text.size() > limits::max_file_bytes)
    fail("(file)", "expected at most " + std::to_string(limits::max_file_bytes >> 20) + " MiB, got " +
                       std::to_string(text.size() >> 20) + " MiB");
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) fail("(file)", "expected a JSON object, got an empty file");
  if (text.find('\0') != std::string::npos) fail("(file)", "expected JSON text, got a NUL byte (a binary file?)");
  check_depth(text);
  std::string marked = text;
  for (int round = 0;; ++round) {
    try {
      return scenario_from_json(json::parse(marked));
    } catch (const json::parse_error& e) {
      fail("(file)", "not valid JSON: " + parse_error_text(e));
    } catch (const json::out_of_range& e) {  // 406: a number literal beyond double's range
      const std::string what = e.what();
      const auto open = what.find("parsing '"), close = what.rfind('\'');
      if (e.id != 406 || open == std::string::npos || close <= open + 9 || round >= 16)
        fail("(file)", "expected numbers within double range, got " + what.substr(what.find("] ") + 2));
      if (!mark_overflowing_literal(marked, what.substr(open + 9, close - open - 9)))
        fail("(file)", "expected numbers within double range, got " + what.substr(open + 9, close - open - 9));
    } catch (const json::exception& e) {
      fail("(file)", std::string("not valid JSON: ") + e.what());
    }
  }
}

std::string read_text_file(const std::string& path, std::size_t max_bytes) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) fail(path, std::string("cannot open: ") + std::strerror(errno));
  if (S_ISDIR(info.st_mode)) fail(path, "cannot open: it is a directory");
  if (S_ISREG(info.st_mode) && static_cast<std::size_t>(info.st_size) > max_bytes)
    fail(path, "expected at most " + std::to_string(max_bytes >> 20) + " MiB, got " +
                   std::to_string(static_cast<std::size_t>(info.st_size) >> 20) + " MiB");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, std::string("cannot open: ") + std::strerror(errno));
  std::string text;
  char buffer[65536];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes) fail(path, "expected at most " + std::to_string(max_bytes >> 20) + " MiB");
  }
  return text;
}

Scenario load_scenario(const std::string& path) {
  return scenario_from_string(read_text_file(path, limits::max_file_bytes));
}

namespace {

json matrix_json(const Matrix& m) {
  json rows = json::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    json row = json::array();
    for (Eigen::Index j = 0; j < m.cols(); ++j) row.push_back(m(i, j));
    rows.push_back(std::move(row));
  }
  return rows;
}

json vector_json(const Vector& v) { return json(std::vector<double>(v.data(), v.data() + v.size())); }

void write_projections(const Projections& p, json& out) {
  if (p.W_q) out["W_q"] = matrix_json(*p.W_q);
  if (p.W_k) out["W_k"] = matrix_json(*p.W_k);
  if (p.W_v) out["W_v"] = matrix_json(*p.W_v);
  if (p.b_q) out["b_q"] = vector_json(*p.b_q);
  if (p.b_k) out["b_k"] = vector_json(*p.b_k);
  if (p.b_v) out["b_v"] = vector_json(*p.b_v);
}

json mask_json(const MaskSpec& mask) {
  if (mask.empty()) return "none";
  if (mask.causal && mask.padding.empty() && !mask.cells) return "causal";
  if (!mask.causal && mask.padding.empty()) return matrix_json(*mask.cells);
  json object = {{"causal", mask.causal}};
  if (!mask.padding.empty()) object["padding"] = mask.padding;
  if (mask.cells) object["cells"] = matrix_json(*mask.cells);
  return object;
}

json scale_json(const Scale& scale) {
  switch (scale.kind) {
    case Scale::Kind::none: return "none";
    case Scale::Kind::value: return scale.value;
    default: return "inv_sqrt_dk";
  }
}

}  // namespace

json scenario_to_json(const Scenario& s) {
  json doc = {{"format", kFormat}, {"title", s.title}, {"notes", s.notes}, {"layout", layout_name(s.layout)}};
  if (!s.tokens.empty()) doc["tokens"] = s.tokens;
  if (!s.context_tokens.empty()) doc["context_tokens"] = s.context_tokens;
  doc["X"] = matrix_json(s.X);
  if (s.Z) doc["Z"] = matrix_json(*s.Z);
  if (s.per_head()) {
    json heads = json::array();
    for (const Projections& p : s.heads) {
      json head = json::object();
      write_projections(p, head);
      heads.push_back(std::move(head));
    }
    doc["heads"] = std::move(heads);
  } else {
    doc["num_heads"] = s.num_heads;
    write_projections(s.full, doc);
  }
  if (s.W_o) doc["W_o"] = matrix_json(*s.W_o);
  if (s.b_o) doc["b_o"] = vector_json(*s.b_o);
  doc["scale"] = scale_json(s.scale);
  doc["mask"] = mask_json(s.mask);
  if (!s.view.empty()) doc["view"] = s.view;
  return doc;
}

void write_file_atomically(const std::string& path, const std::string& contents) {
  const std::string temp = path + ".tmp-" + std::to_string(::getpid());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw std::runtime_error(path + ": cannot write: " + std::strerror(errno));
  std::size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      throw std::runtime_error(path + ": cannot write: " + std::strerror(error));
    }
    written += static_cast<std::size_t>(n);
  }
  const bool synced = ::fsync(fd) == 0;
  const int sync_error = errno;
  if (::close(fd) != 0 || !synced) {
    ::unlink(temp.c_str());
    throw std::runtime_error(path + ": cannot write: " + std::strerror(synced ? errno : sync_error));
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    throw std::runtime_error(path + ": cannot replace: " + std::strerror(error));
  }
}

void save_scenario(const Scenario& scenario, const std::string& path) {
  write_file_atomically(path, scenario_to_json(scenario).dump(2) + "\n");
}

}  // namespace attnlab
