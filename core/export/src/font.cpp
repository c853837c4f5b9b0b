#include "attnlab/export/font.h"

#include <stb_truetype.h>  // implementation inside Debian's libstb.so

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>

namespace attnlab::exporter {

struct Font::Info {
  stbtt_fontinfo font;
};

std::vector<char32_t> decode_utf8(std::string_view text) {
  std::vector<char32_t> out;
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const int extra = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
    if (extra < 0 || i + extra >= text.size() + (extra == 0 ? 1 : 0)) {
      out.push_back(0xFFFD);
      ++i;
      continue;
    }
    char32_t cp = extra == 0 ? c : c & (0x3F >> extra);
    bool ok = true;
    for (int k = 1; k <= extra; ++k) {
      const unsigned char d = static_cast<unsigned char>(text[i + k]);
      ok = ok && (d >> 6) == 2;
      cp = (cp << 6) | (d & 0x3F);
    }
    out.push_back(ok ? cp : 0xFFFD);
    i += ok ? extra + 1 : 1;
  }
  return out;
}

Font::Font(const std::string& path) : info_(std::make_unique<Info>()) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw ExportError("font " + path + ": cannot be read (install Debian's fonts-dejavu-core, or set ATTNLAB_FONT_DIR)");
  data_.assign(std::istreambuf_iterator<char>(in), {});
  const int offset = stbtt_GetFontOffsetForIndex(data_.data(), 0);
  if (offset < 0 || !stbtt_InitFont(&info_->font, data_.data(), offset))
    throw ExportError("font " + path + ": not a TrueType font");
}

Font::~Font() = default;

int Font::glyph_index(char32_t c) const {
  const int g = stbtt_FindGlyphIndex(&info_->font, static_cast<int>(c));
  return g != 0 ? g : stbtt_FindGlyphIndex(&info_->font, '?');
}

const Font::Metrics& Font::metrics(char32_t c) const {
  auto it = metrics_.find(c);
  if (it != metrics_.end()) return it->second;
  Metrics m;
  m.index = glyph_index(c);
  int bearing = 0;
  stbtt_GetGlyphHMetrics(&info_->font, m.index, &m.advance, &bearing);
  return metrics_.emplace(c, m).first->second;
}

int Font::kerning(int previous, int index) const {
  const long long key = (static_cast<long long>(previous) << 32) | static_cast<unsigned>(index);
  auto it = kerning_.find(key);
  if (it != kerning_.end()) return it->second;
  return kerning_.emplace(key, stbtt_GetGlyphKernAdvance(&info_->font, previous, index)).first->second;
}

double Font::ascent(double px) const {
  int a = 0, d = 0, gap = 0;
  stbtt_GetFontVMetrics(&info_->font, &a, &d, &gap);
  return a * stbtt_ScaleForMappingEmToPixels(&info_->font, static_cast<float>(px));
}

double Font::descent(double px) const {
  int a = 0, d = 0, gap = 0;
  stbtt_GetFontVMetrics(&info_->font, &a, &d, &gap);
  return -d * stbtt_ScaleForMappingEmToPixels(&info_->font, static_cast<float>(px));
}

double Font::ascii_width(std::string_view text, float scale) const {
  double w = 0;
  char32_t previous = 0;
  for (const char byte : text) {
    const char32_t c = static_cast<unsigned char>(byte);
    const Metrics& m = metrics(c);
    if (previous) {
      int& kern = ascii_kerning_[previous * 128 + c];
      if (kern == kNotKnown) kern = kerning(metrics(previous).index, m.index);
      w += scale * kern;
    }
    w += scale * m.advance;
    previous = c;
  }
  return w;
}

double Font::text_width(std::string_view text, double px) const {
  const float scale = stbtt_ScaleForMappingEmToPixels(&info_->font, static_cast<float>(px));
  if (std::all_of(text.begin(), text.end(), [](char b) { return static_cast<unsigned char>(b) < 0x80; }))
    return ascii_width(text, scale);
  double w = 0;
  int previous = 0;
  for (char32_t c : decode_utf8(text)) {
    const Metrics& m = metrics(c);
    if (previous) w += scale * kerning(previous, m.index);
    w += scale * m.advance;
    previous = m.index;
  }
  return w;
}

const Font::Glyph& Font::glyph(int index, double px, int subpixel) const {
  const auto key = std::make_tuple(index, static_cast<int>(std::lround(px * 64)), subpixel);
  auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  const float scale = stbtt_ScaleForMappingEmToPixels(&info_->font, static_cast<float>(px));
  const float shift = subpixel / 4.0f;
  Glyph g;
  int x1 = 0, y1 = 0;
  stbtt_GetGlyphBitmapBoxSubpixel(&info_->font, index, scale, scale, shift, 0, &g.x0, &g.y0, &x1, &y1);
  g.w = x1 - g.x0;
  g.h = y1 - g.y0;
  if (g.w > 0 && g.h > 0) {
    g.coverage.resize(static_cast<std::size_t>(g.w) * g.h);
    stbtt_MakeGlyphBitmapSubpixel(&info_->font, g.coverage.data(), g.w, g.h, g.w, scale, scale, shift, 0, index);
  }
  return cache_.emplace(key, std::move(g)).first->second;
}

void Font::draw(Canvas& canvas, std::string_view text, double x, double y, double px, Rgba8 color,
                bool rotated) const {
  const float scale = stbtt_ScaleForMappingEmToPixels(&info_->font, static_cast<float>(px));
  // Pen position along the text direction, relative to a whole-pixel origin; quarter-pixel
  // glyph variants keep the spacing even at small sizes.
  const int ox = static_cast<int>(std::lround(x)), oy = static_cast<int>(std::lround(y));
  double pen = 0;
  int previous = 0;
  for (char32_t c : decode_utf8(text)) {
    const Metrics& m = metrics(c);
    const int index = m.index;
    if (previous) pen += scale * kerning(previous, index);
    const int whole = static_cast<int>(std::floor(pen));
    // Pens only advance: once past the canvas's edge, nothing more of the text can show (a 1 MB
    // token label costs what its visible part costs).
    const int start = whole - static_cast<int>(std::ceil(px));
    if (rotated ? oy - start - 1 < 0 : ox + start >= canvas.width()) break;
    const Glyph& g = glyph(index, px, static_cast<int>((pen - whole) * 4) & 3);
    for (int by = 0; by < g.h; ++by)
      for (int bx = 0; bx < g.w; ++bx) {
        const double cov = g.coverage[static_cast<std::size_t>(by) * g.w + bx] / 255.0;
        const int u = whole + g.x0 + bx, v = g.y0 + by;  // along / across the text, v down
        // Rotating 90 degrees counter-clockwise maps (u, v) to (v, -u); the pixel square [u, u+1]
        // lands on [-u-1, -u].
        if (rotated)
          canvas.blend(ox + v, oy - u - 1, color, cov);
        else
          canvas.blend(ox + u, oy + v, color, cov);
      }
    pen += scale * m.advance;
    previous = index;
  }
}

const Fonts& default_fonts() {
  static const std::string dir = [] {
    const char* env = std::getenv("ATTNLAB_FONT_DIR");
    return std::string(env && *env ? env : "/usr/share/fonts/truetype/dejavu");
  }();
  static const Font regular(dir + "/DejaVuSans.ttf");
  static const Font bold(dir + "/DejaVuSans-Bold.ttf");
  static const Fonts fonts{regular, bold, "DejaVu Sans, Verdana, Arial, sans-serif"};
  return fonts;
}

}  // namespace attnlab::exporter
