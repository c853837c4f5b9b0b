#pragma once
/// Drawing pieces the heatmap figure and the model grid share (private to attnlab_export): label
/// fitting (figure.cpp), masked cells, the colour bar and text as pixels (figure_png.cpp) and as
/// SVG (figure_svg.cpp), so both figures look alike by construction.
#include <ostream>
#include <string>
#include <vector>

#include "attnlab/colormap.h"
#include "attnlab/export/canvas.h"
#include "attnlab/export/figure.h"
#include "attnlab/export/font.h"

namespace attnlab::exporter::parts {

/// `text` cut to `max_width` with an ellipsis: the longest prefix that fits (text_fit.h).
std::string clip(const Font& font, const std::string& text, double size, double max_width);
/// The widest of `texts` at `size`.
double widest(const Font& font, const std::vector<std::string>& texts, double size);

/// A colour bar as a layout places it (figure units): top = hi, bottom = lo.
struct Colorbar {
  RectI bar;
  const std::vector<ColorbarTick>* ticks = nullptr;
  bool has_masked = false;
  RectI masked_swatch;  ///< the legend entry for masked cells (when has_masked)
};

// Pixels, at scale s (a fractional zoom on lesson slides).
void draw_outline(Canvas& canvas, RectI r, int t, Rgba8 c);
void draw_masked(Canvas& canvas, RectI r, double s);
void draw_colorbar(Canvas& canvas, Colormap map, const Colorbar& bar, double s);
void draw_text(Canvas& canvas, const TextItem& t, double s);

// SVG, in figure units.
std::string escape(const std::string& s);
std::string hex(Rgba8 c);
std::string num(double v);
std::string rect(RectI r);
/// The masked-cell pattern and the colour bar's gradient of `map`.
void write_defs(std::ostream& out, Colormap map);
/// The document's start: the XML declaration, <svg> of `width` by `height` with the figures' font
/// and ink and the extra attributes `data` (` data-rows="3"`), the title, write_defs(map).
void write_svg_start(std::ostream& out, int width, int height, const std::string& data, const std::string& title,
                     Colormap map);
/// The document's end: every text item, then </svg>.
void write_svg_end(std::ostream& out, const std::vector<TextItem>& texts);
void write_colorbar(std::ostream& out, const Colorbar& bar);
void write_text(std::ostream& out, const TextItem& t);

}  // namespace attnlab::exporter::parts
