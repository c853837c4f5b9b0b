#pragma once
/// Fitting a label into a width, whatever its length (GUI-free; the caller measures). A 1 MB token
/// label costs about what its visible part costs: the search grows the kept part by doubling and
/// then bisects, measuring only candidates, never removing one character at a time.
#include <cstddef>
#include <functional>
#include <string_view>

namespace attnlab {

/// "…" (U+2026), where text was left out: a shortened label, an operation under way.
inline constexpr const char* kEllipsis = "\xE2\x80\xA6";

/// The largest k in [0, n] for which fits(k) holds, given fits(0) and that fits is monotone
/// (true up to some k, false after). Calls fits O(log k) times, with arguments at most 2k + 1.
std::size_t longest_fitting(std::size_t n, const std::function<bool(std::size_t)>& fits);

/// The width of `text` as `width` measures it, or, once a prefix of it is wider than `cap`, that
/// prefix's width (above `cap`): prefixes of 16, 32, 64, ... code points are measured, so a 1 MB
/// label costs what its first few hundred characters cost.
double width_up_to(std::string_view text, double cap, const std::function<double(std::string_view)>& width);

/// Byte offset just after the first `count` code points of `text` (its size when it has fewer).
std::size_t after_code_points(std::string_view text, std::size_t count);
/// Byte offset where the last `count` code points of `text` begin (0 when it has fewer).
std::size_t before_last_code_points(std::string_view text, std::size_t count);

}  // namespace attnlab
