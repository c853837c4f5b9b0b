#include "byte_level.h"

#include <cstdio>

namespace attnlab::models::detail {

std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto at = [&](std::size_t k) {
    return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u;
  };
  const unsigned c = at(i);
  const auto cont = [&](std::size_t k, unsigned lo, unsigned hi) {
    return at(k) >= lo && at(k) <= hi;
  };
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(i + 1, 0x80, 0xBF) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return cont(i + 1, lo, hi) && cont(i + 2, 0x80, 0xBF) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return cont(i + 1, lo, hi) && cont(i + 2, 0x80, 0xBF) && cont(i + 3, 0x80, 0xBF) ? 4 : 0;
  }
  return 0;
}

char32_t code_point(std::string_view s, std::size_t i, std::size_t n) {
  const auto b = [&](std::size_t k) {
    return static_cast<char32_t>(static_cast<unsigned char>(s[i + k]));
  };
  if (n == 1) return b(0);
  if (n == 2) return (b(0) & 0x1F) << 6 | (b(1) & 0x3F);
  if (n == 3) return (b(0) & 0x0F) << 12 | (b(1) & 0x3F) << 6 | (b(2) & 0x3F);
  return (b(0) & 0x07) << 18 | (b(1) & 0x3F) << 12 | (b(2) & 0x3F) << 6 | (b(3) & 0x3F);
}

const std::array<char32_t, 256>& byte_to_symbol() {
  static const std::array<char32_t, 256> table = [] {
    std::array<char32_t, 256> t{};
    char32_t n = 0;
    for (int b = 0; b < 256; ++b) {
      const bool itself = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
      t[b] = itself ? static_cast<char32_t>(b) : 256 + n++;
    }
    return t;
  }();
  return table;
}

int symbol_to_byte(char32_t c) {
  static const std::array<int, 324> inverse = [] {
    std::array<int, 324> t{};
    t.fill(-1);
    for (int b = 0; b < 256; ++b) t[byte_to_symbol()[b]] = b;
    return t;
  }();
  return c < inverse.size() ? inverse[c] : -1;
}

bool symbols_to_bytes(std::string_view token, std::string& bytes, char32_t& bad) {
  bytes.clear();
  for (std::size_t i = 0; i < token.size();) {
    const std::size_t n = utf8_sequence(token, i);
    const char32_t c = n ? code_point(token, i, n) : 0xFFFD;
    const int b = n ? symbol_to_byte(c) : -1;
    if (b < 0) {
      bad = c;
      return false;
    }
    bytes += static_cast<char>(b);
    i += n;
  }
  return true;
}

std::string hex_byte(unsigned char c) {
  char text[8];
  std::snprintf(text, sizeof text, "\\x%02X", c);
  return text;
}

std::string code_point_name(char32_t c) {
  char text[16];
  std::snprintf(text, sizeof text, "U+%04X", static_cast<unsigned>(c));
  return text;
}

std::string label_text(std::string_view bytes) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size();) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    const std::size_t n = utf8_sequence(bytes, i);
    const bool c1 = n == 2 && c == 0xC2 && static_cast<unsigned char>(bytes[i + 1]) < 0xA0;
    if (n == 0)
      out += hex_byte(c);
    else if (c == ' ')
      out += "\u2423";
    else if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\r')
      out += "\\r";
    else if (c < 0x20 || c == 0x7F)
      out += hex_byte(c);
    else if (c1)
      out += hex_byte(c) + hex_byte(static_cast<unsigned char>(bytes[i + 1]));
    else
      out.append(bytes.substr(i, n));
    i += n ? n : 1;
  }
  return out;
}

}  // namespace attnlab::models::detail
