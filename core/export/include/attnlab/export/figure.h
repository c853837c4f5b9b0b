#pragma once
/// A slide-ready heatmap figure: title, token labels on both axes, a colour bar with its range,
/// optional values in the cells, masked cells hatched. One layout (figure_layout) feeds both the
/// PNG rasteriser and the SVG writer, so the two draw the same figure.
#include <string>
#include <vector>

#include "attnlab/colormap.h"
#include "attnlab/export/canvas.h"
#include "attnlab/matrix.h"
#include "attnlab/number_format.h"

namespace attnlab::exporter {

/// What to draw: one matrix as displayed (already in the scenario's layout) and its labels.
struct HeatmapFigure {
  std::string title;     ///< e.g. "Head 2 – attention weights (rows: queries)"
  std::string subtitle;  ///< e.g. "A = softmax(S′) along each row · 6 × 6"; may be empty
  Matrix values;         ///< rows by cols; -inf marks a masked cell
  BoolArray allowed;     ///< empty, or rows by cols: cells that are false here are drawn masked too
                         ///< (the weights of masked scores are exactly 0)
  std::vector<std::string> row_labels, col_labels;  ///< rows and cols entries
  std::string row_axis, col_axis;                   ///< what rows / columns run over: "queries", "d_k"
  std::string corner;     ///< CSV's first header field, e.g. "queries"
  ColorScale scale;       ///< explicit range: weights [0, 1], signed matrices +-max|x|
  int col_band = 0, row_band = 0;  ///< > 0: a head boundary every n columns / rows (concat)
  bool masked_text_is_value = false;  ///< masked cells print their value (0 weights), not "−∞"
  /// Non-empty: the hatched cells hold nothing, not a masked score: they print nothing and the
  /// legend names them so ("evicted": the rows a K/V cache no longer holds); empty: "masked (−∞)".
  std::string hatched_legend;
};

struct FigureStyle {
  bool values = false;       ///< print each value in its cell (black or white by luminance)
  bool transparent = false;  ///< no page colour (PNG alpha 0, SVG without background rect)
  int decimals = kDefaultDecimals;  ///< of the values in cells and the colour bar's ends
                                    ///< (kMinDecimals to kMaxDecimals; integer matrices: none)
  /// Lower bounds on the cell side and the figure's size (figure units; 0: none), so that the
  /// frames of a sweep, whose titles and values differ, share one size and one grid position.
  int min_cell = 0, min_width = 0, min_height = 0;
  /// The largest em size of the values in cells (figure units; 0: the figures' own, 13); they
  /// shrink from it until the widest fits its cell. Slides ask for more, so that the numbers fill
  /// their cells as a class reads them from the back of the room.
  double max_value_size = 0;
  /// The cells alone, no title, labels, axis names or colour bar: a slide's small multiples (every
  /// head of a model layer), which the slide captions itself at a size the class reads.
  bool bare = false;
};

/// One piece of text, positioned in figure units (1x pixels). (x, y) is the baseline anchor.
struct TextItem {
  enum class Anchor { start, middle, end };
  std::string text;
  double x = 0, y = 0;
  double size = 12;  ///< em size
  bool bold = false;
  bool rotated = false;  ///< runs upwards (SVG rotate(-90))
  Anchor anchor = Anchor::start;
  Rgba8 color;
  std::string role;  ///< SVG class: title, subtitle, row-label, col-label, axis, tick, value, legend
  int row = -1, col = -1;  ///< label index / value cell, -1 when not applicable
};

struct ColorbarTick {
  double value = 0;
  int y = 0;  ///< figure units
};

/// Where everything goes, in figure units; a PNG at scale s multiplies every coordinate by s.
struct FigureLayout {
  int width = 0, height = 0;
  RectI grid;       ///< the matrix, cells tiled without gaps
  int cell = 0;     ///< cell side
  RectI colorbar;   ///< top = scale.hi, bottom = scale.lo
  std::vector<ColorbarTick> ticks;
  bool has_masked = false;
  RectI masked_swatch;  ///< legend entry for masked cells (when has_masked)
  double value_size = 0;  ///< em size of the values in cells (0: they do not fit / are off)
  int value_decimals = 2;
  std::vector<RectI> knockouts;  ///< masked_fill patches behind the values of masked cells
  std::vector<TextItem> texts;
  RectI cell_rect(int i, int j) const { return {grid.x + j * cell, grid.y + i * cell, cell, cell}; }
};

/// Page, text and masked-cell colours, shared by PNG and SVG.
namespace palette {
constexpr Rgba8 page{255, 255, 255, 255};
constexpr Rgba8 ink{30, 30, 30, 255};
constexpr Rgba8 dim{95, 95, 95, 255};
constexpr Rgba8 masked_fill{232, 232, 232, 255};
constexpr Rgba8 masked_hatch{160, 160, 160, 255};
constexpr Rgba8 masked_ink{90, 90, 90, 255};
constexpr Rgba8 band{255, 255, 255, 255};
}  // namespace palette

/// True when cell (i, j) is drawn masked (-inf in values, or not allowed).
bool is_masked(const HeatmapFigure& figure, int i, int j);
/// Colour of cell (i, j): the colormap colour of its value, or palette::masked_fill.
Rgba8 cell_color(const HeatmapFigure& figure, int i, int j);
/// Text printed in cell (i, j) with `decimals` decimals ("−∞" for a masked score, nothing for a
/// hatched cell of a figure with a hatched_legend).
std::string cell_text(const HeatmapFigure& figure, int i, int j, int decimals);

FigureLayout figure_layout(const HeatmapFigure& figure, const FigureStyle& style);

/// The smallest zoom render_figure takes (a lesson slide shrinks a large matrix to fit).
constexpr double kMinFigureScale = 0.25;
/// Rasterises the figure at `scale` (1, 2, 4, ..., or a fractional zoom from kMinFigureScale to 8):
/// scale times the 1x size (rounded up), with text rendered at that size, and cell edges rounded
/// so the cells still tile.
Canvas render_figure(const HeatmapFigure& figure, const FigureStyle& style, double scale);
/// The same with `layout`, figure_layout(figure, style) computed once by the caller.
Canvas render_figure(const HeatmapFigure& figure, const FigureLayout& layout,
                     const FigureStyle& style, double scale);
/// PNG bytes (RGBA) of a canvas.
std::string encode_png(const Canvas& canvas);
/// The same figure as SVG: one <rect class="cell" data-row data-col> per matrix entry, a <text>
/// per label, a colour bar.
std::string figure_svg(const HeatmapFigure& figure, const FigureStyle& style);

}  // namespace attnlab::exporter
