#pragma once
/// Text inside a heatmap: the one number format of a matrix's cells, and labels turned upright.
#include <imgui.h>

#include "view/heatmap_scan.h"

namespace attnlab::app {

/// How a matrix prints its values.
struct ValueFormat {
  int decimals = 2;
  float text_width = 0;  // widest formatted value, in the mono font
};

/// One format per matrix so that the numbers line up: integers stay integers, others get `wanted`
/// decimals, fewer (down to what their magnitude always had: 2 below 10, 1 below 100, else 0)
/// when the widest would not fit in `room` pixels in the `mono` font; past that the caller
/// draws no values.
ValueFormat ChooseValueFormat(const ValueScan& scan, int wanted, float room, ImFont* mono);

/// The background gap at the right and bottom of a cell: only cells of 14 px or more spare one.
float CellGap(float cell);
/// Pixels a printed value may take in a cell (a little air on both sides).
float ValueRoom(float cell);
/// Bounds of a value's text size in pixels (0: the default bound).
struct ValueSizes {
  float max = 0;  ///< 0: the mono font's size; above it, numbers grow with their cells
};
/// The size at which values `text_width` wide (in `mono` at its own size) are written in a cell:
/// the font's own (or up to `sizes.max` in a large cell), or smaller down to SmallestValuePx
/// rather than not at all; 0 when even that does not fit.
float ValueTextSize(float text_width, float cell, ImFont* mono, ValueSizes sizes = {});
/// The cell a heatmap takes where it has the room: 3.4 mono font sizes (ChooseCellSize's).
float PreferredCell();
/// The largest cell a figure that fills its panel grows to (Tiles, Decode): twice the preferred.
float GrowingCellMax();
/// HeatmapSpec::value_max where numbers grow with their cells: the mono font's size up to the
/// preferred cell, in proportion past it (twice it in a cell twice as large).
float GrowingValueMax(float cell);
/// The font values `value_px` large are drawn with: `mono`, or above its size the theme's digits
/// (crisp large numbers rather than mono's glyphs stretched).
ImFont* ValueFont(float value_px, ImFont* mono);

/// A formula on its own line under a heatmap's title: `wrap`, the width it wraps at (0: one line;
/// a formula wider than the current window, RoPE's at 1280x800, wraps at the window's content
/// width, at least the grid's `natural_w`, rather than running past its edge), its height and
/// `width`, its widest line as drawn.
struct FormulaLines {
  float wrap = 0, height = 0, width = 0;
};
FormulaLines FitFormula(ImFont* mono, const char* formula, float natural_w, float font_size);

/// Draws text turned a quarter turn counter-clockwise (reading bottom to top); `bottom_left` is
/// where the first character starts.
void AddVerticalText(ImDrawList* dl, ImVec2 bottom_left, ImU32 color, const char* text);

/// The smallest cell that still has its value written in it, at `decimals` decimals (the values
/// are written smaller in a narrow cell, down to a floor; below it, not at all).
float SmallestCellWithValues(int decimals);
/// A cell size (whole pixels, at least 2) for a rows x cols matrix: large enough to print values
/// with `decimals` decimals when the grid fits in max_width x max_height pixels, smaller otherwise.
float ChooseCellSize(int rows, int cols, float max_width, float max_height, int decimals);
/// A cell size at which the whole grid fits in max_width x max_height: as ChooseCellSize from 2
/// pixels up; 1, or 1.5 to 2 (every cell keeps a pixel of its own, which samples its own texel);
/// below 1 pixel the cells are pooled (several a pixel) so that any matrix fits.
float FitCellSize(int rows, int cols, float max_width, float max_height, int decimals);

}  // namespace attnlab::app
