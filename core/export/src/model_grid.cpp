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
#include "attnlab/numbering.h"
#include "attnlab/text_fit.h"
#include "figure_parts.h"

namespace attnlab::exporter {
namespace {

using namespace parts;

// Sizes in figure units, as figure.cpp's: a slide seen from the back of a room.
constexpr int kGridMargin = 24;
constexpr double kGridTitleSize = 18, kGridSubtitleSize = 13, kGridCaptionSize = 15, kGridLabelSize = 14,
                 kGridTickSize = 12.5;
constexpr int kGridMaxCell = 40;    // a 2-layer toy model should not fill the slide with 9 huge cells
constexpr int kGridLabelCell = 14;  // token labels from this cell side up
constexpr double kGridMaxLabelWidth = 110;
constexpr int kGridColorbarWidth = 16, kGridColorbarMinHeight = 160, kGridSwatch = 16;
constexpr double kGridMidline = 0.36;  // baseline = centre + this x size centres lower-case text

std::string grid_tick_text(double v, bool end) {
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
      throw ExportError("model grid: " + layer_label(l) + " has " +
                        std::to_string(f.weights[l].size()) + " heads, layer 1 has " +
                        std::to_string(f.weights[0].size()));
    for (const Matrix& w : f.weights[l])
      if (w.rows() != n || w.cols() != n)
        throw ExportError("model grid: " + layer_label(l) + ": expected " + std::to_string(n) +
                          "x" + std::to_string(n) + " weights, got " + std::to_string(w.rows()) +
                          "x" + std::to_string(w.cols()));
  }
}

struct Builder {
  const ModelGridFigure& f;
  const Fonts& fonts = default_fonts();
  ModelGridLayout out;
  std::vector<std::string> labels;  // clipped token labels
  double label_size = kGridLabelSize;
  double right = 0;  // right edge of everything placed so far

  void text(std::string s, double x, double y, double size, Rgba8 color, const char* role,
            TextItem::Anchor anchor = TextItem::Anchor::start, bool rotated = false,
            bool bold = false, int row = -1, int col = -1) {
    out.texts.push_back({std::move(s), x, y, size, bold, rotated, anchor, color, role, row, col});
  }

  /// Title and subtitle, cut to the slide's width; returns the y below them.
  double add_titles() {
    const double max_w = kSlideWidth - 2.0 * kGridMargin;
    double y = kGridMargin;
    const std::string title = clip(fonts.bold, f.title, kGridTitleSize, max_w);
    text(title, kGridMargin, y + fonts.bold.ascent(kGridTitleSize), kGridTitleSize, palette::ink, "title",
         TextItem::Anchor::start, false, true);
    right = kGridMargin + fonts.bold.text_width(title, kGridTitleSize);
    y += kGridTitleSize * 1.3;
    if (!f.subtitle.empty()) {
      const std::string sub = clip(fonts.regular, f.subtitle, kGridSubtitleSize, max_w);
      text(sub, kGridMargin, y + fonts.regular.ascent(kGridSubtitleSize), kGridSubtitleSize, palette::dim,
           "subtitle");
      right = std::max(right, kGridMargin + fonts.regular.text_width(sub, kGridSubtitleSize));
      y += kGridSubtitleSize * 1.3;
    }
    return y + 14;
  }

  void prepare_labels() {
    out.token_labels = out.cell >= kGridLabelCell && static_cast<int>(f.tokens.size()) == out.n;
    if (!out.token_labels) return;
    label_size = std::min(kGridLabelSize, out.cell * 0.8);
    for (const std::string& t : f.tokens)
      labels.push_back(clip(fonts.regular, t, label_size, kGridMaxLabelWidth));
  }

  /// "head 0".."head H-1" over the columns of maps; when those do not fit, the numbers alone (every
  /// k-th) and "head" once, in the corner above the layer captions, like a table's header.
  void add_head_captions(double baseline, double x_end) {
    const int pitch = out.map_side() + out.gap;
    const bool words =
        fonts.bold.text_width("head " + std::to_string(out.heads), kGridCaptionSize) <= pitch - 4;
    const double number_w = fonts.bold.text_width(std::to_string(out.heads), kGridCaptionSize) + 6;
    const int stride = words ? 1 : std::max(1, static_cast<int>(std::ceil(number_w / pitch)));
    if (!words)
      text("head", x_end, baseline, kGridCaptionSize, palette::ink, "head-caption",
           TextItem::Anchor::end, false, true);
    for (int h = 0; h < out.heads; h += stride) {
      const RectI m = out.map_rect(0, h);
      text(words ? head_label(h) : index_text(h), m.x + m.w / 2.0, baseline, kGridCaptionSize,
           palette::ink, "head-caption", TextItem::Anchor::middle, false, true, -1, h);
    }
  }

  /// "layer 0".."layer L-1" left of the rows of maps (every k-th when the rows are thin).
  void add_layer_captions(double x_end) {
    const int pitch = out.map_side() + out.gap;
    const int stride = std::max(1, static_cast<int>(std::ceil(kGridCaptionSize * 1.3 / pitch)));
    for (int l = 0; l < out.layers; l += stride) {
      const RectI m = out.map_rect(l, 0);
      text(layer_label(l), x_end, m.y + m.h / 2.0 + kGridMidline * kGridCaptionSize,
           kGridCaptionSize, palette::ink, "layer-caption", TextItem::Anchor::end, false, true, l,
           -1);
    }
  }

  /// Query labels left of the first column of maps, key labels above the first row.
  void add_token_labels(bool rotate_cols) {
    if (!out.token_labels) return;
    for (int l = 0; l < out.layers; ++l)
      for (int i = 0; i < out.n; ++i) {
        const RectI c = out.cell_rect(l, 0, i, 0);
        text(labels[i], out.grid.x - 6.0, c.y + c.h / 2.0 + kGridMidline * label_size, label_size,
             palette::ink, "row-label", TextItem::Anchor::end, false, false, i, -1);
      }
    for (int h = 0; h < out.heads; ++h)
      for (int j = 0; j < out.n; ++j) {
        const RectI c = out.cell_rect(0, h, 0, j);
        if (rotate_cols)
          text(labels[j], c.x + c.w / 2.0 + kGridMidline * label_size, out.grid.y - 6.0, label_size,
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
    out.colorbar = {out.grid.x + out.grid.w + 28, out.grid.y, kGridColorbarWidth,
                    std::max(out.grid.h, kGridColorbarMinHeight)};
    const double lo = f.scale.lo, hi = f.scale.hi;
    const double x = out.colorbar.x + out.colorbar.w + 8.0;
    right = std::max(right, static_cast<double>(out.colorbar.x + out.colorbar.w));
    for (int k = 0; k <= 5; ++k) {
      const double v = hi - k * (hi - lo) / 5;
      const int y = out.colorbar.y + static_cast<int>(std::lround(k * out.colorbar.h / 5.0));
      out.ticks.push_back({v, y});
      const std::string label = grid_tick_text(std::abs(v) < 1e-12 ? 0.0 : v, k == 0 || k == 5);
      text(label, x, y + kGridMidline * kGridTickSize, kGridTickSize, palette::ink, "tick");
      right = std::max(right, x + fonts.regular.text_width(label, kGridTickSize));
    }
    for (int i = 0; i < out.n && !out.has_masked; ++i)
      for (int j = 0; j < out.n && !out.has_masked; ++j) out.has_masked = is_masked(f, i, j);
    if (!out.has_masked) return;
    out.masked_swatch = {out.colorbar.x, out.colorbar.y + out.colorbar.h + 18, kGridSwatch, kGridSwatch};
    const double lx = out.masked_swatch.x + kGridSwatch + 8.0;
    text("masked", lx, out.masked_swatch.y + kGridSwatch / 2.0 + kGridMidline * kGridTickSize, kGridTickSize,
         palette::ink, "legend");
    right = std::max(right, lx + fonts.regular.text_width("masked", kGridTickSize));
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
    const double caption_baseline = y + fonts.bold.ascent(kGridCaptionSize);
    y += kGridCaptionSize * 1.3 + 4;
    if (out.token_labels) y += rotate_cols ? label_w + 8 : label_size * 1.3 + 4;
    out.grid.y = static_cast<int>(std::ceil(y));
    // Horizontal: layer captions, query labels, the maps, the colour bar.
    const double caption_end =
        kGridMargin + fonts.bold.text_width("layer " + std::to_string(out.layers), kGridCaptionSize);
    out.grid.x =
        static_cast<int>(std::ceil(caption_end + 10 + (out.token_labels ? label_w + 6 : 0)));
    out.grid.w = out.heads * out.map_side() + (out.heads - 1) * out.gap;
    out.grid.h = out.layers * out.map_side() + (out.layers - 1) * out.gap;

    add_head_captions(caption_baseline, caption_end);
    add_layer_captions(caption_end);
    add_token_labels(rotate_cols);
    add_colorbar();
    out.width = static_cast<int>(std::ceil(right)) + kGridMargin;
    const RectI& last = out.has_masked ? out.masked_swatch : out.colorbar;
    out.height = std::max(out.grid.y + out.grid.h, last.y + last.h) + kGridMargin;
    out.fits_slide = out.width <= kSlideWidth && out.height <= kSlideHeight;
  }
};

// ---- PNG ----

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

// ---- SVG ----

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
  Builder b{figure, default_fonts(), {}, {}, kGridLabelSize, 0};
  b.build(cell);
  return std::move(b.out);
}

ModelGridLayout model_grid_layout(const ModelGridFigure& figure) {
  for (int cell = kGridMaxCell; cell > kMinCell; --cell) {
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
  draw_colorbar(canvas, figure.scale.map, {l.colorbar, &l.ticks, l.has_masked, l.masked_swatch}, scale);
  for (const TextItem& t : l.texts) draw_text(canvas, t, scale);
  return canvas;
}

std::string model_grid_svg(const ModelGridFigure& figure) {
  const ModelGridLayout l = model_grid_layout(figure);
  std::ostringstream out;
  write_svg_start(out, l.width, l.height,
                  " data-layers=\"" + std::to_string(l.layers) + "\" data-heads=\"" + std::to_string(l.heads) +
                      "\" data-tokens=\"" + std::to_string(l.n) + "\" data-cell=\"" + std::to_string(l.cell) + "\"",
                  figure.title, figure.scale.map);
  out << "<rect class=\"page\" width=\"100%\" height=\"100%\" fill=\"" << hex(palette::page)
      << "\"/>\n";
  write_maps(out, figure, l);
  write_colorbar(out, {l.colorbar, &l.ticks, l.has_masked, l.masked_swatch});
  write_svg_end(out, l.texts);
  return out.str();
}

}  // namespace attnlab::exporter
