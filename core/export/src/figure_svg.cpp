// The figure as SVG: the layout of figure.cpp written as vector elements, in 1x units.
#include <cmath>
#include <cstdio>
#include <sstream>

#include "attnlab/export/figure.h"
#include "attnlab/export/font.h"
#include "figure_parts.h"

namespace attnlab::exporter {
namespace parts {

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default:
        // XML 1.0 forbids most control characters; they cannot appear in a label anyway.
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t' || c == '\n') out += c;
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
  return "x=\"" + std::to_string(r.x) + "\" y=\"" + std::to_string(r.y) + "\" width=\"" + std::to_string(r.w) +
         "\" height=\"" + std::to_string(r.h) + "\"";
}

void write_defs(std::ostream& out, Colormap map) {
  out << "<defs>\n<pattern id=\"masked\" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\">"
      << "<rect width=\"6\" height=\"6\" fill=\"" << hex(palette::masked_fill) << "\"/>"
      << "<path d=\"M-1,1 l2,-2 M0,6 l6,-6 M5,7 l2,-2\" stroke=\"" << hex(palette::masked_hatch)
      << "\" stroke-width=\"1.2\"/></pattern>\n";
  out << "<linearGradient id=\"colorbar\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">";  // bottom = lo
  for (int k = 0; k <= 32; ++k) {
    const Rgb8 c = MapColor(map, k / 32.0);
    out << "<stop offset=\"" << num(k / 32.0) << "\" stop-color=\"" << hex({c.r, c.g, c.b, 255}) << "\"/>";
  }
  out << "</linearGradient>\n</defs>\n";
}

void write_svg_start(std::ostream& out, int width, int height, const std::string& data, const std::string& title,
                     Colormap map) {
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 "
      << width << " " << height << "\" font-family=\"" << default_fonts().family << "\" fill=\"" << hex(palette::ink)
      << "\"" << data << ">\n<title>" << escape(title) << "</title>\n";
  write_defs(out, map);
}

void write_colorbar(std::ostream& out, const Colorbar& l) {
  const std::string frame = "\" stroke=\"" + hex(palette::dim) + "\" stroke-width=\"1\"/>\n";
  out << "<g class=\"colorbar\">\n<rect " << rect(l.bar) << " fill=\"url(#colorbar)" << frame;
  const int x = l.bar.x + l.bar.w;
  for (const ColorbarTick& t : *l.ticks)
    out << "<line x1=\"" << x << "\" y1=\"" << t.y << "\" x2=\"" << x + 5 << "\" y2=\"" << t.y << "\" stroke=\""
        << hex(palette::dim) << "\" stroke-width=\"1\"/>\n";
  if (l.has_masked) out << "<rect class=\"masked-swatch\" " << rect(l.masked_swatch) << " fill=\"url(#masked)" << frame;
  out << "</g>\n";
}

void write_svg_end(std::ostream& out, const std::vector<TextItem>& texts) {
  out << "<g class=\"text\">\n";
  for (const TextItem& t : texts) write_text(out, t);
  out << "</g>\n</svg>\n";
}

void write_text(std::ostream& out, const TextItem& t) {
  const char* anchor = t.anchor == TextItem::Anchor::start ? "start" : t.anchor == TextItem::Anchor::middle ? "middle" : "end";
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

}  // namespace parts

namespace {

using namespace parts;


void write_cells(std::ostream& out, const HeatmapFigure& f, const FigureLayout& l) {
  out << "<g class=\"cells\" shape-rendering=\"crispEdges\">\n";
  for (int i = 0; i < f.values.rows(); ++i)
    for (int j = 0; j < f.values.cols(); ++j) {
      const bool masked = is_masked(f, i, j);
      char value[40];
      std::snprintf(value, sizeof value, "%.17g", f.values(i, j));
      out << "<rect class=\"cell" << (masked ? " masked" : "") << "\" data-row=\"" << i << "\" data-col=\"" << j
          << "\" data-value=\"" << value << "\" " << rect(l.cell_rect(i, j)) << " fill=\""
          << (masked ? std::string("url(#masked)") : hex(cell_color(f, i, j))) << "\"/>\n";
    }
  for (int j = f.col_band; f.col_band > 0 && j < f.values.cols(); j += f.col_band)
    out << "<rect class=\"head-boundary\" " << rect({l.grid.x + j * l.cell - 1, l.grid.y, 2, l.grid.h})
        << " fill=\"" << hex(palette::band) << "\"/>\n";
  for (int i = f.row_band; f.row_band > 0 && i < f.values.rows(); i += f.row_band)
    out << "<rect class=\"head-boundary\" " << rect({l.grid.x, l.grid.y + i * l.cell - 1, l.grid.w, 2})
        << " fill=\"" << hex(palette::band) << "\"/>\n";
  for (const RectI& k : l.knockouts)
    out << "<rect class=\"knockout\" " << rect(k) << " fill=\"" << hex(palette::masked_fill) << "\"/>\n";
  out << "</g>\n";
}

}  // namespace

std::string figure_svg(const HeatmapFigure& figure, const FigureStyle& style) {
  const FigureLayout l = figure_layout(figure, style);
  std::ostringstream out;
  write_svg_start(out, l.width, l.height,
                  " data-rows=\"" + std::to_string(figure.values.rows()) + "\" data-cols=\"" +
                      std::to_string(figure.values.cols()) + "\"",
                  figure.title, figure.scale.map);
  if (!style.transparent) out << "<rect class=\"page\" width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  write_cells(out, figure, l);
  if (!style.bare) write_colorbar(out, {l.colorbar, &l.ticks, l.has_masked, l.masked_swatch});
  write_svg_end(out, l.texts);
  return out.str();
}

}  // namespace attnlab::exporter
