// view/head_palette.h: the heads' colours stay apart in CIELAB (D65, CIE76 distance) for normal
// vision and simulated deuteranopia and protanopia (Machado et al. 2009, severity 1): the entropy
// plot's head 1 and head 4 looked the same on a projector with Okabe-Ito's orange and yellow.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "view/head_palette.h"

namespace test_head_palette {

namespace {

using Rgb = std::array<double, 3>;
using Matrix3 = std::array<Rgb, 3>;

double ToLinear(double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); }
double ToEncoded(double l) {
  l = std::min(1.0, std::max(0.0, l));
  return l <= 0.0031308 ? 12.92 * l : 1.055 * std::pow(l, 1 / 2.4) - 0.055;
}

Rgb Times(const Matrix3& m, const Rgb& v) {
  return {m[0][0] * v[0] + m[0][1] * v[1] + m[0][2] * v[2], m[1][0] * v[0] + m[1][1] * v[1] + m[1][2] * v[2],
          m[2][0] * v[0] + m[2][1] * v[1] + m[2][2] * v[2]};
}

Rgb PaletteLab(const Rgb& srgb) {
  const Matrix3 to_xyz = {{{0.4124, 0.3576, 0.1805}, {0.2126, 0.7152, 0.0722}, {0.0193, 0.1192, 0.9505}}};
  const Rgb xyz = Times(to_xyz, {ToLinear(srgb[0]), ToLinear(srgb[1]), ToLinear(srgb[2])});
  const Rgb white = {0.95047, 1.0, 1.08883};
  Rgb f;
  for (int i = 0; i < 3; ++i) {
    const double t = xyz[std::size_t(i)] / white[std::size_t(i)];
    f[std::size_t(i)] = t > std::pow(6.0 / 29, 3) ? std::cbrt(t) : t / (3 * std::pow(6.0 / 29, 2)) + 4.0 / 29;
  }
  return {116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])};
}

// The colour as seen with `deficiency` (a linear-RGB matrix), in CIELAB.
Rgb SeenLab(int head, const Matrix3* deficiency) {
  const std::array<float, 3> c = attnlab::app::HeadRgb(head);
  Rgb srgb = {c[0], c[1], c[2]};
  if (deficiency) {
    const Rgb seen = Times(*deficiency, {ToLinear(srgb[0]), ToLinear(srgb[1]), ToLinear(srgb[2])});
    srgb = {ToEncoded(seen[0]), ToEncoded(seen[1]), ToEncoded(seen[2])};
  }
  return PaletteLab(srgb);
}

// The smallest distance between two of the first `heads` colours.
double SmallestDistance(int heads, const Matrix3* deficiency) {
  double smallest = 1e9;
  for (int a = 0; a < heads; ++a)
    for (int b = a + 1; b < heads; ++b) {
      const Rgb p = SeenLab(a, deficiency), q = SeenLab(b, deficiency);
      smallest = std::min(smallest, std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]));
    }
  return smallest;
}

const Matrix3 kDeuteranopia = {{{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413},
                                {-0.011820, 0.042940, 0.968881}}};
const Matrix3 kProtanopia = {{{0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216},
                              {-0.003882, -0.048116, 1.051998}}};

}  // namespace

TEST(HeadPalette, FourHeadsFarApartInEveryVision) {
  const double normal = SmallestDistance(4, nullptr), deutan = SmallestDistance(4, &kDeuteranopia),
               protan = SmallestDistance(4, &kProtanopia);
  EXPECT_GE(normal, 45.0);  // Okabe-Ito's orange and yellow (heads 1 and 4): 35
  EXPECT_GE(deutan, 25.0);
  EXPECT_GE(protan, 25.0);
  std::printf("4 heads: smallest CIE76 distance %.1f normal, %.1f deuteranopia, %.1f protanopia\n", normal,
              deutan, protan);
}

TEST(HeadPalette, EightHeadsApartInEveryVisionAndBrightOnTheDarkTheme) {
  const int n = attnlab::app::kHeadPaletteSize;
  ASSERT_EQ(n, 8);
  const double normal = SmallestDistance(n, nullptr), deutan = SmallestDistance(n, &kDeuteranopia),
               protan = SmallestDistance(n, &kProtanopia);
  EXPECT_GE(normal, 30.0);  // Okabe-Ito's sky blue and blue: 26
  EXPECT_GE(deutan, 15.0);
  EXPECT_GE(protan, 15.0);
  std::printf("8 heads: smallest CIE76 distance %.1f normal, %.1f deuteranopia, %.1f protanopia\n", normal,
              deutan, protan);
  for (int h = 0; h < n; ++h) EXPECT_GE(SeenLab(h, nullptr)[0], 40.0) << "head " << h + 1 << " too dark";
  const std::array<float, 3> first = attnlab::app::HeadRgb(0), ninth = attnlab::app::HeadRgb(n);
  EXPECT_EQ(first, ninth);
}

}  // namespace test_head_palette
