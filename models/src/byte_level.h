#pragma once
/// Bytes and text for byte-level BPE (private to attnlab_models): strict UTF-8, GPT-2's table of
/// 256 visible symbols that vocab.json and merges.txt spell bytes with, and a token's label.
#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace attnlab::models::detail {

/// Length of the well-formed UTF-8 sequence at s[i] (no overlong form, surrogate or value beyond
/// U+10FFFF), or 0.
std::size_t utf8_sequence(std::string_view s, std::size_t i);
/// The code point of the well-formed sequence of `n` bytes at s[i].
char32_t code_point(std::string_view s, std::size_t i, std::size_t n);

/// GPT-2's table: bytes 33-126, 161-172 and 174-255 stand for themselves, the others (controls,
/// space, DEL, NBSP, soft hyphen) for U+0100 + n in byte order, so every byte is a visible symbol.
const std::array<char32_t, 256>& byte_to_symbol();
/// The byte symbol `c` stands for, or -1 when it is not one of the table's 256 symbols.
int symbol_to_byte(char32_t c);
/// The bytes a vocabulary entry written in byte symbols stands for ("Ġcat" -> " cat"); false when
/// a character is not a byte symbol (`bad` gets it, U+FFFD for a byte that is not UTF-8).
bool symbols_to_bytes(std::string_view token, std::string& bytes, char32_t& bad);

/// "\xNN".
std::string hex_byte(unsigned char c);
/// "U+2713".
std::string code_point_name(char32_t c);
/// A token's bytes as one printable line: "␣" for a space, \n \t \r, \xNN for other control
/// bytes, C1 controls and bytes that are not UTF-8; everything else as is.
std::string label_text(std::string_view bytes);

}  // namespace attnlab::models::detail
