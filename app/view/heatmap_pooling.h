#pragma once
/// What a heatmap texture holds: one texel per cell when cells get a pixel or more, otherwise one
/// texel per screen pixel, pooled over the block of cells that falls in it, so that a texture is
/// never larger than what the screen shows (8 heads of 2048 x 2048 become 8 small images).
/// No ImGui or GL here: the window draws these texels, the tests recompute them.
#include <cstdint>
#include <vector>

#include "attnlab/colormap.h"
#include "attnlab/matrix.h"

namespace attnlab::app {

/// Fill of a masked cell (-inf, NaN, or not allowed); hatch lines are drawn over it in
/// kMaskedHatch.
constexpr Rgb8 kMaskedFill{62, 62, 70};
constexpr Rgb8 kMaskedHatch{110, 110, 122};

/// How a block of cells becomes one texel. Max-pooling rather than the mean: a one-hot weights
/// row (the peak a teacher points at) keeps its full colour in a pixel that covers 8 cells, where
/// the mean would fade it to 1/8. Signed data pool to the value farthest from 0, sign kept, so a
/// strong negative stays as visible as a strong positive. Masked cells take no part; a block of
/// masked cells only is drawn masked.
enum class Pooling { None, Max, MaxAbs };

/// Max for a sequential map (weights on [0, 1]), MaxAbs for a diverging one (centred on 0).
Pooling PoolingFor(const ColorScale& scale);
const char* PoolingName(Pooling pooling);  ///< "none", "max", "max_abs" (the layout dump's names)

/// The matrix's cells and the texels they are drawn with.
struct TexelGrid {
  int rows = 0, cols = 0;        ///< the matrix
  int rows_px = 0, cols_px = 0;  ///< the texture: the matrix's shape unless pooled
  Pooling pooling = Pooling::None;
};

/// For cells of `cell` pixels: one texel per cell when cell >= 1, else floor(n * cell) texels
/// along each side (at least 1), pooled as PoolingFor(scale).
TexelGrid MakeTexelGrid(int rows, int cols, float cell, const ColorScale& scale);

/// Cells [first, last) that texel i covers along a side of n cells and n_px texels:
/// [i * n / n_px, (i + 1) * n / n_px), integer division (every cell in exactly one texel).
struct CellSpan {
  int first = 0, last = 0;
};
CellSpan CellsOfTexel(int i, int n, int n_px);

struct CellIndex {
  int row = 0, col = 0;
};

/// The matrix a heatmap draws, with the optional mask of allowed cells (same shape).
struct HeatmapData {
  const attnlab::Matrix* values = nullptr;      ///< rows by cols; -inf or NaN marks a masked cell
  const attnlab::BoolArray* allowed = nullptr;  ///< cells that are false here are drawn masked
};

bool IsMaskedCell(const HeatmapData& data, int r, int c);

/// The cell whose value texel (x, y) shows: itself, or the pooled cell of its block (the first
/// cell of the block when all are masked). This is the cell a hover over that pixel inspects.
CellIndex ShownCell(const HeatmapData& data, const TexelGrid& grid, int x, int y);

/// The texture: RGBA8, row-major, cols_px x rows_px texels, colours through `scale`.
std::vector<std::uint8_t> BuildTexels(const HeatmapData& data, const TexelGrid& grid,
                                      const ColorScale& scale);

}  // namespace attnlab::app
