#pragma once
/// Colormaps as pure functions value -> RGB, with no dependencies, shared by the window and the CPU
/// exporter (attnlab_export) so both draw exactly these colours. Names follow the window's ImGui-style
/// convention (MapColor, not map_color) so that app/ can switch to this header unchanged.
#include <cstdint>

namespace attnlab {

struct Rgb8 {
  std::uint8_t r = 0, g = 0, b = 0;
  bool operator==(const Rgb8& o) const { return r == o.r && g == o.g && b == o.b; }
};

enum class Colormap {
  Viridis,       ///< perceptually uniform, sequential (matplotlib's default)
  Cividis,       ///< sequential, designed for colour-vision deficiency
  Grayscale,     ///< black to white, for print
  RdBu,          ///< diverging blue (low) - white - red (high), ColorBrewer RdBu reversed
  GrayDiverging  ///< diverging for print: black (low) - mid grey - white (high)
};

constexpr int kColormapCount = 5;

/// Colour at t in [0, 1] (clamped). NaN maps to t = 0.
Rgb8 MapColor(Colormap map, double t);

/// An explicit value range mapped onto a colormap: lo -> t = 0, hi -> t = 1.
struct ColorScale {
  Colormap map = Colormap::Viridis;
  double lo = 0.0, hi = 1.0;
};
/// Colour of value v under scale (v clamped to [lo, hi]; a degenerate range maps to t = 0.5).
Rgb8 MapValue(const ColorScale& scale, double v);

/// The diverging map to pair with a sequential choice (grayscale stays grayscale for print).
Colormap DivergingFor(Colormap sequential);
/// Sequential maps the user can choose from, in menu order.
bool IsSequential(Colormap map);

const char* ColormapName(Colormap map);              ///< "viridis", "cividis", ...
bool ColormapFromName(const char* name, Colormap* out);

/// Relative luminance in [0, 1] (sRGB weights), to pick black or white text over a cell.
double Luminance(Rgb8 c);

/// How many distinct colours HeadColor cycles through.
constexpr int kHeadColorCount = 8;
/// The colour of head `head` (0-based) wherever heads are told apart by colour: the window's head
/// bands, buttons and lines, and the exported lines figure. Eight colours from Okabe & Ito's and
/// Paul Tol's qualitative palettes, ordered so that the first few heads differ most: seen apart
/// with colour-vision deficiencies and on a projector. Head 8 reuses head 0's.
Rgb8 HeadColor(int head);

}  // namespace attnlab
