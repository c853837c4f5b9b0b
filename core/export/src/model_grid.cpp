// The model grid: every layer's and head's weights as small heatmaps, laid out once in 1x units and
// written as PNG (the CPU rasteriser) or SVG, with the weights figures' colours, fonts and
// hatching.
#include "attnlab/export/model_grid.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "attnlab/export/font.h"
#include "attnlab/number_format.h"
#include "attnlab/text_fit.h"

namespace attnlab::exporter {
namespace {

// Sizes in figure units, as figure.cpp's: a slide seen from the back of a room.
constexpr int kMargin = 24;
constexpr double kTitleSize = 18, kSubtitleSize = 13, kCaptionSize = 15, kLabelSize = 14,
                 kTickSize = 12.5;
constexpr int kMaxCell = 40;    // a 2-layer toy model should not fill the slide with 9 huge cells
constexpr int kLabelCell = 14;  // token labels from this cell side up
constexpr double kMaxLabelWidth = 110;
constexpr int kColorbarWidth = 16, kColorbarMinHeight = 160, kSwatch = 16;
constexpr double kMidline = 0.36;  // baseline = centre + this x size centres lower-case text

/// `text` cut to `max_width` with an ellipsis (the longest prefix that fits, text_fit.h).
std::string clip(const Font& font, const std::string& text, double size, double max_width) {
  const auto measure = [&](std::string_view prefix) { return font.text_width(prefix, size); };
  if (width_up_to(text, max_width, measure) <= max_width) return text;
  const auto shown = [&](std::size_t keep) {
    return text.substr(0, after_code_points(text, keep)) + kEllipsis;
  };
  return shown(longest_fitting(
      text.size(), [&](std::size_t k) { return k == 0 || measure(shown(k)) <= max_width; }));
}

double widest(const Font& font, const std::vector<std::string>& texts, double size) {
  double w = 0;
  for (const std::string& t : texts) w = std::max(w, font.text_width(t, size));
  return w;
}

std::string tick_text(double v, bool end) {
  std::string s = end ? format_fixed(v, kDefaultDecimals) : format_trimmed(v, kMaxDecimals);
  if (!s.empty() && s[0] == '-') s = "\xE2\x88\x92" + s.substr(1);  // U+2212
  return s;
}

void check(const ModelGridFigure& f) {
  if (f.weights.empty() || f.weights[0].empty())
    throw ExportError("model grid: no layers or no heads");
  const Eigen::Index n = f.weights[0][0].rows();
  if (n == 0) throw ExportError("model grid: no tokens");
  for (std::size_t l = 0; l < f.weights.size(); ++l) {
    if (f.weights[l].size() != f.weights[0].size())
      throw ExportError("model grid: layer " + std::to_string(l + 1) + " has " +
                        std::to_string(f.weights[l].size()) + " heads, layer 1 has " +
                        std::to_string(f.weights[0].size()));
    for (const Matrix& w : f.weights[l])
      if (w.rows() != n || w.cols() != n)
        throw ExportError("model grid: layer " + std::to_string(l + 1) + ": expected " +
                          std::to_string(n) + "x" + std::to_string(n) + " weights, got " +
                          std::to_string(w.rows()) + "x" + std::to_string(w.cols()));
  }
}

struct Builder {
  const ModelGridFigure& f;
  const Fonts& fonts = default_fonts();
  ModelGridLayout out;
  std::vector<std::string> labels;  // clipped token labels
  double label_size = kLabelSize;
  double right = 0;  // right edge of everything placed so far

  void text(std::string s, double x, double y, double size, Rgba8 color, const char* role,
            TextItem::Anchor anchor = TextItem::Anchor::start, bool rotated = false,
            bool bold = false, int row = -1, int col = -1) {
    out.texts.push_back({std::move(s), x, y, size, bold, rotated, anchor, color, role, row, col});
  }

  /// Title and subtitle, cut to the slide's width; returns the y below them.
  double add_titles() {
    const double max_w = kSlideWidth - 2.0 * kMargin;
    double y = kMargin;
    const std::string title = clip(fonts.bold, f.title, kTitleSize, max_w);
    text(title, kMargin, y + fonts.bold.ascent(kTitleSize), kTitleSize, palette::ink, "title",
         TextItem::Anchor::start, false, true);
    right = kMargin + fonts.bold.text_width(title, kTitleSize);
    y += kTitleSize * 1.3;
    if (!f.subtitle.empty()) {
      const std::string sub = clip(fonts.regular, f.subtitle, kSubtitleSize, max_w);
      text(sub, kMargin, y + fonts.regular.ascent(kSubtitleSize), kSubtitleSize, palette::dim,
           "subtitle");
      right = std::max(right, kMargin + fonts.regular.text_width(sub, kSubtitleSize));
      y += kSubtitleSize * 1.3;
    }
    return y + 14;
  }

  void prepare_labels() {
    out.token_labels = out.cell >= kLabelCell && static_cast<int>(f.tokens.size()) == out.n;
    if (!out.token_labels) return;
    label_size = std::min(kLabelSize, out.cell * 0.8);
    for (const std::string& t : f.tokens)
      labels.push_back(clip(fonts.regular, t, label_size, kMaxLabelWidth));
  }

  /// "head 1".."head H" over the columns of maps; when those do not fit, the numbers alone (every
  /// k-th) and "head" once, in the corner above the layer captions, like a table's header.
  void add_head_captions(double baseline, double x_end) {
    const int pitch = out.map_side() + out.gap;
    const bool words =
        fonts.bold.text_width("head " + std::to_string(out.heads), kCaptionSize) <= pitch - 4;
    const double number_w = fonts.bold.text_width(std::to_string(out.heads), kCaptionSize) + 6;
    const int stride = words ? 1 : std::max(1, static_cast<int>(std::ceil(number_w / pitch)));
    if (!words)
      text("head", x_end, baseline, kCaptionSize, palette::ink, "head-caption",
           TextItem::Anchor::end, false, true);
    for (int h = 0; h < out.heads; h += stride) {
      const RectI m = out.map_rect(0, h);
      text((words ? "head " : "") + std::to_string(h + 1), m.x + m.w / 2.0, baseline, kCaptionSize,
           palette::ink, "head-caption", TextItem::Anchor::middle, false, true, -1, h);
    }
  }

  /// "layer 1".."layer L" left of the rows of maps (every k-th when the rows are thin).
  void add_layer_captions(double x_end) {
    const int pitch = out.map_side() + out.gap;
    const int stride = std::max(1, static_cast<int>(std::ceil(kCaptionSize * 1.3 / pitch)));
    for (int l = 0; l < out.layers; l += stride) {
      const RectI m = out.map_rect(l, 0);
      text("layer " + std::to_string(l + 1), x_end, m.y + m.h / 2.0 + kMidline * kCaptionSize,
           kCaptionSize, palette::ink, "layer-caption", TextItem::Anchor::end, false, true, l, -1);
    }
  }

  /// Query labels left of the first column of maps, key labels above the first row.
  void add_token_labels(bool rotate_cols) {
    if (!out.token_labels) return;
    for (int l = 0; l < out.layers; ++l)
      for (int i = 0; i < out.n; ++i) {
        const RectI c = out.cell_rect(l, 0, i, 0);
        text(labels[i], out.grid.x - 6.0, c.y + c.h / 2.0 + kMidline * label_size, label_size,
             palette::ink, "row-label", TextItem::Anchor::end, false, false, i, -1);
      }
    for (int h = 0; h < out.heads; ++h)
      for (int j = 0; j < out.n; ++j) {
        const RectI c = out.cell_rect(0, h, 0, j);
        if (rotate_cols)
          text(labels[j], c.x + c.w / 2.0 + kMidline * label_size, out.grid.y - 6.0, label_size,
               palette::ink, "col-label", TextItem::Anchor::start, true, false, -1, j);
        else
          text(labels[j], c.x + c.w / 2.0, out.grid.y - 6.0 - fonts.regular.descent(label_size),
               label_size, palette::ink, "col-label", TextItem::Anchor::middle, false, false, -1,
               j);
      }
  }

  /// Colour bar right of the grid with the weights figures' ticks (the ends and steps of a fifth),
  /// then the masked swatch.
  void add_colorbar() {
    out.colorbar = {out.grid.x + out.grid.w + 28, out.grid.y, kColorbarWidth,
                    std::max(out.grid.h, kColorbarMinHeight)};
    const double lo = f.scale.lo, hi = f.scale.hi;
    const double x = out.colorbar.x + out.colorbar.w + 8.0;
    right = std::max(right, static_cast<double>(out.colorbar.x + out.colorbar.w));
    for (int k = 0; k <= 5; ++k) {
      const double v = hi - k * (hi - lo) / 5;
      const int y = out.colorbar.y + static_cast<int>(std::lround(k * out.colorbar.h / 5.0));
      out.ticks.push_back({v, y});
      const std::string label = tick_text(std::abs(v) < 1e-12 ? 0.0 : v, k == 0 || k == 5);
      text(label, x, y + kMidline * kTickSize, kTickSize, palette::ink, "tick");
      right = std::max(right, x + fonts.regular.text_width(label, kTickSize));
    }
    for (int i = 0; i < out.n && !out.has_masked; ++i)
      for (int j = 0; j < out.n && !out.has_masked; ++j) out.has_masked = is_masked(f, i, j);
    if (!out.has_masked) return;
    out.masked_swatch = {out.colorbar.x, out.colorbar.y + out.colorbar.h + 18, kSwatch, kSwatch};
    const double lx = out.masked_swatch.x + kSwatch + 8.0;
    text("masked", lx, out.masked_swatch.y + kSwatch / 2.0 + kMidline * kTickSize, kTickSize,
         palette::ink, "legend");
    right = std::max(right, lx + fonts.regular.text_width("masked", kTickSize));
  }

  void build(int cell) {
    out.layers = static_cast<int>(f.weights.size());
    out.heads = static_cast<int>(f.weights[0].size());
    out.n = static_cast<int>(f.weights[0][0].rows());
    out.cell = std::max(cell, kMinCell);
    out.gap = std::clamp(out.map_side() / 8, 6, 16);
    prepare_labels();
    const double label_w = out.token_labels ? widest(fonts.regular, labels, label_size) : 0;
    const bool rotate_cols = label_w > out.cell - 8;  // side by side, labels keep 8 units apart

    // Vertical: title, subtitle, head captions, key labels, the maps.
    double y = add_titles();
    const double caption_baseline = y + fonts.bold.ascent(kCaptionSize);
    y += kCaptionSize * 1.3 + 4;
    if (out.token_labels) y += rotate_cols ? label_w + 8 : label_size * 1.3 + 4;
    out.grid.y = static_cast<int>(std::ceil(y));
    // Horizontal: layer captions, query labels, the maps, the colour bar.
    const double caption_end =
        kMargin + fonts.bold.text_width("layer " + std::to_string(out.layers), kCaptionSize);
    out.grid.x =
        static_cast<int>(std::ceil(caption_end + 10 + (out.token_labels ? label_w + 6 : 0)));
    out.grid.w = out.heads * out.map_side() + (out.heads - 1) * out.gap;
    out.grid.h = out.layers * out.map_side() + (out.layers - 1) * out.gap;

    add_head_captions(caption_baseline, caption_end);
    add_layer_captions(caption_end);
    add_token_labels(rotate_cols);
    add_colorbar();
    out.width = static_cast<int>(std::ceil(right)) + kMargin;
    const RectI& last = out.has_masked ? out.masked_swatch : out.colorbar;
    out.height = std::max(out.grid.y + out.grid.h, last.y + last.h) + kMargin;
    out.fits_slide = out.width <= kSlideWidth && out.height <= kSlideHeight;
  }
};

// ---- PNG ----

void draw_outline(Canvas& canvas, RectI r, int t, Rgba8 c) {
  canvas.fill({r.x - t, r.y - t, r.w + 2 * t, t}, c);
  canvas.fill({r.x - t, r.y + r.h, r.w + 2 * t, t}, c);
  canvas.fill({r.x - t, r.y, t, r.h}, c);
  canvas.fill({r.x + r.w, r.y, t, r.h}, c);
}

void draw_masked(Canvas& canvas, RectI r, int s) {
  canvas.fill(r, palette::masked_fill);
  canvas.hatch(r, palette::masked_hatch, 6.0 * s, 1.2 * s);
}

// A map with masked cells is hatched whole first, then its allowed cells painted over, so the
// hatching runs on across neighbouring masked cells however small they are.
void draw_maps(Canvas& canvas, const ModelGridFigure& f, const ModelGridLayout& l, int s) {
  for (int layer = 0; layer < l.layers; ++layer)
    for (int head = 0; head < l.heads; ++head) {
      if (l.has_masked) draw_masked(canvas, l.map_rect(layer, head).scaled(s), s);
      for (int i = 0; i < l.n; ++i)
        for (int j = 0; j < l.n; ++j)
          if (!is_masked(f, i, j))
            canvas.fill(l.cell_rect(layer, head, i, j).scaled(s), cell_color(f, layer, head, i, j));
    }
}

void draw_colorbar(Canvas& canvas, const ModelGridFigure& f, const ModelGridLayout& l, int s) {
  const RectI bar = l.colorbar.scaled(s);
  for (int y = 0; y < bar.h; ++y) {
    const Rgb8 c = MapColor(f.scale.map, 1.0 - (y + 0.5) / bar.h);  // top = hi
    canvas.fill({bar.x, bar.y + y, bar.w, 1}, {c.r, c.g, c.b, 255});
  }
  draw_outline(canvas, bar, s, palette::dim);
  for (const ColorbarTick& t : l.ticks)
    canvas.fill({bar.x + bar.w, t.y * s - s / 2, 5 * s, s}, palette::dim);
  if (l.has_masked) {
    const RectI swatch = l.masked_swatch.scaled(s);
    draw_masked(canvas, swatch, s);
    draw_outline(canvas, swatch, s, palette::dim);
  }
}

void draw_text(Canvas& canvas, const TextItem& t, int s) {
  const Font& font = t.bold ? default_fonts().bold : default_fonts().regular;
  const double size = t.size * s;
  const double w = font.text_width(t.text, size);
  const double shift = t.anchor == TextItem::Anchor::start    ? 0
                       : t.anchor == TextItem::Anchor::middle ? w / 2
                                                              : w;
  if (t.rotated)
    font.draw(canvas, t.text, t.x * s, t.y * s + shift, size, t.color, true);
  else
    font.draw(canvas, t.text, t.x * s - shift, t.y * s, size, t.color);
}

// ---- SVG ----

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default:
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t' || c == '\n') out += c;  // XML 1.0
    }
  }
  return out;
}

std::string hex(Rgba8 c) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "#%02x%02x%02x", c.r, c.g, c.b);
  return buffer;
}

std::string num(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", v);
  std::string s = buffer;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string rect(RectI r) {
  return "x=\"" + std::to_string(r.x) + "\" y=\"" + std::to_string(r.y) + "\" width=\"" +
         std::to_string(r.w) + "\" height=\"" + std::to_string(r.h) + "\"";
}

void write_defs(std::ostream& out, const ModelGridFigure& f) {
  out << "<defs>\n<pattern id=\"masked\" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\">"
      << "<rect width=\"6\" height=\"6\" fill=\"" << hex(palette::masked_fill) << "\"/>"
      << "<path d=\"M-1,1 l2,-2 M0,6 l6,-6 M5,7 l2,-2\" stroke=\"" << hex(palette::masked_hatch)
      << "\" stroke-width=\"1.2\"/></pattern>\n";
  out << "<linearGradient id=\"colorbar\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">";  // bottom = lo
  for (int k = 0; k <= 32; ++k) {
    const Rgb8 c = MapColor(f.scale.map, k / 32.0);
    out << "<stop offset=\"" << num(k / 32.0) << "\" stop-color=\"" << hex({c.r, c.g, c.b, 255})
        << "\"/>";
  }
  out << "</linearGradient>\n</defs>\n";
}

void write_maps(std::ostream& out, const ModelGridFigure& f, const ModelGridLayout& l) {
  out << "<g class=\"maps\" shape-rendering=\"crispEdges\">\n";
  for (int layer = 0; layer < l.layers; ++layer)
    for (int head = 0; head < l.heads; ++head) {
      out << "<g class=\"map\" data-layer=\"" << layer << "\" data-head=\"" << head << "\">\n";
      const Matrix& w = f.weights[layer][head];
      for (int i = 0; i < l.n; ++i)
        for (int j = 0; j < l.n; ++j) {
          const bool masked = is_masked(f, i, j);
          char value[40];
          std::snprintf(value, sizeof value, "%.9g", w(i, j));  // the weights are floats
          out << "<rect class=\"cell" << (masked ? " masked" : "") << "\" data-layer=\"" << layer
              << "\" data-head=\"" << head << "\" data-row=\"" << i << "\" data-col=\"" << j
              << "\" data-value=\"" << value << "\" " << rect(l.cell_rect(layer, head, i, j))
              << " fill=\""
              << (masked ? std::string("url(#masked)") : hex(cell_color(f, layer, head, i, j)))
              << "\"/>\n";
        }
      out << "</g>\n";
    }
  out << "</g>\n";
}

void write_colorbar(std::ostream& out, const ModelGridLayout& l) {
  const std::string frame = "\" stroke=\"" + hex(palette::dim) + "\" stroke-width=\"1\"/>\n";
  out << "<g class=\"colorbar\">\n<rect " << rect(l.colorbar) << " fill=\"url(#colorbar)" << frame;
  const int x = l.colorbar.x + l.colorbar.w;
  for (const ColorbarTick& t : l.ticks)
    out << "<line x1=\"" << x << "\" y1=\"" << t.y << "\" x2=\"" << x + 5 << "\" y2=\"" << t.y
        << "\" stroke=\"" << hex(palette::dim) << "\" stroke-width=\"1\"/>\n";
  if (l.has_masked)
    out << "<rect class=\"masked-swatch\" " << rect(l.masked_swatch) << " fill=\"url(#masked)"
        << frame;
  out << "</g>\n";
}

void write_text(std::ostream& out, const TextItem& t) {
  const char* anchor = t.anchor == TextItem::Anchor::middle ? "middle" : "end";
  out << "<text class=\"" << t.role << "\"";
  if (t.row >= 0) out << " data-row=\"" << t.row << "\"";
  if (t.col >= 0) out << " data-col=\"" << t.col << "\"";
  out << " x=\"" << num(t.x) << "\" y=\"" << num(t.y) << "\" font-size=\"" << num(t.size) << "\"";
  if (t.bold) out << " font-weight=\"bold\"";
  if (t.anchor != TextItem::Anchor::start) out << " text-anchor=\"" << anchor << "\"";
  if (t.rotated) out << " transform=\"rotate(-90 " << num(t.x) << " " << num(t.y) << ")\"";
  if (!(t.color == palette::ink)) out << " fill=\"" << hex(t.color) << "\"";
  out << ">" << escape(t.text) << "</text>\n";
}

}  // namespace

BoolArray causal_allowed(int n) {
  BoolArray allowed(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) allowed(i, j) = j <= i;
  return allowed;
}

bool is_masked(const ModelGridFigure& f, int i, int j) {
  return f.allowed.size() > 0 && !f.allowed(i, j);
}

Rgba8 cell_color(const ModelGridFigure& f, int layer, int head, int i, int j) {
  if (is_masked(f, i, j)) return palette::masked_fill;
  const Rgb8 c = MapValue(f.scale, f.weights[layer][head](i, j));
  return {c.r, c.g, c.b, 255};
}

ModelGridLayout model_grid_layout(const ModelGridFigure& figure, int cell) {
  check(figure);
  const auto n = figure.weights[0][0].rows();
  if (figure.allowed.size() > 0 && (figure.allowed.rows() != n || figure.allowed.cols() != n))
    throw ExportError("model grid: allowed: expected " + std::to_string(n) + "x" +
                      std::to_string(n) + ", got " + std::to_string(figure.allowed.rows()) + "x" +
                      std::to_string(figure.allowed.cols()));
  Builder b{figure, default_fonts(), {}, {}, kLabelSize, 0};
  b.build(cell);
  return std::move(b.out);
}

ModelGridLayout model_grid_layout(const ModelGridFigure& figure) {
  for (int cell = kMaxCell; cell > kMinCell; --cell) {
    ModelGridLayout l = model_grid_layout(figure, cell);
    if (l.fits_slide) return l;
  }
  return model_grid_layout(figure, kMinCell);
}

Canvas render_model_grid(const ModelGridFigure& figure, int scale) {
  if (scale < 1 || scale > 8)
    throw ExportError("scale: expected 1 to 8, got " + std::to_string(scale));
  const ModelGridLayout l = model_grid_layout(figure);
  Canvas canvas(l.width * scale, l.height * scale, palette::page);
  draw_maps(canvas, figure, l, scale);
  draw_colorbar(canvas, figure, l, scale);
  for (const TextItem& t : l.texts) draw_text(canvas, t, scale);
  return canvas;
}

std::string model_grid_svg(const ModelGridFigure& figure) {
  const ModelGridLayout l = model_grid_layout(figure);
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << l.width << "\" height=\""
      << l.height << "\" viewBox=\"0 0 " << l.width << " " << l.height << "\" font-family=\""
      << default_fonts().family << "\" fill=\"" << hex(palette::ink) << "\" data-layers=\""
      << l.layers << "\" data-heads=\"" << l.heads << "\" data-tokens=\"" << l.n
      << "\" data-cell=\"" << l.cell << "\">\n<title>" << escape(figure.title) << "</title>\n";
  write_defs(out, figure);
  out << "<rect class=\"page\" width=\"100%\" height=\"100%\" fill=\"" << hex(palette::page)
      << "\"/>\n";
  write_maps(out, figure, l);
  write_colorbar(out, l);
  out << "<g class=\"text\">\n";
  for (const TextItem& t : l.texts) write_text(out, t);
  out << "</g>\n</svg>\n";
  return out.str();
}

}  // namespace attnlab::exporter
