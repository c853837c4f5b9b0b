#pragma once
/// The colour of each head (GUI-free: sRGB in [0, 1]), shared by the head bands, their buttons
/// and labels, the entropy plot's lines and the lines view: core's HeadColor, which the exported
/// lines figure draws too.
#include <array>

#include "attnlab/colormap.h"

namespace attnlab::app {

/// HeadColor(head) in [0, 1].
std::array<float, 3> HeadRgb(int head);

/// How many distinct colours HeadRgb cycles through.
constexpr int kHeadPaletteSize = kHeadColorCount;

}  // namespace attnlab::app
