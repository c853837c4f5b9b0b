#include "json_matrices.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <string_view>

namespace attnlab {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

void skip_space(const char*& p) {
  while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') ++p;
}

void skip_digits(const char*& p) {
  while (is_digit(*p)) ++p;
}

/// `[[n, ...], ...]` at `p`: its numbers appended to `values` row by row; false (values left as
/// they were) unless it is a non-empty matrix of rows of one non-zero length, each number
/// read_json_number's. `p` is past its last ']' on success.
bool read_number_rows(const char*& p, std::vector<double>& values, std::size_t& rows, std::size_t& cols) {
  const std::size_t first = values.size();
  const auto fail = [&] {
    values.resize(first);
    return false;
  };
  ++p;  // the '[' the caller found
  rows = cols = 0;
  for (;;) {
    skip_space(p);
    if (*p != '[') return fail();
    ++p;
    const std::size_t row_start = values.size();
    for (;;) {
      skip_space(p);
      double x;
      if (!read_json_number(p, x)) return fail();
      values.push_back(x);
      skip_space(p);
      if (*p == ']') break;
      if (*p != ',') return fail();
      ++p;
    }
    ++p;
    const std::size_t n = values.size() - row_start;
    if (rows == 0) cols = n;
    if (n != cols) return fail();
    ++rows;
    skip_space(p);
    if (*p == ']') break;
    if (*p != ',') return fail();
    ++p;
  }
  ++p;
  return true;
}

bool one_of(std::string_view key, std::initializer_list<std::string_view> names) {
  for (std::string_view name : names)
    if (key == name) return true;
  return false;
}

/// Where the scanner is: one frame per open object or array.
struct Frame {
  bool array = false;
  std::size_t index = 0;  ///< arrays: the element being read
  std::string_view key;   ///< objects: the key being read, as written (escapes not decoded)
  bool expect_key = true;
};

/// The field read as a matrix that the value about to start is, or "" (scenario_io.cpp's
/// scenario_from_json, read_heads_or_full, read_heads and read_kv_heads name them so).
std::string matrix_field(const std::vector<Frame>& frames) {
  if (frames.size() == 1 && !frames[0].array && one_of(frames[0].key, {"X", "Z", "W_q", "W_k", "W_v", "W_o"}))
    return std::string(frames[0].key);
  if (frames.size() == 3 && !frames[0].array && one_of(frames[0].key, {"heads", "kv_heads"}) && frames[1].array &&
      !frames[2].array && one_of(frames[2].key, {"W_q", "W_k", "W_v"}))
    return std::string(frames[0].key) + "[" + std::to_string(frames[1].index) + "]." + std::string(frames[2].key);
  return "";
}

}  // namespace

bool read_json_number(const char*& p, double& out) {
  const char* const start = p;
  const char* q = p;
  if (*q == '-') ++q;
  if (*q == '0') ++q;
  else if (is_digit(*q)) skip_digits(q);
  else return false;
  bool whole = true;
  if (*q == '.') {
    ++q;
    if (!is_digit(*q)) return false;
    skip_digits(q);
    whole = false;
  }
  if (*q == 'e' || *q == 'E') {
    ++q;
    if (*q == '+' || *q == '-') ++q;
    if (!is_digit(*q)) return false;
    skip_digits(q);
    whole = false;
  }
  double x = 0;
  const std::from_chars_result r = std::from_chars(start, q, x);
  if (r.ec != std::errc() || r.ptr != q || !std::isfinite(x)) return false;
  // The general reader keeps a whole number as an integer, which has no negative zero.
  out = whole && x == 0 ? 0.0 : x;
  p = q;
  return true;
}

// A scan of the structure alone: strings skipped (escapes included), brackets and commas
// followed. On text that is not JSON it may take wrong turns; that text then fails the general
// reader, which reads the whole file again without any of this.
std::vector<TextMatrix> find_text_matrices(std::string_view text) {
  std::vector<TextMatrix> found;
  std::vector<Frame> frames;
  std::vector<double> values;  // one buffer for every matrix, reused
  const char* const base = text.data();
  char last = 0;  // the last character that was not white space
  for (const char* p = base; *p; ++p) {
    const char c = *p;
    switch (c) {
      case '"': {
        const char* const start = p + 1;
        while (*++p && *p != '"')
          if (*p == '\\' && p[1]) ++p;
        if (!*p) return found;
        if (!frames.empty() && !frames.back().array && frames.back().expect_key)
          frames.back().key = std::string_view(start, std::size_t(p - start)), frames.back().expect_key = false;
        break;
      }
      case '{': frames.push_back(Frame{false, 0, {}, true}); break;
      case '[': {
        const std::string field = last == ':' ? matrix_field(frames) : std::string();
        const char* end = p;
        std::size_t rows = 0, cols = 0;
        if (!field.empty() && read_number_rows(end, values, rows, cols)) {
          TextMatrix m{field, std::size_t(p - base), std::size_t(end - base), Matrix(rows, cols)};
          std::memcpy(m.matrix.data(), values.data(), values.size() * sizeof(double));
          values.clear();
          found.push_back(std::move(m));
          p = end - 1;  // at its last ']', which closes nothing of the frames
          last = ']';
          continue;
        }
        frames.push_back(Frame{true, 0, {}, false});
        break;
      }
      case ']':
      case '}':
        if (!frames.empty()) frames.pop_back();
        break;
      case ',':
        if (frames.empty()) break;
        if (frames.back().array) ++frames.back().index;
        else frames.back().expect_key = true;
        break;
      default: break;
    }
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') last = c;
  }
  return found;
}

}  // namespace attnlab
