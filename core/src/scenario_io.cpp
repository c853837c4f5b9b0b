#include "attnlab/scenario_io.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attnlab/decode.h"
#include "attnlab/lesson.h"
#include "attnlab/limits.h"
#include "attnlab/message_text.h"
#include "json_matrices.h"

namespace attnlab {

using nlohmann::json;

namespace {

constexpr const char* kFormat = "attnlab/1";

/// A key as it appears in a field path: as is when it is a plain name, quoted otherwise.
std::string key_text(const std::string& key) {
  const bool plain = !key.empty() && key.size() <= 40 &&
                     std::all_of(key.begin(), key.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
  return plain ? key : "\"" + prefix_excerpt(key, 40) + "\"";
}

/// A short description of a JSON value for "got ..." in messages.
std::string describe(const json& value) {
  switch (value.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return value.get<bool>() ? "true" : "false";
    case json::value_t::string: return "string \"" + prefix_excerpt(value.get<std::string>(), 24) + "\"";
    case json::value_t::array: return "an array of " + std::to_string(value.size());
    case json::value_t::object: return "an object";
    case json::value_t::discarded: return "nothing";
    default: return prefix_excerpt(value.dump(), 24);
  }
}

/// view.model.head, the head whose map was clicked to open a model's layer (the window selects it
/// again on opening). Like a lesson's heads, one an edit has since removed is not refused (the
/// window then selects head 0), so that a file saved with fewer heads still opens.
void read_model_head(const Scenario& s) {
  const auto model = s.view.find("model");
  if (model == s.view.end() || !model->is_object() || !model->contains("head")) return;
  const json& head = (*model)["head"];
  if (!head.is_number_integer() || head.get<long long>() < 0 || head.get<long long>() > 255)
    refuse("view.model.head", "expected a head from 0 (the first) to 255, got " + describe(head));
}

std::string lowercase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// Edit distance (insertions, deletions, substitutions, adjacent swaps), for "did you mean".
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

/// Refuses keys outside `known`; suggests the key that differs only by case (W_Q -> W_q) or by a
/// typo of at most two letters (casual -> causal).
void check_keys(const json& object, const std::set<std::string>& known, const std::string& path) {
  for (const auto& item : object.items()) {
    if (known.count(item.key())) continue;
    std::string best;
    std::size_t best_distance = 3;
    if (item.key().size() <= 40)
      for (const std::string& k : known) {
        const std::size_t distance = lowercase(k) == lowercase(item.key()) ? 0 : edit_distance(lowercase(k), lowercase(item.key()));
        if (distance < best_distance && distance < k.size()) best = k, best_distance = distance;
      }
    refuse(path + key_text(item.key()), best.empty() ? "unknown key" : "unknown key (did you mean \"" + best + "\"?)");
  }
}

double read_number(const json& value, const std::string& field) {
  if (!value.is_number()) refuse(field, "expected a number, got " + describe(value));
  double x = value.get<double>();
  if (!std::isfinite(x)) refuse(field, "expected a finite number, got a number out of double range");
  return x;
}

std::string read_string(const json& value, const std::string& field) {
  if (!value.is_string()) refuse(field, "expected a string, got " + describe(value));
  return value.get<std::string>();
}

Matrix read_matrix(const json& value, const std::string& field) {
  if (!value.is_array()) refuse(field, "expected a matrix (an array of rows), got " + describe(value));
  if (value.empty()) refuse(field, "expected a non-empty matrix, got an empty array");
  const json& first = value.front();
  if (!first.is_array())
    refuse(field + "[0]", "expected a row (an array of numbers), got " + describe(first));
  if (first.empty()) refuse(field + "[0]", "expected a non-empty row, got an empty array");
  // No size limit here: the JSON value limit bounds memory, and resolve() names the token or
  // width limit a matrix breaks.
  const std::size_t rows = value.size(), cols = first.size();
  // Every row is checked before allocating, so rows x cols is backed by numbers actually in the file.
  for (std::size_t i = 0; i < rows; ++i) {
    const std::string row_field = field + "[" + std::to_string(i) + "]";
    const json& row = value[i];
    if (!row.is_array()) refuse(row_field, "expected a row (an array of numbers), got " + describe(row));
    if (row.size() != cols)
      refuse(row_field, "expected " + std::to_string(cols) + " numbers like row 0 (a rectangular matrix), got " +
                          std::to_string(row.size()));
  }
  Matrix m(rows, cols);
  for (std::size_t i = 0; i < rows; ++i) {
    const json& row = value[i];
    for (std::size_t j = 0; j < cols; ++j) {
      // The field is named only when it is wrong: building it for each of a layer's 2.4 million
      // numbers cost more than reading them.
      const json& x = row[j];
      const double* number = x.is_number_float() ? x.get_ptr<const json::number_float_t*>() : nullptr;
      m(i, j) = number && std::isfinite(*number)
                    ? *number
                    : read_number(x, field + "[" + std::to_string(i) + "][" + std::to_string(j) + "]");
    }
  }
  return m;
}

/// Where the matrices at the fields find_text_matrices knows come from: the document, or the text
/// (each taken matrix stands as null in the document built from the rest of the text).
class MatrixSource {
 public:
  MatrixSource() = default;
  explicit MatrixSource(std::vector<TextMatrix> taken) {
    for (TextMatrix& m : taken) taken_.emplace(m.field, std::move(m.matrix));
  }
  Matrix read(const json& value, const std::string& field) {
    const auto it = taken_.find(field);
    if (it == taken_.end()) return read_matrix(value, field);
    // Not the null put in its place: the text was not what its scan took it for, and the
    // general reader (the caller's fallback) reads it again and says what is wrong.
    if (!value.is_null()) refuse(field, "not the matrix found in the text");
    Matrix m = std::move(it->second);
    taken_.erase(it);
    return m;
  }
  /// Every matrix taken from the text was read where the text had it.
  bool AllRead() const { return taken_.empty(); }

 private:
  std::map<std::string, Matrix> taken_;
};

Vector read_vector(const json& value, const std::string& field) {
  if (!value.is_array()) refuse(field, "expected a vector (an array of numbers), got " + describe(value));
  if (value.empty()) refuse(field, "expected a non-empty vector, got an empty array");
  if (value.size() > static_cast<std::size_t>(limits::max_width))
    refuse(field, "expected at most " + std::to_string(limits::max_width) + " numbers, got " +
                    std::to_string(value.size()));
  Vector v(value.size());
  for (std::size_t i = 0; i < value.size(); ++i) {
    const json& x = value[i];
    const double* number = x.is_number_float() ? x.get_ptr<const json::number_float_t*>() : nullptr;
    v(i) = number && std::isfinite(*number) ? *number : read_number(x, field + "[" + std::to_string(i) + "]");
  }
  return v;
}

/// 0/1 matrix (numbers 0 or 1, or booleans).
Matrix read_mask_cells(const json& value, const std::string& field) {
  if (!value.is_array()) refuse(field, "expected a 0/1 matrix (an array of rows), got " + describe(value));
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
        refuse(field + "[" + std::to_string(i) + "][" + std::to_string(j) + "]",
             "expected 0 or 1, got " + numeric[i][j].dump());
  return cells;
}

std::vector<std::string> read_labels(const json& value, const std::string& field) {
  if (!value.is_array()) refuse(field, "expected an array of strings, got " + describe(value));
  if (value.size() > static_cast<std::size_t>(limits::max_tokens))
    refuse(field, "expected at most " + std::to_string(limits::max_tokens) + " labels, got " +
                    std::to_string(value.size()));
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < value.size(); ++i)
    labels.push_back(read_string(value[i], field + "[" + std::to_string(i) + "]"));
  return labels;
}

int read_positive_int(const json& value, const std::string& field, int max) {
  const std::string expected = "expected a whole number from 1 to " + std::to_string(max) + ", got ";
  if (!value.is_number()) refuse(field, expected + describe(value));
  const double x = value.get<double>();
  if (!std::isfinite(x) || x != std::floor(x) || x < 1 || x > max) refuse(field, expected + value.dump());
  return static_cast<int>(x);
}

Scale read_scale(const json& value) {
  Scale scale;
  if (value.is_string()) {
    const std::string word = value.get<std::string>();
    if (word == "inv_sqrt_dk") return scale;
    if (word == "none") return Scale{Scale::Kind::none, 1.0};
    refuse("scale", "expected \"inv_sqrt_dk\", \"none\" or a positive number, got " + describe(value));
  }
  if (!value.is_number())
    refuse("scale", "expected \"inv_sqrt_dk\", \"none\" or a positive number, got " + describe(value));
  const double x = read_number(value, "scale");
  if (!(x > 0) || x > limits::max_scale)
    refuse("scale", "expected a positive number up to 1e12, got " + value.dump());
  return Scale{Scale::Kind::value, x};
}

std::vector<int> read_padding(const json& value) {
  if (!value.is_array()) refuse("mask.padding", "expected an array of context token indices, got " + describe(value));
  if (value.size() > static_cast<std::size_t>(limits::max_tokens))
    refuse("mask.padding", "expected at most " + std::to_string(limits::max_tokens) + " indices");
  std::vector<int> padding;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string field = "mask.padding[" + std::to_string(i) + "]";
    const json& j = value[i];
    const bool whole = j.is_number() && std::isfinite(j.get<double>()) && j.get<double>() == std::floor(j.get<double>());
    if (!whole || j.get<double>() < 0 || j.get<double>() >= limits::max_tokens)
      refuse(field, "expected a context token index (a whole number from 0), got " + describe(j));
    padding.push_back(static_cast<int>(j.get<double>()));
  }
  return padding;
}

int read_sinks(const json& value) {
  const std::string expected = "expected a whole number of sink keys from 0 to " + std::to_string(limits::max_tokens) + ", got ";
  if (!value.is_number()) refuse("mask.sinks", expected + describe(value));
  const double x = value.get<double>();
  if (!std::isfinite(x) || x != std::floor(x) || x < 0 || x > limits::max_tokens) refuse("mask.sinks", expected + value.dump());
  return static_cast<int>(x);
}

MaskSpec read_mask(const json& value) {
  MaskSpec mask;
  if (value.is_string()) {
    const std::string word = value.get<std::string>();
    if (word == "none") return mask;
    if (word == "causal") { mask.causal = true; return mask; }
    refuse("mask", "expected \"none\", \"causal\", a 0/1 matrix or an object, got " + describe(value));
  }
  if (value.is_array()) { mask.cells = read_mask_cells(value, "mask"); return mask; }
  if (!value.is_object())
    refuse("mask", "expected \"none\", \"causal\", a 0/1 matrix or an object, got " + describe(value));
  check_keys(value, {"causal", "padding", "cells", "window", "sinks"}, "mask.");
  if (value.contains("causal")) {
    if (!value["causal"].is_boolean()) refuse("mask.causal", "expected true or false, got " + describe(value["causal"]));
    mask.causal = value["causal"].get<bool>();
  }
  if (value.contains("window")) mask.window = read_positive_int(value["window"], "mask.window", limits::max_position + 1);
  if (value.contains("sinks")) mask.sinks = read_sinks(value["sinks"]);
  if (value.contains("padding")) mask.padding = read_padding(value["padding"]);
  if (value.contains("cells")) mask.cells = read_mask_cells(value["cells"], "mask.cells");
  return mask;
}

const std::set<std::string> kProjectionKeys = {"W_q", "W_k", "W_v", "b_q", "b_k", "b_v"};

Projections read_projections(const json& object, const std::string& prefix, MatrixSource& matrices) {
  Projections p;
  auto matrix = [&](const char* key, std::optional<Matrix>& out) {
    if (object.contains(key)) out = matrices.read(object[key], prefix + key);
  };
  auto vector = [&](const char* key, std::optional<Vector>& out) {
    if (object.contains(key)) out = read_vector(object[key], prefix + key);
  };
  matrix("W_q", p.W_q); matrix("W_k", p.W_k); matrix("W_v", p.W_v);
  vector("b_q", p.b_q); vector("b_k", p.b_k); vector("b_v", p.b_v);
  return p;
}

std::vector<Projections> read_heads(const json& value, bool grouped, MatrixSource& matrices) {
  if (!value.is_array()) refuse("heads", "expected an array of head objects, got " + describe(value));
  if (value.empty()) refuse("heads", "expected at least one head, got an empty array");
  if (value.size() > static_cast<std::size_t>(limits::max_heads))
    refuse("heads", "expected at most " + std::to_string(limits::max_heads) + " heads, got " + std::to_string(value.size()));
  std::vector<Projections> heads;
  for (std::size_t h = 0; h < value.size(); ++h) {
    const std::string prefix = "heads[" + std::to_string(h) + "].";
    if (!value[h].is_object()) refuse("heads[" + std::to_string(h) + "]", "expected an object, got " + describe(value[h]));
    if (grouped) check_keys(value[h], {"W_q", "b_q"}, prefix);  // keys and values are in kv_heads
    else check_keys(value[h], kProjectionKeys, prefix);
    heads.push_back(read_projections(value[h], prefix, matrices));
  }
  return heads;
}

Layout read_layout(const json& value) {
  const std::string word = read_string(value, "layout");
  if (word == "rows") return Layout::rows;
  if (word == "columns") return Layout::columns;
  refuse("layout", "expected \"rows\" or \"columns\", got " + describe(value));
}

/// Positions: whole numbers from 0 to 1,000,000, in any order, repeats allowed.
std::vector<int> read_positions(const json& value, const std::string& field) {
  if (!value.is_array()) refuse(field, "expected an array of token positions, got " + describe(value));
  if (value.empty()) refuse(field, "expected one position per token, got an empty array");
  if (value.size() > static_cast<std::size_t>(limits::max_tokens))
    refuse(field, "expected at most " + std::to_string(limits::max_tokens) + " positions, got " + std::to_string(value.size()));
  std::vector<int> positions;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const json& p = value[i];
    const bool whole = p.is_number() && std::isfinite(p.get<double>()) && p.get<double>() == std::floor(p.get<double>());
    if (!whole || p.get<double>() < 0 || p.get<double>() > limits::max_position)
      refuse(field + "[" + std::to_string(i) + "]",
           "expected a position, a whole number from 0 to " + std::to_string(limits::max_position) + ", got " + describe(p));
    positions.push_back(static_cast<int>(p.get<double>()));
  }
  return positions;
}

/// A list of longrope factors, one per pair (resolve() checks the count and each value).
std::vector<double> read_factors(const json& value, const std::string& field) {
  const Vector v = read_vector(value, field);
  return std::vector<double>(v.data(), v.data() + v.size());
}

/// rope.scaling: {"type": "linear" | "llama3" | "longrope", and that type's numbers}. resolve()
/// checks the values against each other and against R.
RopeScaling read_rope_scaling(const json& value) {
  const std::string field = "rope.scaling";
  if (!value.is_object()) refuse(field, "expected an object {\"type\", ...}, got " + describe(value));
  if (!value.contains("type")) refuse(field + ".type", "expected \"linear\", \"llama3\" or \"longrope\", got nothing");
  const std::string type = read_string(value["type"], field + ".type");
  RopeScaling s;
  if (type == "linear") s.kind = RopeScaling::Kind::linear, check_keys(value, {"type", "factor"}, field + ".");
  else if (type == "llama3")
    s.kind = RopeScaling::Kind::llama3,
    check_keys(value, {"type", "factor", "low_freq_factor", "high_freq_factor", "original_positions"}, field + ".");
  else if (type == "longrope")
    s.kind = RopeScaling::Kind::longrope,
    check_keys(value, {"type", "original_positions", "short_factors", "long_factors", "attention_factor"}, field + ".");
  else refuse(field + ".type", "expected \"linear\", \"llama3\" or \"longrope\", got " + describe(value["type"]));
  const auto number = [&](const char* key, double& out) {
    if (value.contains(key)) out = read_number(value[key], field + "." + key);
  };
  number("factor", s.factor);
  number("low_freq_factor", s.low_freq_factor);
  number("high_freq_factor", s.high_freq_factor);
  number("original_positions", s.original_positions);
  number("attention_factor", s.attention_factor);
  if (s.kind == RopeScaling::Kind::longrope)
    for (const char* key : {"short_factors", "long_factors"}) {
      if (!value.contains(key)) refuse(field + "." + key, "expected one factor per pair (R/2 numbers), got nothing");
      (key[0] == 's' ? s.short_factors : s.long_factors) = read_factors(value[key], field + "." + key);
    }
  return s;
}

/// qk_norm: {"scope": "head" | "width", "plus_one", "eps", "w_q", "w_k"} (each optional; omitted
/// weights: a gain of 1). resolve() checks the weights' lengths.
QkNorm read_qk_norm(const json& value) {
  if (!value.is_object())
    refuse("qk_norm", "expected an object {\"scope\", \"plus_one\", \"eps\", \"w_q\", \"w_k\"} (each optional), got " +
                          describe(value));
  check_keys(value, {"scope", "plus_one", "eps", "w_q", "w_k"}, "qk_norm.");
  QkNorm norm;
  if (value.contains("scope")) {
    const std::string scope = read_string(value["scope"], "qk_norm.scope");
    if (scope == "width") norm.scope = QkNorm::Scope::width;
    else if (scope != "head") refuse("qk_norm.scope", "expected \"head\" or \"width\", got " + describe(value["scope"]));
  }
  if (value.contains("plus_one")) {
    if (!value["plus_one"].is_boolean()) refuse("qk_norm.plus_one", "expected true or false, got " + describe(value["plus_one"]));
    norm.plus_one = value["plus_one"].get<bool>();
  }
  if (value.contains("eps")) norm.eps = read_number(value["eps"], "qk_norm.eps");
  if (value.contains("w_q")) norm.w_q = read_vector(value["w_q"], "qk_norm.w_q");
  if (value.contains("w_k")) norm.w_k = read_vector(value["w_k"], "qk_norm.w_k");
  return norm;
}

/// softcap: a positive number, or 0 for none (resolve() checks its range).
double read_softcap(const json& value) {
  const double cap = read_number(value, "softcap");
  if (cap < 0) refuse("softcap", "expected a positive number (or 0: none), got " + value.dump());
  return cap;
}

Rope read_rope(const json& value) {
  if (!value.is_object())
    refuse("rope", "expected an object {\"style\", \"base\", \"dims\", \"scaling\"} (each optional), got " + describe(value));
  check_keys(value, {"style", "base", "dims", "scaling"}, "rope.");
  Rope rope;
  if (value.contains("style")) {
    const std::string style = read_string(value["style"], "rope.style");
    if (style == "interleaved") rope.style = Rope::Style::interleaved;
    else if (style != "half") refuse("rope.style", "expected \"half\" or \"interleaved\", got " + describe(value["style"]));
  }
  if (value.contains("base")) {
    rope.base = read_number(value["base"], "rope.base");
    if (!(rope.base > 1) || rope.base > limits::max_rope_base)
      refuse("rope.base", std::string("expected ") + limits::rope_base_range + ", got " + value["base"].dump());
  }
  if (value.contains("dims")) {
    rope.dims = read_positive_int(value["dims"], "rope.dims", limits::max_width);
    if (rope.dims % 2 != 0) refuse("rope.dims", "expected an even number (coordinates rotate in pairs), got " + std::to_string(rope.dims));
  }
  if (value.contains("scaling")) rope.scaling = read_rope_scaling(value["scaling"]);
  return rope;
}

Alibi read_alibi(const json& value) {
  if (value.is_boolean()) {
    if (!value.get<bool>()) refuse("alibi", "expected true or an array of slopes (omit the key for none), got false");
    return Alibi{};
  }
  if (!value.is_array()) refuse("alibi", "expected true or an array of slopes (one per query head), got " + describe(value));
  if (value.empty()) refuse("alibi", "expected one slope per query head, got an empty array");
  if (value.size() > static_cast<std::size_t>(limits::max_heads))
    refuse("alibi", "expected at most " + std::to_string(limits::max_heads) + " slopes, got " + std::to_string(value.size()));
  Alibi alibi;
  for (std::size_t h = 0; h < value.size(); ++h) {
    const std::string field = "alibi[" + std::to_string(h) + "]";
    const double m = read_number(value[h], field);
    if (m < 0) refuse(field, "expected a slope of 0 or more, got " + value[h].dump());
    alibi.slopes.push_back(m);
  }
  return alibi;
}

PositionalEncoding read_encoding(const json& value) {
  const std::string word = read_string(value, "positional_encoding");
  if (word == "sinusoidal") return PositionalEncoding::sinusoidal;
  if (word != "none") refuse("positional_encoding", "expected \"none\" or \"sinusoidal\", got " + describe(value));
  return PositionalEncoding::none;
}

/// `heads_off`: query heads (0-based) whose output is zeroed; resolve() checks them against H.
std::vector<int> read_heads_off(const json& value) {
  if (!value.is_array()) refuse("heads_off", "expected an array of query head indices, got " + describe(value));
  if (value.size() > std::size_t(limits::max_heads))
    refuse("heads_off", "expected at most " + std::to_string(limits::max_heads) + " heads, got " + std::to_string(value.size()));
  std::vector<int> heads;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const json& h = value[i];
    if (!h.is_number_integer() || h.get<long long>() < 0 || h.get<long long>() >= limits::max_heads)
      refuse("heads_off[" + std::to_string(i) + "]", "expected a query head index (a whole number from 0), got " + describe(h));
    heads.push_back(h.get<int>());
  }
  return heads;
}

void read_positional(const json& doc, Scenario& s) {
  if (doc.contains("positions")) s.positions = read_positions(doc["positions"], "positions");
  if (doc.contains("context_positions")) s.context_positions = read_positions(doc["context_positions"], "context_positions");
  if (doc.contains("rope")) s.rope = read_rope(doc["rope"]);
  if (doc.contains("alibi")) s.alibi = read_alibi(doc["alibi"]);
  if (doc.contains("qk_norm")) s.qk_norm = read_qk_norm(doc["qk_norm"]);
  if (doc.contains("softcap")) s.softcap = read_softcap(doc["softcap"]);
  if (doc.contains("positional_encoding")) s.positional_encoding = read_encoding(doc["positional_encoding"]);
  if (doc.contains("heads_off")) s.heads_off = read_heads_off(doc["heads_off"]);
}

/// `kv_heads`: G objects of W_k, b_k, W_v, b_v; heads[h] then keep only W_q and b_q.
std::vector<Projections> read_kv_heads(const json& value, std::size_t query_heads, MatrixSource& matrices) {
  if (!value.is_array()) refuse("kv_heads", "expected an array of key/value head objects, got " + describe(value));
  if (value.empty()) refuse("kv_heads", "expected at least one key/value head, got an empty array");
  if (value.size() > query_heads)
    refuse("kv_heads", "expected at most " + std::to_string(query_heads) + " key/value heads (one per query head), got " +
                         std::to_string(value.size()));
  std::vector<Projections> kv;
  for (std::size_t g = 0; g < value.size(); ++g) {
    const std::string prefix = "kv_heads[" + std::to_string(g) + "].";
    if (!value[g].is_object()) refuse("kv_heads[" + std::to_string(g) + "]", "expected an object, got " + describe(value[g]));
    check_keys(value[g], {"W_k", "b_k", "W_v", "b_v"}, prefix);
    kv.push_back(read_projections(value[g], prefix, matrices));
  }
  return kv;
}

void read_heads_or_full(const json& doc, Scenario& s, MatrixSource& matrices) {
  const bool has_full = std::any_of(kProjectionKeys.begin(), kProjectionKeys.end(),
                                    [&](const std::string& k) { return doc.contains(k); });
  if (doc.contains("num_heads")) s.num_heads = read_positive_int(doc["num_heads"], "num_heads", limits::max_heads);
  if (doc.contains("num_kv_heads"))
    s.num_kv_heads = read_positive_int(doc["num_kv_heads"], "num_kv_heads", limits::max_heads);
  if (!doc.contains("heads")) {
    if (doc.contains("kv_heads")) refuse("kv_heads", "given without heads (per-head query weights); with full matrices "
                                                   "give num_kv_heads and W_k, W_v of G*d_k and G*d_v columns");
    s.full = read_projections(doc, "", matrices);
    return;
  }
  if (has_full) refuse("heads", "give either heads or the full matrices (W_q, W_k, W_v, b_q, b_k, b_v), not both");
  const bool grouped = doc.contains("kv_heads");
  s.heads = read_heads(doc["heads"], grouped, matrices);
  if (grouped) {
    s.kv_heads = read_kv_heads(doc["kv_heads"], s.heads.size(), matrices);
    if (doc.contains("num_kv_heads") && s.num_kv_heads != static_cast<int>(s.kv_heads.size()))
      refuse("num_kv_heads", "expected " + std::to_string(s.kv_heads.size()) + " (the number of entries in kv_heads), got " +
                               std::to_string(s.num_kv_heads));
    s.num_kv_heads = static_cast<int>(s.kv_heads.size());
  }
  if (doc.contains("num_heads") && s.num_heads != static_cast<int>(s.heads.size()))
    refuse("num_heads", "expected " + std::to_string(s.heads.size()) + " (the number of entries in heads), got " +
                          std::to_string(s.num_heads));
  s.num_heads = static_cast<int>(s.heads.size());
}

/// One pass over the text before any document is built, in constant memory per nesting level:
/// syntax, nesting depth, the number of values, duplicate keys and numbers beyond double range,
/// each reported with the path of the value (`X[0][1]`, `mask.cells`, `view.zoom`).
class Prescan {
 public:
  /// `values_elsewhere`: values of the file not in the text scanned (matrices read from it before).
  explicit Prescan(std::size_t values_elsewhere = 0) : values_(values_elsewhere) {}
  bool null() { return value(); }
  bool boolean(bool) { return value(); }
  bool number_integer(json::number_integer_t) { return value(); }
  bool number_unsigned(json::number_unsigned_t) { return value(); }
  bool number_float(json::number_float_t, const std::string&) { return value(); }
  bool string(std::string&) { return value(); }
  bool binary(json::binary_t&) { return value(); }
  bool start_object(std::size_t) { return open(false); }
  bool start_array(std::size_t) { return open(true); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(std::string& k) {
    Frame& f = frames_.back();
    if (!f.keys.insert(k).second) return stop(path() + key_suffix(k), "duplicate key (given twice in one object)");
    f.key = k;
    return count();
  }
  bool parse_error(std::size_t, const std::string& last_token, const nlohmann::detail::exception& e) {
    if (e.id == 406)  // a number literal beyond double's range
      return stop(path() + next_suffix(), "expected a finite number, got " + prefix_excerpt(last_token, 24) + " (out of double range)");
    // nlohmann quotes the token it was reading whole (a 1 MiB unterminated string): an excerpt
    // keeps the message one short line, the line and column stay.
    std::string what = e.what();
    const auto pos = what.find("] ");
    if (pos != std::string::npos) what.erase(0, pos + 2);
    const std::string quoted = "last read: '" + last_token + "'";
    const auto at = what.find(quoted);
    if (at != std::string::npos) what.replace(at, quoted.size(), "last read: '" + excerpt(last_token) + "'");
    return stop("(file)", "not valid JSON: " + what);
  }
  const std::string& error() const { return error_; }

 private:
  struct Frame {
    bool array = false;
    std::size_t index = 0;  ///< arrays: index of the next element
    std::string key;        ///< objects: the current key
    std::set<std::string> keys;
  };

  static std::string key_suffix(const std::string& key) { return "." + key_text(key); }
  std::string next_suffix() const {
    if (frames_.empty()) return "";
    const Frame& f = frames_.back();
    return f.array ? "[" + std::to_string(f.index) + "]" : key_suffix(f.key);
  }
  std::string path() const {
    std::string p;
    for (std::size_t i = 0; i + 1 < frames_.size(); ++i) {
      const Frame& f = frames_[i];
      p += f.array ? "[" + std::to_string(f.index) + "]" : key_suffix(f.key);
    }
    if (!p.empty() && p[0] == '.') p.erase(0, 1);
    return p;
  }
  bool stop(std::string field, const std::string& message) {
    if (!field.empty() && field[0] == '.') field.erase(0, 1);
    if (field.empty()) field = "(file)";
    error_ = field + ": " + message;
    return false;
  }
  bool count() {
    if (++values_ > limits::max_file_values)
      return stop("(file)", "expected at most " + std::to_string(limits::max_file_values) +
                                " JSON values (numbers, strings, keys, ...), got more");
    return true;
  }
  bool value() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
    return count();
  }
  bool open(bool array) {
    if (frames_.size() >= static_cast<std::size_t>(limits::max_json_depth))
      return stop("(file)", "expected JSON nested at most " + std::to_string(limits::max_json_depth) + " levels deep, got deeper");
    if (!count()) return false;
    frames_.push_back(Frame{array, 0, {}, {}});
    return true;
  }
  bool close() {
    frames_.pop_back();
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
    return true;
  }

  std::vector<Frame> frames_;
  std::size_t values_ = 0;
  std::string error_;
};

/// The document built in the same pass as the checks: each event is checked by the prescan before
/// the tree takes it, so nothing beyond the limits is ever built, and the text is read once (two
/// passes took 1.74 s for a GPT-2-small layer of 68 MB).
class CheckedDocument {
 public:
  CheckedDocument(json& doc, std::size_t values_elsewhere) : scan_(values_elsewhere), dom_(doc) {}
  bool null() { return scan_.null() && dom_.null(); }
  bool boolean(bool v) { return scan_.boolean(v) && dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return scan_.number_integer(v) && dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return scan_.number_unsigned(v) && dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const std::string& s) { return scan_.number_float(v, s) && dom_.number_float(v, s); }
  bool string(std::string& v) { return scan_.string(v) && dom_.string(v); }
  bool binary(json::binary_t& v) { return scan_.binary(v) && dom_.binary(v); }
  bool start_object(std::size_t n) { return scan_.start_object(n) && dom_.start_object(n); }
  bool start_array(std::size_t n) { return scan_.start_array(n) && dom_.start_array(n); }
  bool end_object() { return scan_.end_object() && dom_.end_object(); }
  bool end_array() { return scan_.end_array() && dom_.end_array(); }
  bool key(std::string& k) { return scan_.key(k) && dom_.key(k); }
  bool parse_error(std::size_t at, const std::string& last_token, const nlohmann::detail::exception& e) {
    return scan_.parse_error(at, last_token, e);
  }
  const std::string& error() const { return scan_.error(); }

 private:
  Prescan scan_;
  nlohmann::detail::json_sax_dom_parser<json> dom_;
};

}  // namespace

namespace {

Scenario read_scenario(const json& doc, MatrixSource& matrices) {
  if (!doc.is_object()) refuse("(file)", "expected a JSON object at the top level, got " + describe(doc));
  check_keys(doc, {"format", "title", "notes", "layout", "tokens", "context_tokens", "X", "Z", "W_q", "W_k", "W_v",
                   "b_q", "b_k", "b_v", "num_heads", "num_kv_heads", "heads", "kv_heads", "W_o", "b_o", "scale", "mask",
                   "positions", "context_positions", "rope", "alibi", "qk_norm", "softcap", "positional_encoding", "heads_off",
                   "view"},
             "");
  if (doc.contains("format") && read_string(doc["format"], "format") != kFormat)
    refuse("format", std::string("expected \"") + kFormat + "\", got " + describe(doc["format"]));
  Scenario s;
  if (doc.contains("title")) s.title = read_string(doc["title"], "title");
  if (doc.contains("notes")) s.notes = read_string(doc["notes"], "notes");
  if (doc.contains("layout")) s.layout = read_layout(doc["layout"]);
  if (doc.contains("tokens")) s.tokens = read_labels(doc["tokens"], "tokens");
  if (doc.contains("context_tokens")) s.context_tokens = read_labels(doc["context_tokens"], "context_tokens");
  if (!doc.contains("X")) refuse("X", "expected the token embeddings (a matrix), got nothing");
  s.X = matrices.read(doc["X"], "X");
  if (doc.contains("Z")) s.Z = matrices.read(doc["Z"], "Z");
  // An empty label list would read as "no labels given"; it is a count that does not match.
  if (doc.contains("tokens") && s.tokens.empty())
    refuse("tokens", "expected " + std::to_string(s.n_x()) + " labels (one per token of X), got 0");
  if (doc.contains("context_tokens") && s.context_tokens.empty())
    refuse("context_tokens", "expected " + std::to_string(s.n_z()) + " labels (one per token of " +
                               (s.Z ? "Z" : "X, as Z is omitted") + "), got 0");
  read_heads_or_full(doc, s, matrices);
  if (doc.contains("W_o")) s.W_o = matrices.read(doc["W_o"], "W_o");
  if (doc.contains("b_o")) s.b_o = read_vector(doc["b_o"], "b_o");
  if (doc.contains("scale")) s.scale = read_scale(doc["scale"]);
  if (doc.contains("mask")) s.mask = read_mask(doc["mask"]);
  read_positional(doc, s);
  if (doc.contains("view")) {
    if (!doc["view"].is_object()) refuse("view", "expected an object, got " + describe(doc["view"]));
    s.view = doc["view"];
    // A lesson is the one part of the view the core reads (the presenter, export --lesson). Only
    // its form is checked: a head or cell an edit has since removed is skipped when presenting,
    // so that a file saved after deleting a token still opens.
    if (s.view.contains("lesson")) lesson::parse_lesson(s.view["lesson"]);
    cache_number(s);  // a model layer's dtype, which Decode counts its cache's bytes in
    read_model_head(s);
  }
  return s;
}

/// The document `text` holds, built while Prescan checks it; `values_elsewhere`: as Prescan's.
json parse_checked(std::string_view text, std::size_t values_elsewhere) {
  json doc;
  CheckedDocument checked(doc, values_elsewhere);
  try {
    if (!json::sax_parse(text.data(), text.data() + text.size(), &checked)) throw ScenarioError(checked.error());
  } catch (const json::exception& e) {  // the checks came first, so this is not expected
    refuse("(file)", std::string("not valid JSON: ") + e.what());
  }
  return doc;
}

/// The scenario of `text` with the matrices `taken` from it: the rest of the text (a few
/// kilobytes of a 68 MB layer) read as a document, each matrix as null there.
Scenario read_with_taken_matrices(std::string_view text, std::vector<TextMatrix> taken) {
  std::string rest;
  std::size_t at = 0, values = 0;
  for (const TextMatrix& m : taken) {
    rest.append(text.substr(at, m.begin - at)).append("null");
    at = m.end;
    values += m.values();
  }
  rest.append(text.substr(at));
  MatrixSource matrices(std::move(taken));
  Scenario s = read_scenario(parse_checked(rest, values), matrices);
  if (!matrices.AllRead()) refuse("(file)", "a matrix found in the text was not read");
  return s;
}

}  // namespace

Scenario scenario_from_json(const json& doc) {
  MatrixSource from_document;
  return read_scenario(doc, from_document);
}

namespace {

/// The scenario in `text`, which a NUL follows (find_text_matrices).
Scenario scenario_from_text(std::string_view text) {
  if (text.size() > limits::max_file_bytes)
    refuse("(file)", "expected at most " + std::to_string(limits::max_file_bytes >> 20) + " MiB, got " +
                       std::to_string(text.size() >> 20) + " MiB");
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) refuse("(file)", "expected a JSON object, got an empty file");
  if (text.find('\0') != std::string::npos) refuse("(file)", "expected JSON text, got a NUL byte (a binary file?)");
  // The large matrices are read from the text first (std::from_chars into the matrix, not a JSON
  // value per number). A file that is refused, or that the scan misread, is read again whole by
  // the general reader: every refusal is its message, word for word.
  std::vector<TextMatrix> taken = find_text_matrices(text);
  if (!taken.empty()) {
    try {
      return read_with_taken_matrices(text, std::move(taken));
    } catch (const std::exception&) {
    }
  }
  return scenario_from_json(parse_checked(text, 0));
}

/// A file's bytes and a NUL after them. A regular file is mapped, not copied: on this machine's
/// virtual machine the first touch of fresh memory costs about 4 ms a megabyte, so reading a
/// 68 MB layer into a string of its own took 0.3 s before a number was read; the file's pages are
/// in the page cache already. The mapping's last page is zero past the file's end: that is the
/// NUL (a file of whole pages has none, and is read as a pipe is). A file truncated by another
/// program while it is being read would stop the reader (SIGBUS), as a mapped model file would;
/// scenario files are replaced by rename (write_file_atomically), never truncated in place.
class FileText {
 public:
  FileText(const std::string& path, std::size_t max_bytes, const std::string& field) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) refuse(field, std::string("cannot open: ") + std::strerror(errno));
    if (S_ISDIR(info.st_mode)) refuse(field, "cannot open: it is a directory");
    const std::size_t size = static_cast<std::size_t>(info.st_size);
    if (S_ISREG(info.st_mode) && size > max_bytes)
      refuse(field, "expected at most " + std::to_string(max_bytes >> 20) + " MiB, got " +
                      std::to_string(size >> 20) + " MiB");
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) refuse(field, std::string("cannot open: ") + std::strerror(errno));
    try {
      if (!Map(fd, max_bytes)) ReadStream(fd, max_bytes, field);
    } catch (...) {
      ::close(fd);
      throw;
    }
    ::close(fd);
  }
  ~FileText() {
    if (mapped_) ::munmap(mapped_, size_);
  }
  FileText(const FileText&) = delete;
  FileText& operator=(const FileText&) = delete;

  std::string_view view() const {
    return mapped_ ? std::string_view(static_cast<const char*>(mapped_), size_) : std::string_view(stream_);
  }

 private:
  bool Map(int fd, std::size_t max_bytes) {
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) return false;
    const std::size_t size = static_cast<std::size_t>(info.st_size);
    const long page = ::sysconf(_SC_PAGESIZE);
    if (size == 0 || size > max_bytes || page <= 0 || size % static_cast<std::size_t>(page) == 0) return false;
    void* memory = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (memory == MAP_FAILED) return false;
    mapped_ = memory;
    size_ = size;
    return true;
  }
  void ReadStream(int fd, std::size_t max_bytes, const std::string& field) {
    char buffer[65536];
    for (;;) {
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) refuse(field, std::string("cannot read: ") + std::strerror(errno));
      if (n == 0) return;
      stream_.append(buffer, static_cast<std::size_t>(n));
      if (stream_.size() > max_bytes) refuse(field, "expected at most " + std::to_string(max_bytes >> 20) + " MiB");
    }
  }

  void* mapped_ = nullptr;
  std::size_t size_ = 0;
  std::string stream_;  ///< a pipe's, or a file's that is not mapped
};

}  // namespace

Scenario scenario_from_string(const std::string& text) { return scenario_from_text(text); }

std::string read_text_file(const std::string& path, std::size_t max_bytes) {
  return std::string(FileText(path, max_bytes, path).view());
}

// The caller names the file; the message names the problem.
Scenario load_scenario(const std::string& path) {
  return scenario_from_text(FileText(path, limits::max_file_bytes, "(file)").view());
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

/// `heads` or `kv_heads`: one object of the matrices each head has.
json heads_json(const std::vector<Projections>& heads) {
  json out = json::array();
  for (const Projections& p : heads) {
    json head = json::object();
    write_projections(p, head);
    out.push_back(std::move(head));
  }
  return out;
}

json mask_json(const MaskSpec& mask) {
  if (mask.empty()) return "none";
  if (mask.causal && mask.padding.empty() && !mask.cells && mask.window == 0 && mask.sinks == 0) return "causal";
  if (!mask.causal && mask.padding.empty() && mask.window == 0 && mask.sinks == 0 && mask.cells)
    return matrix_json(*mask.cells);
  json object = {{"causal", mask.causal}};
  if (mask.window > 0) object["window"] = mask.window;
  if (mask.sinks > 0) object["sinks"] = mask.sinks;
  if (!mask.padding.empty()) object["padding"] = mask.padding;
  if (mask.cells) object["cells"] = matrix_json(*mask.cells);
  return object;
}

/// rope.scaling with only its type's numbers.
json rope_scaling_json(const RopeScaling& s) {
  switch (s.kind) {
    case RopeScaling::Kind::linear: return {{"type", "linear"}, {"factor", s.factor}};
    case RopeScaling::Kind::llama3:
      return {{"type", "llama3"}, {"factor", s.factor}, {"low_freq_factor", s.low_freq_factor},
              {"high_freq_factor", s.high_freq_factor}, {"original_positions", s.original_positions}};
    case RopeScaling::Kind::longrope:
      return {{"type", "longrope"}, {"original_positions", s.original_positions}, {"short_factors", s.short_factors},
              {"long_factors", s.long_factors}, {"attention_factor", s.attention_factor}};
    case RopeScaling::Kind::none: break;
  }
  return nullptr;
}

void write_positional(const Scenario& s, json& doc) {
  if (!s.positions.empty()) doc["positions"] = s.positions;
  if (!s.context_positions.empty()) doc["context_positions"] = s.context_positions;
  if (s.positional_encoding == PositionalEncoding::sinusoidal) doc["positional_encoding"] = "sinusoidal";
  if (s.rope) {
    json rope = {{"style", s.rope->style == Rope::Style::half ? "half" : "interleaved"}, {"base", s.rope->base}};
    if (s.rope->dims > 0) rope["dims"] = s.rope->dims;
    if (s.rope->scaling.kind != RopeScaling::Kind::none) rope["scaling"] = rope_scaling_json(s.rope->scaling);
    doc["rope"] = std::move(rope);
  }
  if (s.alibi) doc["alibi"] = s.alibi->slopes.empty() ? json(true) : json(s.alibi->slopes);
  if (s.qk_norm) {
    const QkNorm& n = *s.qk_norm;
    json norm = {{"scope", n.scope == QkNorm::Scope::head ? "head" : "width"}, {"plus_one", n.plus_one}, {"eps", n.eps}};
    if (n.w_q.size() > 0) norm["w_q"] = vector_json(n.w_q);
    if (n.w_k.size() > 0) norm["w_k"] = vector_json(n.w_k);
    doc["qk_norm"] = std::move(norm);
  }
  if (s.softcap > 0) doc["softcap"] = s.softcap;
  if (!s.heads_off.empty()) doc["heads_off"] = s.heads_off;
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
    doc["heads"] = heads_json(s.heads);
    if (!s.kv_heads.empty()) doc["kv_heads"] = heads_json(s.kv_heads);
  } else {
    doc["num_heads"] = s.num_heads;
    if (s.num_kv_heads > 0) doc["num_kv_heads"] = s.num_kv_heads;
    write_projections(s.full, doc);
  }
  if (s.W_o) doc["W_o"] = matrix_json(*s.W_o);
  if (s.b_o) doc["b_o"] = vector_json(*s.b_o);
  doc["scale"] = scale_json(s.scale);
  doc["mask"] = mask_json(s.mask);
  write_positional(s, doc);
  if (!s.view.empty()) doc["view"] = s.view;
  return doc;
}

namespace {

/// Writes everything and fsyncs; false with errno set on failure.
bool write_and_sync(int fd, const std::string& contents) {
  std::size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    written += static_cast<std::size_t>(n);
  }
  return ::fsync(fd) == 0;
}

std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

/// Makes the rename itself durable (best effort: not every file system syncs directories).
void sync_directory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

[[noreturn]] void write_error(const std::string& path, const char* what, int error) {
  throw std::runtime_error(path + ": " + what + ": " + std::strerror(error));
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& contents) {
  // Keep the permissions of the file being replaced (a private 0600 file stays private).
  struct stat old {};
  const bool replacing = ::stat(path.c_str(), &old) == 0 && S_ISREG(old.st_mode);
  const std::string dir = directory_of(path);
  const std::string temp = path + ".tmp-" + std::to_string(::getpid());
  auto finish = [&](int fd) {
    if (replacing) (void)::fchmod(fd, old.st_mode & 07777);
  };

#ifdef O_TMPFILE
  // Preferred: an unnamed file in the target's directory. A crash or kill while writing leaves
  // nothing behind; only complete, synced contents ever get a name.
  int fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
  if (fd >= 0) {
    if (!write_and_sync(fd, contents)) {
      const int error = errno;
      ::close(fd);
      write_error(path, "cannot write", error);
    }
    finish(fd);
    const std::string self = "/proc/self/fd/" + std::to_string(fd);
    ::unlink(temp.c_str());  // a stale temp from a killed save of this pid
    const bool linked = ::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, temp.c_str(), AT_SYMLINK_FOLLOW) == 0;
    ::close(fd);
    if (linked) {
      if (::rename(temp.c_str(), path.c_str()) != 0) {
        const int error = errno;
        ::unlink(temp.c_str());
        write_error(path, "cannot replace", error);
      }
      sync_directory(dir);
      return;
    }
    // No /proc to link through: fall back to a named temporary file below.
  }
#endif

  const int named = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (named < 0) write_error(path, "cannot write", errno);
  if (!write_and_sync(named, contents)) {
    const int error = errno;
    ::close(named);
    ::unlink(temp.c_str());
    write_error(path, "cannot write", error);
  }
  finish(named);
  if (::close(named) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    write_error(path, "cannot write", error);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    write_error(path, "cannot replace", error);
  }
  sync_directory(dir);
}

std::string scenario_to_text(const Scenario& scenario) {
  json doc = scenario_to_json(scenario);
  doc.erase("format");  // json sorts keys ("X" < "format"); written first by hand instead
  std::string text = doc.dump(2);  // "{\n  ...\n}": never empty, the title is always there
  text.insert(2, std::string("  \"format\": \"") + kFormat + "\",\n");
  return text + "\n";
}

void save_scenario(const Scenario& scenario, const std::string& path) {
  write_file_atomically(path, scenario_to_text(scenario));
}

}  // namespace attnlab
