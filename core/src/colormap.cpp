#include "attnlab/colormap.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace attnlab {
namespace {

struct Stop {
  double r, g, b;
};

// matplotlib's viridis and cividis (CC0), sampled at entries 0, 16, 32, ..., 240 and 255 of their
// 256-entry tables; piecewise-linear interpolation between them differs from the full table by
// less than one 8-bit step.
constexpr Stop kViridis[] = {
    {0.267004, 0.004874, 0.329415}, {0.282327, 0.094955, 0.417331}, {0.278826, 0.175490, 0.483397},
    {0.258965, 0.251537, 0.524736}, {0.229739, 0.322361, 0.545706}, {0.199430, 0.387607, 0.554642},
    {0.172719, 0.448791, 0.557885}, {0.149039, 0.508051, 0.557250}, {0.127568, 0.566949, 0.550556},
    {0.120638, 0.625828, 0.533488}, {0.157851, 0.683765, 0.501686}, {0.246070, 0.738910, 0.452024},
    {0.369214, 0.788888, 0.382914}, {0.515992, 0.831158, 0.294279}, {0.678489, 0.863742, 0.189503},
    {0.845561, 0.887322, 0.099702}, {0.993248, 0.906157, 0.143936}};

constexpr Stop kCividis[] = {
    {0.000000, 0.135112, 0.304751}, {0.000000, 0.178802, 0.414764}, {0.103401, 0.220406, 0.435790},
    {0.195057, 0.264372, 0.425924}, {0.263738, 0.307831, 0.422789}, {0.324250, 0.351289, 0.426250},
    {0.380830, 0.395164, 0.435653}, {0.435168, 0.439763, 0.451134}, {0.488697, 0.485318, 0.471008},
    {0.547840, 0.531895, 0.471704}, {0.609105, 0.579816, 0.463638}, {0.671991, 0.629316, 0.448018},
    {0.736488, 0.680629, 0.424028}, {0.802667, 0.733978, 0.390153}, {0.870717, 0.789572, 0.343333},
    {0.941147, 0.847530, 0.275815}, {0.995737, 0.909344, 0.217772}};

// Table positions of the 17 stops above (the last stop is entry 255, not 256).
constexpr double kSampledIndex[] = {0,   16,  32,  48,  64,  80,  96,  112, 128,
                                    144, 160, 176, 192, 208, 224, 240, 255};

// ColorBrewer RdBu (11 classes), reversed so that negative values are blue and positive red.
constexpr Stop kRdBu[] = {
    {5 / 255.0, 48 / 255.0, 97 / 255.0},    {33 / 255.0, 102 / 255.0, 172 / 255.0},
    {67 / 255.0, 147 / 255.0, 195 / 255.0}, {146 / 255.0, 197 / 255.0, 222 / 255.0},
    {209 / 255.0, 229 / 255.0, 240 / 255.0}, {247 / 255.0, 247 / 255.0, 247 / 255.0},
    {253 / 255.0, 219 / 255.0, 199 / 255.0}, {244 / 255.0, 165 / 255.0, 130 / 255.0},
    {214 / 255.0, 96 / 255.0, 77 / 255.0},  {178 / 255.0, 24 / 255.0, 43 / 255.0},
    {103 / 255.0, 0 / 255.0, 31 / 255.0}};

std::uint8_t to_byte(double x) {
  return static_cast<std::uint8_t>(std::lround(std::clamp(x, 0.0, 1.0) * 255.0));
}

Rgb8 to_rgb8(const Stop& s) { return {to_byte(s.r), to_byte(s.g), to_byte(s.b)}; }

Stop lerp(const Stop& a, const Stop& b, double f) {
  return {a.r + (b.r - a.r) * f, a.g + (b.g - a.g) * f, a.b + (b.b - a.b) * f};
}

// Stops at table positions kSampledIndex (out of 255).
Rgb8 sample_matplotlib(const Stop (&stops)[17], double t) {
  const double x = t * 255.0;
  int i = 0;
  while (i < 15 && x > kSampledIndex[i + 1]) ++i;
  const double f = (x - kSampledIndex[i]) / (kSampledIndex[i + 1] - kSampledIndex[i]);
  return to_rgb8(lerp(stops[i], stops[i + 1], std::clamp(f, 0.0, 1.0)));
}

// Evenly spaced stops.
template <int N>
Rgb8 sample_even(const Stop (&stops)[N], double t) {
  const double x = t * (N - 1);
  const int i = std::min(static_cast<int>(x), N - 2);
  return to_rgb8(lerp(stops[i], stops[i + 1], x - i));
}

}  // namespace

Rgb8 MapColor(Colormap map, double t) {
  if (std::isnan(t)) t = 0.0;
  t = std::clamp(t, 0.0, 1.0);
  switch (map) {
    case Colormap::Viridis: return sample_matplotlib(kViridis, t);
    case Colormap::Cividis: return sample_matplotlib(kCividis, t);
    case Colormap::RdBu: return sample_even(kRdBu, t);
    case Colormap::Grayscale: {
      const std::uint8_t v = to_byte(t);
      return {v, v, v};
    }
    case Colormap::GrayDiverging: {
      // Keep the ends off pure black/white so that a cell stays visible against the page.
      const std::uint8_t v = to_byte(0.08 + 0.84 * t);
      return {v, v, v};
    }
  }
  return {};
}

Rgb8 MapValue(const ColorScale& scale, double v) {
  const double span = scale.hi - scale.lo;
  if (!(span > 0.0) || !std::isfinite(span)) return MapColor(scale.map, 0.5);
  return MapColor(scale.map, (v - scale.lo) / span);
}

Colormap DivergingFor(Colormap sequential) {
  return sequential == Colormap::Grayscale ? Colormap::GrayDiverging : Colormap::RdBu;
}

bool IsSequential(Colormap map) {
  return map == Colormap::Viridis || map == Colormap::Cividis || map == Colormap::Grayscale;
}

const char* ColormapName(Colormap map) {
  switch (map) {
    case Colormap::Viridis: return "viridis";
    case Colormap::Cividis: return "cividis";
    case Colormap::Grayscale: return "grayscale";
    case Colormap::RdBu: return "rdbu";
    case Colormap::GrayDiverging: return "gray-diverging";
  }
  return "?";
}

bool ColormapFromName(const char* name, Colormap* out) {
  for (int i = 0; i < kColormapCount; ++i) {
    const auto map = static_cast<Colormap>(i);
    if (std::strcmp(name, ColormapName(map)) == 0) {
      *out = map;
      return true;
    }
  }
  return false;
}

double Luminance(Rgb8 c) { return (0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b) / 255.0; }

Rgb8 HeadColor(int head) {
  // Chosen for the largest smallest CIELAB distance between the first 4, then all 8, in normal
  // vision and simulated deuteranopia and protanopia, every colour bright enough on the dark theme
  // (Okabe-Ito's orange and yellow alone did not: heads 1 and 4 looked the same).
  static constexpr Rgb8 kColors[kHeadColorCount] = {
      {230, 159, 0},    // Okabe-Ito orange
      {0, 119, 187},    // Tol blue
      {0, 158, 115},    // Okabe-Ito bluish green
      {204, 51, 17},    // Tol red
      {102, 204, 238},  // Tol cyan
      {187, 187, 187},  // Tol grey
      {240, 228, 66},   // Okabe-Ito yellow
      {170, 51, 119}};  // Tol purple
  return kColors[(head < 0 ? 0 : head) % kHeadColorCount];
}

}  // namespace attnlab
