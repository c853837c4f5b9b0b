#pragma once
/// Text from a user's file or command line made fit for a one-line message: escaped, so it cannot
/// add lines, and cut, so a 1 MiB string cannot become a 1 MiB "line" (docs/HOSTILE_INPUT.md).
#include <cstddef>
#include <string>
#include <string_view>

namespace attnlab {

/// No message attnlab writes is longer than this many bytes, whatever the input.
constexpr std::size_t kMaxMessageBytes = 300;
/// Text quoted from the input inside a message: at most about this many bytes once escaped.
constexpr std::size_t kMaxExcerptBytes = 60;

/// `text` with control characters and bytes that are not UTF-8 escaped (`\n`, `\t`, `\xE9`).
std::string printable_text(std::string_view text);

/// `text` escaped as printable_text and, when longer than `max` bytes, its beginning and its end
/// around "..." (the end keeps what a parser stopped at: a bad byte, a missing quote).
std::string excerpt(std::string_view text, std::size_t max = kMaxExcerptBytes);

/// `text` as an excerpt between double quotes: how a message quotes what the user gave.
std::string quoted_excerpt(std::string_view text);

/// The beginning of `text`, escaped, at most `max` bytes, with "..." when cut (a number, a key).
std::string prefix_excerpt(std::string_view text, std::size_t max);

/// A whole message made one printable line of at most kMaxMessageBytes: when longer, its beginning
/// (the field it names) and its end ("got ...") around "...".
std::string one_line_message(std::string_view message);

}  // namespace attnlab
