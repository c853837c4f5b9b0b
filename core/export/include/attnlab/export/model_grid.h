#pragma once
/// The model view for a slide (BertViz's "model view"): every layer's and every head's attention
/// weights as small heatmaps in one figure, layers down, heads across. One layout
/// (model_grid_layout) feeds both the PNG rasteriser and the SVG writer, as figure.h does for one
/// matrix; the colours, fonts, masked cells and colour bar are those of the weights figures.
/// Independent of models/: the caller turns a forward run into a ModelGridFigure.
#include <string>
#include <vector>

#include "attnlab/colormap.h"
#include "attnlab/export/canvas.h"
#include "attnlab/export/figure.h"
#include "attnlab/export/lesson_slides.h"  // kSlideWidth, kSlideHeight: the size the grid fits
#include "attnlab/matrix.h"

namespace attnlab::exporter {

struct ModelGridFigure {
  std::string title;     ///< e.g. "gpt2 – attention weights of every layer and head"
  std::string subtitle;  ///< e.g. the sentence and the shape; may be empty
  std::vector<std::string>
      tokens;  ///< n labels (keys = queries), drawn when the cells are big enough
  /// [layer][head]: n by n, rows = queries, columns = keys; every layer has the same number of
  /// heads.
  std::vector<std::vector<Matrix>> weights;
  /// Empty, or n by n: cells that are false are drawn masked (a causal model: j > i).
  BoolArray allowed;
  ColorScale scale{Colormap::Viridis, 0.0, 1.0};  ///< weights: a sequential map on [0, 1]
};

/// n by n, true on and below the diagonal: a decoder's causal mask.
BoolArray causal_allowed(int n);

/// Where everything goes, in figure units (1x pixels); a PNG at scale s multiplies every
/// coordinate.
struct ModelGridLayout {
  int width = 0, height = 0;
  int layers = 0, heads = 0, n = 0;
  int cell = 0;    ///< cell side, at least kMinCell
  int gap = 0;     ///< between neighbouring maps
  RectI grid;      ///< all maps with the gaps between them
  RectI colorbar;  ///< top = scale.hi, bottom = scale.lo
  std::vector<ColorbarTick> ticks;
  bool has_masked = false;
  RectI masked_swatch;        ///< legend entry for masked cells (when has_masked)
  bool token_labels = false;  ///< token labels along the first row and column of maps
  bool fits_slide = false;    ///< width <= 1920 and height <= 1080
  std::vector<TextItem> texts;

  int map_side() const { return n * cell; }
  RectI map_rect(int layer, int head) const {
    return {grid.x + head * (map_side() + gap), grid.y + layer * (map_side() + gap), map_side(),
            map_side()};
  }
  RectI cell_rect(int layer, int head, int i, int j) const {
    const RectI m = map_rect(layer, head);
    return {m.x + j * cell, m.y + i * cell, cell, cell};
  }
};

constexpr int kMinCell = 2;  ///< never smaller, even when the figure then exceeds a slide

/// True when cell (i, j) is drawn masked.
bool is_masked(const ModelGridFigure& figure, int i, int j);
/// Colour of cell (i, j) of layer `layer`, head `head`: its colormap colour, or
/// palette::masked_fill.
Rgba8 cell_color(const ModelGridFigure& figure, int layer, int head, int i, int j);

/// The largest cell (up to a readable maximum) whose figure fits a 1920x1080 slide, else kMinCell.
/// Throws ExportError for no layers, no heads, ragged layers or a matrix that is not n by n.
ModelGridLayout model_grid_layout(const ModelGridFigure& figure);
/// The same with the cell side given (>= kMinCell), e.g. to compare sizes.
ModelGridLayout model_grid_layout(const ModelGridFigure& figure, int cell);

/// Rasterises the figure at `scale` (1 to 8): exactly scale times the 1x size, text at that size.
Canvas render_model_grid(const ModelGridFigure& figure, int scale);
/// The figure as SVG: one <rect class="cell" data-layer data-head data-row data-col data-value> per
/// entry of every map (layer and head 0-based like rows and columns), captions and labels as
/// <text>.
std::string model_grid_svg(const ModelGridFigure& figure);

}  // namespace attnlab::exporter
