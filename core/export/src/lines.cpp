// Attention as lines: the layout, its pixels and its SVG (lines.h).
#include "attnlab/export/lines.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "attnlab/export/font.h"
#include "attnlab/numbering.h"
#include "figure_parts.h"

namespace attnlab::exporter {
// Named, not anonymous: the export library compiles in unity batches beside figure.cpp, whose
// anonymous namespace has constants of the same names.
namespace lines_parts {

using namespace parts;

constexpr double kLinesTitleSize = 18, kLinesSubtitleSize = 13, kLinesLabelSize = 15, kLinesLegendSize = 13;
constexpr double kLinesMidline = 0.36;  // a label's baseline below its row's centre, in ems
constexpr int kLinesMargin = 16, kLinesRow = 22, kLinesGap = 8, kLinesLineArea = 300, kLinesMaxLabel = 180, kLinesSwatch = 12;
constexpr double kLinesLineWidth = 1.5;
static_assert(kMinLineWeight == 0.005, "the SVG's data-min-weight says 0.005");

std::vector<std::string> labels_or(const std::vector<std::string>& given, long n, const char* prefix) {
  if (long(given.size()) == n) return given;
  std::vector<std::string> out;
  for (long i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

Rgba8 opaque(Rgb8 c) { return {c.r, c.g, c.b, 255}; }

// Calls line(head, i, j, weight) for every line drawn, heads in order.
template <class Line>
void each_line(const LinesFigure& f, Line&& line) {
  for (const LinesFigure::Head& h : f.heads)
    for (Eigen::Index i = 0; i < h.weights.rows(); ++i)
      for (Eigen::Index j = 0; j < h.weights.cols(); ++j)
        if (h.weights(i, j) >= kMinLineWeight) line(h, int(i), int(j), h.weights(i, j));
}

// An anti-aliased segment: along its longer axis, each step covers the pixels across it by their
// distance from the segment (coverage falls off over one pixel), times `opacity`.
void draw_segment(Canvas& canvas, double x0, double y0, double x1, double y1, double width, Rgba8 c,
                  double opacity) {
  const double dx = x1 - x0, dy = y1 - y0, length = std::hypot(dx, dy);
  if (length <= 0) return;
  const double nx = -dy / length, ny = dx / length, half = width / 2;
  const bool along_x = std::fabs(dx) >= std::fabs(dy);
  const double reach = half + 1.0;
  const double across = reach / std::max(std::fabs(along_x ? ny : nx), 1e-9);
  const int lo = int(std::floor(along_x ? std::min(x0, x1) : std::min(y0, y1)));
  const int hi = int(std::ceil(along_x ? std::max(x0, x1) : std::max(y0, y1)));
  for (int u = lo; u <= hi; ++u) {
    const double t = ((u + 0.5) - (along_x ? x0 : y0)) / (along_x ? dx : dy);
    const double centre = (along_x ? y0 + t * dy : x0 + t * dx) - 0.5;
    for (int v = int(std::floor(centre - across)); v <= int(std::ceil(centre + across)); ++v) {
      const double px = (along_x ? u : v) + 0.5, py = (along_x ? v : u) + 0.5;
      const double along = ((px - x0) * dx + (py - y0) * dy) / length;
      if (along < -0.5 || along > length + 0.5) continue;
      const double d = std::fabs((px - x0) * nx + (py - y0) * ny);
      canvas.blend(along_x ? u : v, along_x ? v : u, c, opacity * std::clamp(half + 0.5 - d, 0.0, 1.0));
    }
  }
}

void add_text(LinesLayout& l, std::string text, double x, double y, double size, Rgba8 color, const char* role,
              TextItem::Anchor anchor = TextItem::Anchor::start, bool bold = false, int row = -1, int col = -1) {
  TextItem t;
  t.text = std::move(text), t.x = x, t.y = y, t.size = size, t.color = color, t.role = role, t.anchor = anchor;
  t.bold = bold, t.row = row, t.col = col;
  l.texts.push_back(std::move(t));
}

}  // namespace lines_parts

using namespace lines_parts;

LinesFigure lines_figure(const Scenario& s, const Trace& t, int head) {
  LinesFigure f;
  if (t.heads.empty()) return f;
  const bool rows = s.layout == Layout::rows;
  const Matrix& first = t.heads.front().weights;  // rows: n_x by n_z; columns: n_z by n_x
  const long n_x = rows ? first.rows() : first.cols(), n_z = rows ? first.cols() : first.rows();
  f.queries = labels_or(s.tokens, n_x, "x");
  f.keys = s.cross_attention() ? labels_or(s.context_tokens, n_z, "z") : labels_or(s.tokens, n_z, "x");
  for (int h = 0; h < int(t.heads.size()); ++h) {
    if (head >= 0 && h != head) continue;
    const Matrix& w = t.heads[std::size_t(h)].weights;
    f.heads.push_back({h, HeadColor(h), rows ? w : Matrix(w.transpose())});
  }
  f.title = head >= 0 ? "Head " + index_text(head) + " \xE2\x80\x93 attention as lines"
                      : "Every head \xE2\x80\x93 attention as lines";
  f.subtitle = std::string("queries on the left, ") + (s.cross_attention() ? "context keys" : "keys") +
               " on the right; a line's opacity is its weight A[i, j]";
  return f;
}

LinesLayout lines_layout(const LinesFigure& f) {
  const Fonts& fonts = default_fonts();
  LinesLayout l;
  l.label_px = kLinesLabelSize;
  l.row = kLinesRow;
  double y = kLinesMargin;
  add_text(l, f.title, kLinesMargin, y + fonts.bold.ascent(kLinesTitleSize), kLinesTitleSize, palette::ink, "title",
           TextItem::Anchor::start, true);
  double right = kLinesMargin + fonts.bold.text_width(f.title, kLinesTitleSize);
  y += kLinesTitleSize * 1.35;
  add_text(l, f.subtitle, kLinesMargin, y + fonts.regular.ascent(kLinesSubtitleSize), kLinesSubtitleSize, palette::dim, "subtitle");
  right = std::max(right, kLinesMargin + fonts.regular.text_width(f.subtitle, kLinesSubtitleSize));
  y += kLinesSubtitleSize * 1.6;
  // The legend: a swatch and "head h" per head, in one row.
  double x = kLinesMargin;
  for (const LinesFigure::Head& h : f.heads) {
    l.swatches.push_back({int(x), int(y), kLinesSwatch, kLinesSwatch});
    const std::string name = head_label(h.index);
    add_text(l, name, x + kLinesSwatch + 5, y + kLinesSwatch / 2.0 + kLinesMidline * kLinesLegendSize, kLinesLegendSize, palette::ink, "legend",
             TextItem::Anchor::start, false, h.index);
    x += kLinesSwatch + 5 + fonts.regular.text_width(name, kLinesLegendSize) + 14;
  }
  right = std::max(right, x);
  y += kLinesSwatch + 14;
  // Two columns of labels, each as wide as its widest (up to kLinesMaxLabel), the lines between.
  const double left_w = std::min<double>(kLinesMaxLabel, widest(fonts.regular, f.queries, kLinesLabelSize));
  const double right_w = std::min<double>(kLinesMaxLabel, widest(fonts.regular, f.keys, kLinesLabelSize));
  l.top = int(std::ceil(y));
  l.left_end = kLinesMargin + int(std::ceil(left_w));
  l.line_x0 = l.left_end + kLinesGap;
  l.line_x1 = l.line_x0 + kLinesLineArea;
  l.right_start = l.line_x1 + kLinesGap;
  for (std::size_t i = 0; i < f.queries.size(); ++i)
    add_text(l, clip(fonts.regular, f.queries[i], kLinesLabelSize, kLinesMaxLabel), l.left_end,
             l.row_y(int(i)) + kLinesMidline * kLinesLabelSize, kLinesLabelSize, palette::ink, "query", TextItem::Anchor::end, false,
             int(i));
  for (std::size_t j = 0; j < f.keys.size(); ++j)
    add_text(l, clip(fonts.regular, f.keys[j], kLinesLabelSize, kLinesMaxLabel), l.right_start,
             l.row_y(int(j)) + kLinesMidline * kLinesLabelSize, kLinesLabelSize, palette::ink, "key", TextItem::Anchor::start, false,
             -1, int(j));
  const std::size_t rows = std::max(f.queries.size(), f.keys.size());
  l.width = int(std::ceil(std::max(right, l.right_start + right_w) + kLinesMargin));
  l.height = l.top + int(rows) * l.row + kLinesMargin;
  return l;
}

Canvas render_lines(const LinesFigure& f, double scale, bool transparent) {
  if (!(scale >= kMinFigureScale && scale <= 8))
    throw ExportError("scale: expected 0.25 to 8, got " + std::to_string(scale));
  const LinesLayout l = lines_layout(f);
  Canvas canvas(int(std::ceil(l.width * scale)), int(std::ceil(l.height * scale)),
                transparent ? Rgba8{255, 255, 255, 0} : palette::page);
  for (std::size_t k = 0; k < f.heads.size(); ++k) canvas.fill(l.swatches[k].scaled(scale), opaque(f.heads[k].color));
  each_line(f, [&](const LinesFigure::Head& h, int i, int j, double w) {
    draw_segment(canvas, l.line_x0 * scale, l.row_y(i) * scale, l.line_x1 * scale, l.row_y(j) * scale,
                 kLinesLineWidth * scale, opaque(h.color), w);
  });
  for (const TextItem& t : l.texts) draw_text(canvas, t, scale);
  return canvas;
}

std::string lines_svg(const LinesFigure& f, bool transparent) {
  const LinesLayout l = lines_layout(f);
  std::ostringstream out;
  write_svg_start(out, l.width, l.height,
                  " data-queries=\"" + std::to_string(f.queries.size()) + "\" data-keys=\"" +
                      std::to_string(f.keys.size()) + "\" data-min-weight=\"0.005\"",
                  f.title, Colormap::Viridis);
  if (!transparent) out << "<rect class=\"page\" width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  out << "<g class=\"legend\">\n";
  for (std::size_t k = 0; k < f.heads.size(); ++k)
    out << "<rect class=\"swatch\" data-head=\"" << f.heads[k].index << "\" " << rect(l.swatches[k]) << " fill=\""
        << hex(opaque(f.heads[k].color)) << "\"/>\n";
  out << "</g>\n<g class=\"lines\" stroke-width=\"" << num(kLinesLineWidth) << "\" stroke-linecap=\"round\">\n";
  each_line(f, [&](const LinesFigure::Head& h, int i, int j, double w) {
    char opacity[32];
    std::snprintf(opacity, sizeof opacity, "%.6g", w);
    out << "<line class=\"attention\" data-head=\"" << h.index << "\" data-query=\"" << i << "\" data-key=\"" << j
        << "\" x1=\"" << l.line_x0 << "\" y1=\"" << num(l.row_y(i)) << "\" x2=\"" << l.line_x1 << "\" y2=\""
        << num(l.row_y(j)) << "\" stroke=\"" << hex(opaque(h.color)) << "\" stroke-opacity=\"" << opacity << "\"/>\n";
  });
  out << "</g>\n";
  write_svg_end(out, l.texts);
  return out.str();
}

std::string lines_stem(int head) { return head < 0 ? "lines" : "head" + index_text(head) + "_lines"; }

}  // namespace attnlab::exporter
