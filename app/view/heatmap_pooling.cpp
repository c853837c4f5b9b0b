#include "view/heatmap_pooling.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnlab::app {
namespace {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();  // a block with no value yet

// MapValue through a table: a 2048 x 2048 matrix is 4M cells, and the UI thread must never stall.
// 4096 steps are far finer than 8-bit colour (the pixel tests allow 2 levels).
class ColorTable {
 public:
  explicit ColorTable(const ColorScale& scale) : scale_(scale) {
    const double span = scale.hi - scale.lo;
    degenerate_ = !(span > 0.0) || !std::isfinite(span);
    inv_step_ = degenerate_ ? 0.0 : (kSize - 1) / span;
    for (int i = 0; i < kSize; ++i) table_[i] = MapColor(scale.map, i / double(kSize - 1));
  }
  Rgb8 operator()(double v) const {
    if (degenerate_ || std::isnan(v)) return MapValue(scale_, v);
    const double t = std::clamp((v - scale_.lo) * inv_step_, 0.0, double(kSize - 1));
    return table_[static_cast<int>(t + 0.5)];
  }

 private:
  static constexpr int kSize = 4096;
  ColorScale scale_;
  bool degenerate_ = false;
  double inv_step_ = 0;
  Rgb8 table_[kSize];
};

bool Masked(double v, bool allowed) { return !allowed || v != v || v == -INFINITY; }

// Whether v takes the place of `best` as its block's pooled value (kNone: nothing seen yet). A
// tie in |v| goes to the larger value, so the result does not depend on the order of the cells.
template <Pooling P>
bool Replaces(double v, double best) {
  if (best != best) return true;
  if constexpr (P == Pooling::MaxAbs)
    return std::fabs(v) > std::fabs(best) || (std::fabs(v) == std::fabs(best) && v > best);
  return v > best;
}

bool Replaces(Pooling pooling, double v, double best) {
  return pooling == Pooling::MaxAbs ? Replaces<Pooling::MaxAbs>(v, best)
                                    : Replaces<Pooling::Max>(v, best);
}

void PutTexel(std::uint8_t* px, Rgb8 c) {
  px[0] = c.r;
  px[1] = c.g;
  px[2] = c.b;
  px[3] = 255;
}

// The first column of each texel column, then one past the last: texel x covers columns
// first[x] .. first[x + 1] - 1.
std::vector<int> ColumnStarts(const TexelGrid& g) {
  std::vector<int> first(static_cast<std::size_t>(g.cols_px) + 1);
  for (int x = 0; x <= g.cols_px; ++x)
    first[std::size_t(x)] = CellsOfTexel(x, g.cols, g.cols_px).first;
  first.back() = g.cols;
  return first;
}

// Pooling is separable: first down the rows of texel row y, cell by cell into `column` (no
// reduction across cells, so the compiler vectorises it and memory bandwidth is the limit: 4M
// cells in 4 to 6 ms instead of 8 to 14), then across each texel's columns into pooled[x] (kNone
// where every cell of the block is masked).
template <Pooling P>
void PoolTexelRow(const HeatmapData& d, const TexelGrid& g, int y, const std::vector<int>& first,
                  std::vector<double>& column, std::vector<double>& pooled) {
  std::fill(column.begin(), column.end(), kNone);
  const CellSpan rows = CellsOfTexel(y, g.rows, g.rows_px);
  for (int r = rows.first; r < rows.last; ++r) {
    const double* values = &(*d.values)(r, 0);
    const bool* allowed = d.allowed ? &(*d.allowed)(r, 0) : nullptr;
    for (int c = 0; c < g.cols; ++c) {
      const double v = values[c];
      const bool use = !Masked(v, !allowed || allowed[c]) && Replaces<P>(v, column[std::size_t(c)]);
      column[std::size_t(c)] = use ? v : column[std::size_t(c)];
    }
  }
  for (int x = 0; x < g.cols_px; ++x) {
    double best = kNone;
    for (int c = first[std::size_t(x)]; c < first[std::size_t(x) + 1]; ++c) {
      const double v = column[std::size_t(c)];
      if (v == v && Replaces<P>(v, best)) best = v;
    }
    pooled[std::size_t(x)] = best;
  }
}

std::vector<std::uint8_t> PooledTexels(const HeatmapData& d, const TexelGrid& g,
                                       const ColorTable& table) {
  std::vector<std::uint8_t> rgba(std::size_t(g.rows_px) * std::size_t(g.cols_px) * 4);
  const std::vector<int> first = ColumnStarts(g);
  std::vector<double> column(static_cast<std::size_t>(g.cols));
  std::vector<double> pooled(static_cast<std::size_t>(g.cols_px));
  for (int y = 0; y < g.rows_px; ++y) {
    if (g.pooling == Pooling::MaxAbs)
      PoolTexelRow<Pooling::MaxAbs>(d, g, y, first, column, pooled);
    else
      PoolTexelRow<Pooling::Max>(d, g, y, first, column, pooled);
    std::uint8_t* out = &rgba[std::size_t(y) * std::size_t(g.cols_px) * 4];
    for (int x = 0; x < g.cols_px; ++x) {
      const double v = pooled[std::size_t(x)];
      PutTexel(out + std::size_t(x) * 4, std::isnan(v) ? kMaskedFill : table(v));
    }
  }
  return rgba;
}

std::vector<std::uint8_t> CellTexels(const HeatmapData& d, const TexelGrid& g,
                                     const ColorTable& table) {
  std::vector<std::uint8_t> rgba(std::size_t(g.rows) * std::size_t(g.cols) * 4);
  for (int r = 0; r < g.rows; ++r)
    for (int c = 0; c < g.cols; ++c)
      PutTexel(&rgba[(std::size_t(r) * std::size_t(g.cols) + std::size_t(c)) * 4],
               IsMaskedCell(d, r, c) ? kMaskedFill : table((*d.values)(r, c)));
  return rgba;
}

}  // namespace

Pooling PoolingFor(const ColorScale& scale) {
  return IsSequential(scale.map) ? Pooling::Max : Pooling::MaxAbs;
}

const char* PoolingName(Pooling pooling) {
  switch (pooling) {
    case Pooling::None:
      return "none";
    case Pooling::Max:
      return "max";
    case Pooling::MaxAbs:
      return "max_abs";
  }
  return "none";
}

TexelGrid MakeTexelGrid(int rows, int cols, float cell, const ColorScale& scale) {
  TexelGrid g{rows, cols, rows, cols, Pooling::None};
  if (cell >= 1.0f) return g;
  // n * cell is a whole number of pixels up to float rounding (the panels fit cell = pixels / n).
  auto texels = [cell](int n) { return std::clamp(int(std::floor(n * cell + 1e-3f)), 1, n); };
  g.rows_px = texels(rows);
  g.cols_px = texels(cols);
  if (g.rows_px < rows || g.cols_px < cols) g.pooling = PoolingFor(scale);
  return g;
}

CellSpan CellsOfTexel(int i, int n, int n_px) {
  const auto at = [n, n_px](int k) { return int(std::int64_t(k) * n / n_px); };
  return {at(i), at(i + 1)};
}

bool IsMaskedCell(const HeatmapData& data, int r, int c) {
  return Masked((*data.values)(r, c), !data.allowed || (*data.allowed)(r, c));
}

CellIndex ShownCell(const HeatmapData& data, const TexelGrid& grid, int x, int y) {
  const CellSpan rows = CellsOfTexel(y, grid.rows, grid.rows_px);
  const CellSpan cols = CellsOfTexel(x, grid.cols, grid.cols_px);
  CellIndex shown{rows.first, cols.first};
  double best = kNone;
  for (int r = rows.first; r < rows.last; ++r)
    for (int c = cols.first; c < cols.last; ++c) {
      const double v = (*data.values)(r, c);
      if (IsMaskedCell(data, r, c) || !Replaces(grid.pooling, v, best)) continue;
      best = v;
      shown = {r, c};
    }
  return shown;
}

std::vector<std::uint8_t> BuildTexels(const HeatmapData& data, const TexelGrid& grid,
                                      const ColorScale& scale) {
  const ColorTable table(scale);
  return grid.pooling == Pooling::None ? CellTexels(data, grid, table)
                                       : PooledTexels(data, grid, table);
}

}  // namespace attnlab::app
