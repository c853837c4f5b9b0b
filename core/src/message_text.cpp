#include "attnlab/message_text.h"

#include <cstdio>
#include <vector>

namespace attnlab {
namespace {

/// Length of the valid UTF-8 sequence starting at s[i], or 0 when the bytes there are not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((byte(i + k) >> 6) != 0x2) return 0;
  return n;
}

/// The printable form of the character (or stray byte) at s[i]; `used` gets its length in s.
std::string printable_at(std::string_view s, std::size_t i, std::size_t& used) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  const std::size_t n = utf8_length(s, i);
  if (c >= 0x20 && c != 0x7F && n > 0) {
    used = n;
    return std::string(s.substr(i, n));
  }
  used = 1;
  if (c == '\n') return "\\n";
  if (c == '\t') return "\\t";
  if (c == '\r') return "\\r";
  char escape[8];
  std::snprintf(escape, sizeof escape, "\\x%02X", c);
  return escape;
}

/// The printable form of the end of `s`: at most `max` bytes, whole characters (or escapes) only.
std::string printable_tail(std::string_view s, std::size_t max) {
  // A character is at most 4 bytes and escapes to at most 4 per byte: 4 * max bytes back is enough.
  std::size_t from = s.size() > 4 * max + 4 ? s.size() - (4 * max + 4) : 0;
  while (from > 0 && from < s.size() && (static_cast<unsigned char>(s[from]) & 0xC0) == 0x80) --from;
  std::vector<std::string> pieces;
  for (std::size_t i = from, used = 0; i < s.size(); i += used) pieces.push_back(printable_at(s, i, used));
  std::string tail;
  std::size_t k = pieces.size();
  while (k > 0 && tail.size() + pieces[k - 1].size() <= max) tail.insert(0, pieces[--k]);
  return tail;
}

/// The printable form of the beginning of `s`: at most `max` bytes, whole characters (or escapes)
/// only; `end` gets how much of `s` it covers.
std::string printable_head(std::string_view s, std::size_t max, std::size_t& end) {
  std::string head;
  end = 0;
  for (std::size_t used = 0; end < s.size(); end += used) {
    const std::string piece = printable_at(s, end, used);
    if (head.size() + piece.size() > max) break;
    head += piece;
  }
  return head;
}

}  // namespace

std::string printable_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0, used = 0; i < text.size(); i += used) out += printable_at(text, i, used);
  return out;
}

std::string excerpt(std::string_view text, std::size_t max) {
  std::size_t end = 0;
  const std::string whole = printable_head(text, max, end);
  if (end == text.size()) return whole;
  const std::size_t half = max > 3 ? (max - 3) / 2 : 0;
  std::size_t head_end = 0;
  return printable_head(text, half, head_end) + "..." + printable_tail(text.substr(head_end), max - 3 - half);
}

std::string quoted_excerpt(std::string_view text) { return "\"" + excerpt(text) + "\""; }

std::string prefix_excerpt(std::string_view text, std::size_t max) {
  std::size_t end = 0;
  const std::string head = printable_head(text, max, end);
  return end == text.size() ? head : head + "...";
}

std::string one_line_message(std::string_view message) { return excerpt(message, kMaxMessageBytes); }

}  // namespace attnlab
