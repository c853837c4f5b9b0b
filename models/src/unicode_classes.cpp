#include "unicode_classes.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <utf8proc.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <iterator>
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

// Unicode 8.0's classes as Hugging Face's BERT normalizer and pre-tokenizer have them, as
// differences from utf8proc's (printed by scripts/bert_unicode_tables.py): mostly the code points
// Unicode 9 to 15 assigned, which Hugging Face treats as letters; U+166D and U+111C9 were Po
// in 8.0.
const Ranges kBertPunctuationAdded = {{0x166D, 0x166D}, {0x111C9, 0x111C9}};
const Ranges kBertPunctuationRemoved = {
    {0x61D, 0x61D},     {0x9FD, 0x9FD},     {0xA76, 0xA76},     {0xC77, 0xC77},
    {0xC84, 0xC84},     {0x1B7D, 0x1B7E},   {0x2E43, 0x2E4F},   {0x2E52, 0x2E5D},
    {0x10EAD, 0x10EAD}, {0x10F55, 0x10F59}, {0x10F86, 0x10F89}, {0x1144B, 0x1144F},
    {0x1145A, 0x1145B}, {0x1145D, 0x1145D}, {0x11660, 0x1166C}, {0x116B9, 0x116B9},
    {0x1183B, 0x1183B}, {0x11944, 0x11946}, {0x119E2, 0x119E2}, {0x11A3F, 0x11A46},
    {0x11A9A, 0x11A9C}, {0x11A9E, 0x11AA2}, {0x11B00, 0x11B09}, {0x11C41, 0x11C45},
    {0x11C70, 0x11C71}, {0x11EF7, 0x11EF8}, {0x11F43, 0x11F4F}, {0x11FFF, 0x11FFF},
    {0x12FF1, 0x12FF2}, {0x16E97, 0x16E9A}, {0x16FE2, 0x16FE2}, {0x1E95E, 0x1E95F}};
const Ranges kBertControlRemoved = {
    {0x890, 0x891}, {0x8E2, 0x8E2}, {0x110CD, 0x110CD}, {0x13430, 0x1343F}};
const Ranges kBertMarkAdded = {{0x1734, 0x1734}};
const Ranges kBertMarkRemoved = {
    {0x7FD, 0x7FD},     {0x898, 0x89F},     {0x8CA, 0x8E1},     {0x9FE, 0x9FE},
    {0xAFA, 0xAFF},     {0xB55, 0xB55},     {0xC04, 0xC04},     {0xC3C, 0xC3C},
    {0xD00, 0xD00},     {0xD3B, 0xD3C},     {0xD81, 0xD81},     {0xEBA, 0xEBA},
    {0xECE, 0xECE},     {0x180F, 0x180F},   {0x1885, 0x1886},   {0x1ABF, 0x1ACE},
    {0x1DF6, 0x1DFB},   {0xA82C, 0xA82C},   {0xA8C5, 0xA8C5},   {0xA8FF, 0xA8FF},
    {0xA9BD, 0xA9BD},   {0x10D24, 0x10D27}, {0x10EAB, 0x10EAC}, {0x10EFD, 0x10EFF},
    {0x10F46, 0x10F50}, {0x10F82, 0x10F85}, {0x11070, 0x11070}, {0x11073, 0x11074},
    {0x110C2, 0x110C2}, {0x111C9, 0x111C9}, {0x111CF, 0x111CF}, {0x1123E, 0x1123E},
    {0x11241, 0x11241}, {0x1133B, 0x1133B}, {0x11438, 0x1143F}, {0x11442, 0x11444},
    {0x11446, 0x11446}, {0x1145E, 0x1145E}, {0x1182F, 0x11837}, {0x11839, 0x1183A},
    {0x1193B, 0x1193C}, {0x1193E, 0x1193E}, {0x11943, 0x11943}, {0x119D4, 0x119D7},
    {0x119DA, 0x119DB}, {0x119E0, 0x119E0}, {0x11A01, 0x11A0A}, {0x11A33, 0x11A38},
    {0x11A3B, 0x11A3E}, {0x11A47, 0x11A47}, {0x11A51, 0x11A56}, {0x11A59, 0x11A5B},
    {0x11A8A, 0x11A96}, {0x11A98, 0x11A99}, {0x11C30, 0x11C36}, {0x11C38, 0x11C3D},
    {0x11C3F, 0x11C3F}, {0x11C92, 0x11CA7}, {0x11CAA, 0x11CB0}, {0x11CB2, 0x11CB3},
    {0x11CB5, 0x11CB6}, {0x11D31, 0x11D36}, {0x11D3A, 0x11D3A}, {0x11D3C, 0x11D3D},
    {0x11D3F, 0x11D45}, {0x11D47, 0x11D47}, {0x11D90, 0x11D91}, {0x11D95, 0x11D95},
    {0x11D97, 0x11D97}, {0x11EF3, 0x11EF4}, {0x11F00, 0x11F01}, {0x11F36, 0x11F3A},
    {0x11F40, 0x11F40}, {0x11F42, 0x11F42}, {0x13440, 0x13440}, {0x13447, 0x13455},
    {0x16F4F, 0x16F4F}, {0x16FE4, 0x16FE4}, {0x1CF00, 0x1CF2D}, {0x1CF30, 0x1CF46},
    {0x1E000, 0x1E006}, {0x1E008, 0x1E018}, {0x1E01B, 0x1E021}, {0x1E023, 0x1E024},
    {0x1E026, 0x1E02A}, {0x1E08F, 0x1E08F}, {0x1E130, 0x1E136}, {0x1E2AE, 0x1E2AE},
    {0x1E2EC, 0x1E2EF}, {0x1E4EC, 0x1E4EF}, {0x1E944, 0x1E94A}};

bool in_ranges(char32_t c, const Ranges& ranges) {
  const auto after =
      std::upper_bound(ranges.begin(), ranges.end(), c,
                       [](char32_t value, const auto& range) { return value < range.first; });
  return after != ranges.begin() && c <= std::prev(after)->second;
}

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

bool bert_punctuation(char32_t c) {
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
      (c >= 123 && c <= 126))
    return true;
  if (in_ranges(c, kBertPunctuationAdded)) return true;
  const auto category = utf8proc_category(static_cast<utf8proc_int32_t>(c));
  return category >= UTF8PROC_CATEGORY_PC && category <= UTF8PROC_CATEGORY_PO &&
         !in_ranges(c, kBertPunctuationRemoved);
}

bool bert_removed_control(char32_t c) {
  if (c == '\t' || c == '\n' || c == '\r') return false;
  if (c == 0 || c == 0xFFFD) return true;
  const auto category = utf8proc_category(static_cast<utf8proc_int32_t>(c));
  return (category == UTF8PROC_CATEGORY_CC || category == UTF8PROC_CATEGORY_CF ||
          category == UTF8PROC_CATEGORY_CO) &&
         !in_ranges(c, kBertControlRemoved);
}

bool bert_nonspacing_mark(char32_t c) {
  if (in_ranges(c, kBertMarkAdded)) return true;
  return utf8proc_category(static_cast<utf8proc_int32_t>(c)) == UTF8PROC_CATEGORY_MN &&
         !in_ranges(c, kBertMarkRemoved);
}

bool chinese_character(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
         (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
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
