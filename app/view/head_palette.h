#pragma once
/// The colour of each head (GUI-free: sRGB in [0, 1]), shared by the head bands, their buttons
/// and labels, and the entropy plot's lines.
#include <array>

namespace attnlab::app {

/// Eight colours from Okabe & Ito's and Paul Tol's qualitative palettes, ordered so that the
/// first few heads differ most: seen apart with colour-vision deficiencies and on a projector
/// (Okabe-Ito's orange and yellow did not: heads 1 and 4 looked the same). Head 9 reuses head 1's.
std::array<float, 3> HeadRgb(int head);

/// How many distinct colours HeadRgb cycles through.
constexpr int kHeadPaletteSize = 8;

}  // namespace attnlab::app
