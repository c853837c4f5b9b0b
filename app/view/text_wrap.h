#pragma once
/// Wrapping text of numbers: lines break only at spaces, so "-0.6732," is never cut after its
/// point (Dear ImGui's TextWrapped breaks after '.' and ',', and inside a word too long for the
/// line).
#include <functional>
#include <string>
#include <vector>

namespace attnlab::app {

/// The lines of `text` in at most `width` (as `measure` gives a string's width), broken at spaces
/// only: a word wider than `width` gets a line of its own, whole. A run of spaces becomes one;
/// `text` without spaces is one line.
std::vector<std::string> WrapAtSpaces(const std::string& text, float width,
                                      const std::function<float(const std::string&)>& measure);

}  // namespace attnlab::app
