#pragma once
/// Tokenizer regexes as Hugging Face's engine reads them (private to attnlab_models). tokenizer.json
/// patterns are written for Oniguruma (Unicode 15), attnlab runs them on PCRE2 (Debian's, Unicode
/// 14), and two things differ: PCRE2's `\s` also matches U+180E (Mongolian vowel separator, no
/// longer White_Space since Unicode 6.3), and a `\p{..}` class misses the code points Unicode 15
/// assigned. `hf_pattern` rewrites `\s` and `\S` to the White_Space set, and adds to each general
/// category `\p{L}`, `\p{Lu}`, `\p{N}`, ... the code points utf8proc (Unicode 15) puts in it that
/// PCRE2 still calls unassigned.
#include <string>

namespace attnlab::models::detail {

/// `pattern` (PCRE2 syntax) with `\s`, `\S` and general-category `\p{X}` / `\pX` (and `\P` outside
/// a class) rewritten as above; everything else copied as is (a `\S` or `\P` inside a class too).
std::string hf_pattern(const std::string& pattern);
/// Whether `c` is Unicode White_Space (what `\s` becomes; also where an added token's lstrip and
/// rstrip stop).
bool white_space(char32_t c);

/// The character classes of Hugging Face's BertNormalizer and BertPreTokenizer. They ask the Rust
/// crate unicode_categories 0.1, whose tables are Unicode 8.0's; attnlab asks utf8proc (Unicode 15)
/// and corrects it by the differences scripts/bert_unicode_tables.py measured on every code point.
/// Punctuation: ASCII 33-47, 58-64, 91-96, 123-126 or a P* category (BertPreTokenizer isolates it).
bool bert_punctuation(char32_t c);
/// What clean_text removes: NUL, U+FFFD, and Cc, Cf, Co except tab, newline and carriage return.
bool bert_removed_control(char32_t c);
/// What strip_accents removes after NFD: a non-spacing mark (Mn).
bool bert_nonspacing_mark(char32_t c);
/// What handle_chinese_chars puts spaces around: the CJK Unified Ideographs blocks as Hugging
/// Face's list has them (its extension E starts at U+2B920, not U+2B820).
bool chinese_character(char32_t c);

}  // namespace attnlab::models::detail
