#pragma once
/// TrueType text on the CPU (stb_truetype): glyphs are rasterised at the requested pixel size, so a
/// 2x figure gets 2x glyphs, never upscaled ones. Sizes are em sizes, the same as SVG font-size.
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "attnlab/export/canvas.h"

namespace attnlab::exporter {

/// UTF-8 to code points; an invalid byte becomes U+FFFD.
std::vector<char32_t> decode_utf8(std::string_view text);

class Font {
 public:
  /// Reads a .ttf; throws ExportError naming the path (and the Debian package) when it is missing.
  explicit Font(const std::string& path);
  ~Font();
  Font(const Font&) = delete;
  Font& operator=(const Font&) = delete;

  /// Advance width of `text` at em size `px`, kerning included.
  double text_width(std::string_view text, double px) const;
  double ascent(double px) const;   ///< above the baseline, positive
  double descent(double px) const;  ///< below the baseline, positive
  /// Draws `text` with its baseline starting at (x, y). rotated: runs upwards (90 degrees
  /// counter-clockwise), the glyphs' tops pointing left.
  void draw(Canvas& canvas, std::string_view text, double x, double y, double px, Rgba8 color,
            bool rotated = false) const;

 private:
  struct Glyph {
    int x0 = 0, y0 = 0, w = 0, h = 0;  ///< bitmap box relative to the pen, y down
    std::vector<unsigned char> coverage;
  };
  /// A code point's glyph and its advance in font units.
  struct Metrics {
    int index = 0, advance = 0;
  };
  const Glyph& glyph(int index, double px, int subpixel) const;
  const Metrics& metrics(char32_t c) const;
  int kerning(int previous, int index) const;  ///< font units
  int glyph_index(char32_t c) const;

  std::vector<unsigned char> data_;
  struct Info;
  std::unique_ptr<Info> info_;  ///< stbtt_fontinfo, which points into data_
  mutable std::map<std::tuple<int, int, int>, Glyph> cache_;  ///< (glyph, px * 64, subpixel)
  // stb_truetype looks glyphs and kerning pairs up in the font's tables on every call; a slide
  // deck measures hundreds of thousands of value labels (27 s for a 768-wide layer's lesson).
  mutable std::unordered_map<char32_t, Metrics> metrics_;
  mutable std::unordered_map<long long, int> kerning_;  ///< (previous glyph << 32 | glyph)
  /// Value labels are ASCII: their kerning by code-point pair, filled on first use (kNotKnown).
  static constexpr int kNotKnown = -(1 << 30);
  mutable std::vector<int> ascii_kerning_ = std::vector<int>(128 * 128, kNotKnown);
  double ascii_width(std::string_view text, float scale) const;  ///< every byte < 0x80
};

/// The figure fonts: DejaVu Sans regular and bold (Debian's fonts-dejavu-core), loaded once.
/// $ATTNLAB_FONT_DIR overrides the directory. Throws ExportError when a file is missing.
struct Fonts {
  const Font& regular;
  const Font& bold;
  std::string family;  ///< for SVG: "DejaVu Sans, Verdana, sans-serif"
};
const Fonts& default_fonts();

}  // namespace attnlab::exporter
