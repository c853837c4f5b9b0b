#pragma once
/// TrueType text on the CPU (stb_truetype): glyphs are rasterised at the requested pixel size, so a
/// 2x figure gets 2x glyphs, never upscaled ones. Sizes are em sizes, the same as SVG font-size.
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
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
  const Glyph& glyph(int index, double px, int subpixel) const;
  int glyph_index(char32_t c) const;

  std::vector<unsigned char> data_;
  struct Info;
  std::unique_ptr<Info> info_;  ///< stbtt_fontinfo, which points into data_
  mutable std::map<std::tuple<int, int, int>, Glyph> cache_;  ///< (glyph, px * 64, subpixel)
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
