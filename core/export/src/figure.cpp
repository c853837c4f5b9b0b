// Figure layout shared by the PNG and SVG writers: every position is computed once, in 1x units.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "attnlab/export/figure.h"
#include "attnlab/export/font.h"
#include "attnlab/number_format.h"
#include "attnlab/text_fit.h"
#include "figure_parts.h"

namespace attnlab::exporter {
namespace parts {

std::string clip(const Font& font, const std::string& text, double size, double max_width) {
  const auto measure = [&](std::string_view prefix) { return font.text_width(prefix, size); };
  if (width_up_to(text, max_width, measure) <= max_width) return text;
  const auto shown = [&](std::size_t keep) { return text.substr(0, after_code_points(text, keep)) + kEllipsis; };
  // The byte count bounds the code points; a longer candidate is the whole text and cannot fit.
  return shown(longest_fitting(text.size(), [&](std::size_t k) { return k == 0 || font.text_width(shown(k), size) <= max_width; }));
}

double widest(const Font& font, const std::vector<std::string>& texts, double size) {
  double w = 0;
  for (const std::string& t : texts) w = std::max(w, font.text_width(t, size));
  return w;
}

}  // namespace parts

namespace {

using namespace parts;

// Sizes in figure units (1x pixels), chosen for a slide viewed from the back of a room.
constexpr int kMargin = 24;
constexpr double kTitleSize = 18, kSubtitleSize = 13, kLabelSize = 14, kAxisSize = 13;
constexpr double kTickSize = 12.5, kValueSize = 13, kMinValueSize = 8;
constexpr double kMaxLabelWidth = 150;  // longer token labels are cut with an ellipsis
constexpr int kColorbarWidth = 16, kColorbarMinHeight = 160, kSwatch = 16;
// Vertical centring of lower-case and digit text on a point: baseline = centre + this x size.
constexpr double kMidline = 0.36;

const char* const kMinus = "\xE2\x88\x92";  // U+2212, a real minus sign on slides

std::string with_minus(std::string s) {
  if (!s.empty() && s[0] == '-') s = kMinus + s.substr(1);
  return s;
}

/// `text` cut to fit `max_width` with a trailing ellipsis: the longest prefix that fits, found by
/// doubling and bisection (text_fit.h), so a 1 MB label costs a few short measures.
bool all_integers(const Matrix& m) {
  for (Eigen::Index k = 0; k < m.size(); ++k)
    if (std::isfinite(m.data()[k]) && m.data()[k] != std::round(m.data()[k])) return false;
  return true;
}

// Integers stay integers (a mask, integer toy matrices); everything else at the chosen precision.
int value_decimals(const HeatmapFigure& f, int decimals) {
  return all_integers(f.values) ? 0 : decimals;
}

std::vector<std::string> all_cell_texts(const HeatmapFigure& f, int decimals) {
  std::vector<std::string> out;
  for (int i = 0; i < f.values.rows(); ++i)
    for (int j = 0; j < f.values.cols(); ++j) out.push_back(cell_text(f, i, j, decimals));
  return out;
}

/// 1, 2, 2.5 or 5 times a power of ten, near `rough`.
double nice_step(double rough) {
  const double p = std::pow(10.0, std::floor(std::log10(rough)));
  for (double m : {1.0, 2.0, 2.5, 5.0})
    if (m * p >= rough) return m * p;
  return 10 * p;
}

/// The range's ends at the figure's precision, round ticks as they are ("0.25", "10").
std::string tick_text(double v, bool end, int decimals) {
  return with_minus(format_trimmed(v, end ? decimals : kMaxDecimals));
}

/// The range's ends always, plus round values between them at least `min_gap` (in units of the
/// range) away from the ends, so that tick labels never overlap.
std::vector<double> tick_values(double lo, double hi, double min_gap) {
  if (!(hi > lo)) return {lo};
  const double step = nice_step((hi - lo) / 5);
  std::vector<double> ticks = {hi};
  for (double k = std::floor(hi / step); k * step > lo; k -= 1) {
    const double v = std::abs(k) < 1e-9 ? 0.0 : k * step;
    if (hi - v >= min_gap * (hi - lo) && v - lo >= min_gap * (hi - lo)) ticks.push_back(v);
  }
  ticks.push_back(lo);
  return ticks;
}

struct Builder {
  const HeatmapFigure& f;
  const FigureStyle& style;
  const Fonts& fonts = default_fonts();
  FigureLayout out;

  void text(std::string s, double x, double y, double size, Rgba8 color, const char* role,
            TextItem::Anchor anchor = TextItem::Anchor::start, bool rotated = false, bool bold = false,
            int row = -1, int col = -1) {
    out.texts.push_back({std::move(s), x, y, size, bold, rotated, anchor, color, role, row, col});
  }

  int choose_cell() {
    const int n = std::max<int>(f.values.rows(), f.values.cols());
    // Up to 40 tokens every cell keeps room for its own label (18 units); beyond, labels thin out.
    int cell = n <= 40 ? std::clamp(static_cast<int>(std::lround(560.0 / n)), 18, 60)
                       : std::max(2, static_cast<int>(std::lround(720.0 / n)));
    if (style.values && n <= 24) {
      // Grow the cells (up to 96) so that the widest value fits at the full value size.
      const double w = widest(fonts.regular, all_cell_texts(f, out.value_decimals), kValueSize);
      cell = std::max(cell, std::min(96, static_cast<int>(std::ceil(w + 10))));
    }
    if (n <= 8) {
      // Small matrices: wide enough for horizontal column labels (up to 96), which read better.
      double w = 0;  // measured only up to the 88 units that matter: a long label is clipped anyway
      for (const std::string& l : f.col_labels)
        w = std::max(w, width_up_to(l, 88, [&](std::string_view t) { return fonts.regular.text_width(t, kLabelSize); }));
      if (w + 8 <= 96) cell = std::max(cell, static_cast<int>(std::ceil(w + 8)));
    }
    return cell;
  }

  void fit_values() {
    // Cells too small for the smallest numbers: nothing to measure (a 768-wide matrix's 590,000
    // values were formatted and measured at every size for nothing).
    if (!style.values || kMinValueSize * 1.25 > out.cell) return;
    const auto texts = all_cell_texts(f, out.value_decimals);
    const double largest = style.max_value_size > 0 ? style.max_value_size : kValueSize;
    for (double size = largest; size >= kMinValueSize; size -= 0.5)
      if (size * 1.25 <= out.cell && widest(fonts.regular, texts, size) + 6 <= out.cell) {
        out.value_size = size;
        return;
      }
  }

  /// Every `stride`-th label when cells are too small for one label each.
  int label_stride() const { return std::max(1, static_cast<int>(std::ceil(kLabelSize * 1.2 / out.cell))); }

  void build() {
    out.value_decimals = value_decimals(f, style.decimals);
    out.cell = std::max(choose_cell(), style.min_cell);
    fit_values();
    const int rows = static_cast<int>(f.values.rows()), cols = static_cast<int>(f.values.cols());
    if (style.bare) {  // the cells alone, from the top-left corner
      out.grid = {0, 0, cols * out.cell, rows * out.cell};
      add_values();
      out.width = std::max(out.grid.w, style.min_width);
      out.height = std::max(out.grid.h, style.min_height);
      return;
    }
    std::vector<std::string> row_labels, col_labels;
    for (const auto& l : f.row_labels) row_labels.push_back(clip(fonts.regular, l, kLabelSize, kMaxLabelWidth));
    for (const auto& l : f.col_labels) col_labels.push_back(clip(fonts.regular, l, kLabelSize, kMaxLabelWidth));
    const double row_w = widest(fonts.regular, row_labels, kLabelSize);
    const double col_w = widest(fonts.regular, col_labels, kLabelSize);
    const bool rotate_cols = col_w > out.cell - 4;

    // Vertical: title, subtitle, column axis name, column labels, grid.
    double y = kMargin;
    text(f.title, kMargin, y + fonts.bold.ascent(kTitleSize), kTitleSize, palette::ink, "title",
         TextItem::Anchor::start, false, true);
    double right = kMargin + fonts.bold.text_width(f.title, kTitleSize);
    y += kTitleSize * 1.3;
    if (!f.subtitle.empty()) {
      text(f.subtitle, kMargin, y + fonts.regular.ascent(kSubtitleSize), kSubtitleSize, palette::dim, "subtitle");
      right = std::max(right, kMargin + fonts.regular.text_width(f.subtitle, kSubtitleSize));
      y += kSubtitleSize * 1.3;
    }
    y += 14;
    const double col_axis_baseline = y + fonts.regular.ascent(kAxisSize);
    y += kAxisSize * 1.3 + 2;
    const double col_band = rotate_cols ? col_w + 8 : kLabelSize * 1.3 + 4;
    out.grid.y = static_cast<int>(std::ceil(y + col_band));

    // Horizontal: row axis name (rotated), row labels, grid, colour bar, ticks.
    double x = kMargin;
    const double row_axis_baseline = x + fonts.regular.ascent(kAxisSize);
    x += kAxisSize * 1.3 + 6;
    out.grid.x = static_cast<int>(std::ceil(x + row_w + 8));
    out.grid.w = cols * out.cell;
    out.grid.h = rows * out.cell;
    const double grid_cx = out.grid.x + out.grid.w / 2.0, grid_cy = out.grid.y + out.grid.h / 2.0;

    text(f.col_axis, grid_cx, col_axis_baseline, kAxisSize, palette::dim, "axis", TextItem::Anchor::middle);
    text(f.row_axis, row_axis_baseline, grid_cy, kAxisSize, palette::dim, "axis", TextItem::Anchor::middle, true);
    const int stride = label_stride();
    for (int i = 0; i < rows; i += stride) {
      const RectI c = out.cell_rect(i, 0);
      text(i < static_cast<int>(row_labels.size()) ? row_labels[i] : "", out.grid.x - 8.0,
           c.y + c.h / 2.0 + kMidline * kLabelSize, kLabelSize, palette::ink, "row-label", TextItem::Anchor::end,
           false, false, i);
    }
    for (int j = 0; j < cols; j += stride) {
      const RectI c = out.cell_rect(0, j);
      const std::string label = j < static_cast<int>(col_labels.size()) ? col_labels[j] : "";
      if (rotate_cols)
        text(label, c.x + c.w / 2.0 + kMidline * kLabelSize, out.grid.y - 6.0, kLabelSize, palette::ink,
             "col-label", TextItem::Anchor::start, true, false, -1, j);
      else
        text(label, c.x + c.w / 2.0, out.grid.y - 6.0 - fonts.regular.descent(kLabelSize), kLabelSize,
             palette::ink, "col-label", TextItem::Anchor::middle, false, false, -1, j);
    }
    add_values();
    right = std::max(right, add_colorbar());
    out.width = std::max(static_cast<int>(std::ceil(right)) + kMargin, style.min_width);
    const int bottom = std::max(out.grid.y + out.grid.h,
                                out.has_masked ? out.masked_swatch.y + out.masked_swatch.h : out.colorbar.y + out.colorbar.h);
    out.height = std::max(bottom + kMargin, style.min_height);
  }

  /// A plain patch behind the text of a masked cell, so the hatching does not cross the glyphs.
  void knock_out(RectI c, const std::string& label) {
    const int w = static_cast<int>(std::ceil(fonts.regular.text_width(label, out.value_size))) + 6;
    const int h = static_cast<int>(std::ceil(out.value_size * 1.2));
    out.knockouts.push_back({c.x + (c.w - w) / 2, c.y + (c.h - h) / 2, w, h});
  }

  void add_values() {
    if (out.value_size <= 0) return;
    for (int i = 0; i < f.values.rows(); ++i)
      for (int j = 0; j < f.values.cols(); ++j) {
        const RectI c = out.cell_rect(i, j);
        const Rgba8 fill = cell_color(f, i, j);
        const Rgba8 ink = is_masked(f, i, j) ? palette::masked_ink
                          : Luminance({fill.r, fill.g, fill.b}) > 0.45 ? Rgba8{0, 0, 0, 255}
                                                                      : Rgba8{255, 255, 255, 255};
        const std::string label = cell_text(f, i, j, out.value_decimals);
        if (label.empty()) continue;  // a blank hatched cell
        if (is_masked(f, i, j)) knock_out(c, label);
        text(label, c.x + c.w / 2.0, c.y + c.h / 2.0 + kMidline * out.value_size, out.value_size, ink, "value",
             TextItem::Anchor::middle, false, false, i, j);
      }
  }

  /// Colour bar right of the grid, ticks and their labels, the masked swatch; returns the right edge.
  double add_colorbar() {
    out.colorbar = {out.grid.x + out.grid.w + 24, out.grid.y, kColorbarWidth, std::max(out.grid.h, kColorbarMinHeight)};
    const double lo = f.scale.lo, hi = f.scale.hi;
    const auto values = tick_values(lo, hi, 1.5 * kTickSize / out.colorbar.h);
    double right = out.colorbar.x + out.colorbar.w;
    for (std::size_t k = 0; k < values.size(); ++k) {
      const double v = values[k];
      const int y = hi > lo ? out.colorbar.y + static_cast<int>(std::lround((hi - v) / (hi - lo) * out.colorbar.h))
                            : out.colorbar.y + out.colorbar.h / 2;
      out.ticks.push_back({v, y});
      const bool end = k == 0 || k + 1 == values.size();
      const std::string label = tick_text(v, end, style.decimals);
      const double x = out.colorbar.x + out.colorbar.w + 8.0;
      text(label, x, y + kMidline * kTickSize, kTickSize, palette::ink, "tick");
      right = std::max(right, x + fonts.regular.text_width(label, kTickSize));
    }
    for (int i = 0; i < f.values.rows() && !out.has_masked; ++i)
      for (int j = 0; j < f.values.cols() && !out.has_masked; ++j) out.has_masked = is_masked(f, i, j);
    if (out.has_masked) {
      out.masked_swatch = {out.colorbar.x, out.colorbar.y + out.colorbar.h + 18, kSwatch, kSwatch};
      const std::string label = f.hatched_legend.empty() ? "masked (\xE2\x88\x92\xE2\x88\x9E)" : f.hatched_legend;
      const double x = out.masked_swatch.x + kSwatch + 8.0;
      text(label, x, out.masked_swatch.y + kSwatch / 2.0 + kMidline * kTickSize, kTickSize, palette::ink, "legend");
      right = std::max(right, x + fonts.regular.text_width(label, kTickSize));
    }
    return right;
  }
};

}  // namespace

bool is_masked(const HeatmapFigure& f, int i, int j) {
  const double v = f.values(i, j);
  if (std::isinf(v) && v < 0) return true;
  return f.allowed.rows() == f.values.rows() && f.allowed.cols() == f.values.cols() && !f.allowed(i, j);
}

Rgba8 cell_color(const HeatmapFigure& f, int i, int j) {
  if (is_masked(f, i, j)) return palette::masked_fill;
  const Rgb8 c = MapValue(f.scale, f.values(i, j));
  return {c.r, c.g, c.b, 255};
}

std::string cell_text(const HeatmapFigure& f, int i, int j, int decimals) {
  const double v = f.values(i, j);
  if (is_masked(f, i, j)) {
    if (!f.hatched_legend.empty()) return "";
    if (!f.masked_text_is_value || !std::isfinite(v)) return std::string(kMinus) + "\xE2\x88\x9E";
    if (v == 0) return "0";  // a masked weight is exactly zero
  }
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "\xE2\x88\x9E" : std::string(kMinus) + "\xE2\x88\x9E";
  return format_number(v, decimals);
}

FigureLayout figure_layout(const HeatmapFigure& figure, const FigureStyle& style) {
  if (figure.values.size() == 0) throw ExportError("figure: the matrix is empty");
  Builder b{figure, style, default_fonts(), {}};
  b.build();
  return std::move(b.out);
}

}  // namespace attnlab::exporter
