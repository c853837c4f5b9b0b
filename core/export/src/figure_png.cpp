// The figure rasterised on the CPU: rectangles, hatching and stb_truetype text at the target scale.
#include <stb_image_write.h>  // implementation inside Debian's libstb.so

#include <algorithm>
#include <cmath>

#include "attnlab/export/figure.h"
#include "attnlab/export/font.h"
#include "figure_parts.h"

namespace attnlab::exporter {
namespace {

using namespace parts;


void draw_cells(Canvas& canvas, const HeatmapFigure& f, const FigureLayout& l, double s) {
  for (int i = 0; i < f.values.rows(); ++i)
    for (int j = 0; j < f.values.cols(); ++j) {
      const RectI r = l.cell_rect(i, j).scaled(s);
      if (is_masked(f, i, j))
        draw_masked(canvas, r, s);
      else
        canvas.fill(r, cell_color(f, i, j));
    }
  // Head boundaries (concat): a page-coloured line 2 units wide centred on the boundary.
  if (f.col_band > 0)
    for (int j = f.col_band; j < f.values.cols(); j += f.col_band)
      canvas.fill(RectI{l.grid.x + j * l.cell - 1, l.grid.y, 2, l.grid.h}.scaled(s), palette::band);
  if (f.row_band > 0)
    for (int i = f.row_band; i < f.values.rows(); i += f.row_band)
      canvas.fill(RectI{l.grid.x, l.grid.y + i * l.cell - 1, l.grid.w, 2}.scaled(s), palette::band);
}

}  // namespace

namespace parts {

void draw_outline(Canvas& canvas, RectI r, int t, Rgba8 c) {
  canvas.fill({r.x - t, r.y - t, r.w + 2 * t, t}, c);
  canvas.fill({r.x - t, r.y + r.h, r.w + 2 * t, t}, c);
  canvas.fill({r.x - t, r.y, t, r.h}, c);
  canvas.fill({r.x + r.w, r.y, t, r.h}, c);
}

void draw_masked(Canvas& canvas, RectI r, double s) {
  canvas.fill(r, palette::masked_fill);
  canvas.hatch(r, palette::masked_hatch, 6.0 * s, 1.2 * s);
}

void draw_colorbar(Canvas& canvas, Colormap map, const Colorbar& colorbar, double s) {
  const RectI bar = colorbar.bar.scaled(s);
  for (int y = 0; y < bar.h; ++y) {
    const Rgb8 c = MapColor(map, 1.0 - (y + 0.5) / bar.h);  // top = hi
    canvas.fill({bar.x, bar.y + y, bar.w, 1}, {c.r, c.g, c.b, 255});
  }
  const int line = std::max(1, int(std::lround(s)));
  draw_outline(canvas, bar, line, palette::dim);
  for (const ColorbarTick& t : *colorbar.ticks)
    canvas.fill({bar.x + bar.w, int(std::lround(t.y * s)) - line / 2, int(std::lround(5 * s)), line}, palette::dim);
  if (colorbar.has_masked) {
    const RectI swatch = colorbar.masked_swatch.scaled(s);
    draw_masked(canvas, swatch, s);
    draw_outline(canvas, swatch, line, palette::dim);
  }
}

void draw_text(Canvas& canvas, const TextItem& t, double s) {
  const Fonts& fonts = default_fonts();
  const Font& font = t.bold ? fonts.bold : fonts.regular;
  const double size = t.size * s;
  const double w = font.text_width(t.text, size);
  const double shift = t.anchor == TextItem::Anchor::start ? 0 : t.anchor == TextItem::Anchor::middle ? w / 2 : w;
  if (t.rotated)
    font.draw(canvas, t.text, t.x * s, t.y * s + shift, size, t.color, true);
  else
    font.draw(canvas, t.text, t.x * s - shift, t.y * s, size, t.color);
}

}  // namespace parts

Canvas render_figure(const HeatmapFigure& figure, const FigureStyle& style, double scale) {
  return render_figure(figure, figure_layout(figure, style), style, scale);
}

Canvas render_figure(const HeatmapFigure& figure, const FigureLayout& l, const FigureStyle& style,
                     double scale) {
  if (!(scale >= kMinFigureScale && scale <= 8))
    throw ExportError("scale: expected 0.25 to 8, got " + std::to_string(scale));
  Canvas canvas(int(std::ceil(l.width * scale)), int(std::ceil(l.height * scale)),
                style.transparent ? Rgba8{255, 255, 255, 0} : palette::page);
  draw_cells(canvas, figure, l, scale);
  if (!style.bare)
    draw_colorbar(canvas, figure.scale.map, {l.colorbar, &l.ticks, l.has_masked, l.masked_swatch},
                  scale);
  for (const RectI& k : l.knockouts) canvas.fill(k.scaled(scale), palette::masked_fill);
  for (const TextItem& t : l.texts) draw_text(canvas, t, scale);
  return canvas;
}

std::string encode_png(const Canvas& canvas) {
  std::string bytes;
  auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
  };
  if (!stbi_write_png_to_func(append, &bytes, canvas.width(), canvas.height(), 4, canvas.data(), canvas.width() * 4))
    throw ExportError("png: encoding failed");
  return bytes;
}

}  // namespace attnlab::exporter
