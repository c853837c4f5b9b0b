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

}  // namespace attnlab::models::detail
