#include "unicode_classes.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <utf8proc.h>

#include <array>
#include <cstdio>
#include <utility>
#include <vector>

namespace attnlab::models::detail {
namespace {

using Ranges = std::vector<std::pair<char32_t, char32_t>>;

/// Unicode's White_Space, which Oniguruma's `\s` and Rust's char::is_whitespace are (U+180E left
/// it in Unicode 6.3; PCRE2 keeps it in `\s` through its list of horizontal spaces).
constexpr std::array<std::pair<char32_t, char32_t>, 10> kWhiteSpace = {
    {{0x09, 0x0D}, {0x20, 0x20}, {0x85, 0x85}, {0xA0, 0xA0}, {0x1680, 0x1680}, {0x2000, 0x200A}, {0x2028, 0x2029},
     {0x202F, 0x202F}, {0x205F, 0x205F}, {0x3000, 0x3000}}};

/// The general categories' names in the order of utf8proc's UTF8PROC_CATEGORY_* values.
const std::array<const char*, 30> kCategoryNames = {"Cn", "Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd",
                                                    "Nl", "No", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm",
                                                    "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co"};

std::string hex_range(char32_t first, char32_t last) {
  char text[40];
  if (first == last)
    std::snprintf(text, sizeof text, "\\x{%X}", static_cast<unsigned>(first));
  else
    std::snprintf(text, sizeof text, "\\x{%X}-\\x{%X}", static_cast<unsigned>(first), static_cast<unsigned>(last));
  return text;
}

std::string utf8(char32_t c) {
  std::array<utf8proc_uint8_t, 4> bytes{};
  const auto n = utf8proc_encode_char(static_cast<utf8proc_int32_t>(c), bytes.data());
  return std::string(reinterpret_cast<const char*>(bytes.data()), static_cast<std::size_t>(n));
}

/// Per utf8proc category (index UTF8PROC_CATEGORY_*): the code points utf8proc assigns to it that
/// PCRE2's tables leave unassigned (\p{Cn}), as ranges. Computed once: one match per code point
/// utf8proc assigns, outside private use.
const std::array<Ranges, 30>& newer_code_points() {
  static const std::array<Ranges, 30> table = [] {
    std::array<Ranges, 30> out;
    int error = 0;
    PCRE2_SIZE offset = 0;
    const auto pattern = reinterpret_cast<PCRE2_SPTR>(R"(^\p{Cn}$)");
    pcre2_code* cn = pcre2_compile(pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
    if (!cn) return out;
    pcre2_jit_compile(cn, PCRE2_JIT_COMPLETE);
    pcre2_match_data* data = pcre2_match_data_create_from_pattern(cn, nullptr);
    for (char32_t c = 0; c <= 0x10FFFF; ++c) {
      if (c >= 0xD800 && c <= 0xDFFF) continue;
      const utf8proc_category_t category = utf8proc_category(static_cast<utf8proc_int32_t>(c));
      if (category == UTF8PROC_CATEGORY_CN || category == UTF8PROC_CATEGORY_CO || category == UTF8PROC_CATEGORY_CS)
        continue;
      const std::string text = utf8(c);
      if (pcre2_match(cn, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), 0, 0, data, nullptr) < 0) continue;
      Ranges& ranges = out[static_cast<std::size_t>(category)];
      if (!ranges.empty() && ranges.back().second + 1 == c)
        ranges.back().second = c;
      else
        ranges.emplace_back(c, c);
    }
    pcre2_match_data_free(data);
    pcre2_code_free(cn);
    return out;
  }();
  return table;
}

/// The ranges to add to `\p{name}` when `name` is a general category ("L", "Lu", "N"), as class
/// items; "" for any other property (a script, "L&", "Any"), which is left as PCRE2 has it.
std::string newer_items(const std::string& name) {
  if (name.empty() || name.size() > 2) return "";
  std::string items;
  for (int category = 1; category < 30; ++category) {
    const std::string code = kCategoryNames[std::size_t(category)];
    if (code == name || (name.size() == 1 && code[0] == name[0]))
      for (const auto& [first, last] : newer_code_points()[static_cast<std::size_t>(category)])
        items += hex_range(first, last);
  }
  return items;
}

bool is_category(const std::string& name) {
  if (name.size() == 1) return std::string("CLMNPSZ").find(name[0]) != std::string::npos;
  if (name.size() != 2) return false;
  for (int category = 1; category < 30; ++category)
    if (name == kCategoryNames[std::size_t(category)]) return true;
  return false;
}

/// kWhiteSpace as the items of a character class.
std::string white_space_items() {
  std::string items;
  for (const auto& [first, last] : kWhiteSpace) items += hex_range(first, last);
  return items;
}

}  // namespace

bool white_space(char32_t c) {
  for (const auto& [first, last] : kWhiteSpace)
    if (c >= first && c <= last) return true;
  return false;
}

std::string hf_pattern(const std::string& pattern) {
  static const std::string white = white_space_items();
  std::string out;
  out.reserve(pattern.size());
  bool in_class = false;
  std::size_t class_start = 0;  // where the class's items begin (after "[" and "^")
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      const char e = pattern[i + 1];
      if (e == 'Q') {  // \Q...\E: literal text, copied whole
        const std::size_t end = pattern.find("\\E", i + 2);
        const std::size_t stop = end == std::string::npos ? pattern.size() : end + 2;
        out.append(pattern, i, stop - i);
        i = stop - 1;
        continue;
      }
      if (e == 's' || (e == 'S' && !in_class)) {
        out += in_class ? white : std::string(e == 's' ? "[" : "[^") + white + "]";
        ++i;
        continue;
      }
      if (e == 'p' || (e == 'P' && !in_class)) {
        std::string name;
        std::size_t end = i + 2;  // one past the property
        if (end < pattern.size() && pattern[end] == '{') {
          const std::size_t close = pattern.find('}', end);
          if (close != std::string::npos) name = pattern.substr(end + 1, close - end - 1), end = close + 1;
        } else if (end < pattern.size()) {
          name = pattern.substr(end, 1), end += 1;
        }
        if (is_category(name)) {
          const std::string property = pattern.substr(i, end - i);
          const std::string items = newer_items(name);
          const std::string positive = "\\p" + property.substr(2);
          if (in_class)
            out += property + items;
          else if (items.empty())
            out += property;
          else
            out += std::string(e == 'p' ? "[" : "[^") + positive + items + "]";
          i = end - 1;
          continue;
        }
      }
      out += c;
      out += e;
      ++i;
      continue;
    }
    if (in_class) {
      if (c == '[' && i + 1 < pattern.size() && pattern[i + 1] == ':') {  // [:alpha:]
        const std::size_t end = pattern.find(":]", i + 2);
        const std::size_t stop = end == std::string::npos ? i + 1 : end + 2;
        out.append(pattern, i, stop - i);
        i = stop - 1;
        continue;
      }
      if (c == ']' && i > class_start) in_class = false;  // a "]" first in the class is literal
      out += c;
      continue;
    }
    if (c == '[') {
      in_class = true;
      class_start = i + 1;
      if (class_start < pattern.size() && pattern[class_start] == '^') ++class_start;
      out += c;
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace attnlab::models::detail
