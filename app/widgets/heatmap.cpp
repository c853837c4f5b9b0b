#include "widgets/heatmap.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>

#include <imgui_internal.h>

#include "attnlab/number_format.h"
#include "attnlab/numbering.h"
#include "view/label_fit.h"
#include "widgets/heatmap_legend.h"
#include "widgets/heatmap_marks.h"
#include "widgets/heatmap_text.h"
#include "widgets/heatmap_texture.h"
#include "widgets/panel_tooltip.h"
#include "widgets/theme.h"

namespace attnlab::app {
namespace {

// What a heatmap draws with this frame, from the scans of its data: its colour range, number
// format and masked swatch. While the frame's work budget holds a scan back, the range and
// swatch it last drew with, and `pending` (its grid is dimmed, its texture kept).
struct Resolved {
  ColorScale scale;
  ValueFormat format;
  bool has_masked = false;
  bool pending = false;
};

struct Geometry {
  float title_h = 0, axis_h = 0, col_label_h = 0, row_label_w = 0, legend_h = 0;
  float grid_w = 0, grid_h = 0, legend_w = 0;
  ImVec2 grid_offset, size;
  bool rotate_cols = false;
  int row_step = 1, col_step = 1;
  bool show_values = false;
  float value_px = 0;           // the values' text size (ValueTextSize); 0: not written
  bool formula_inline = false;  // formula on the title line (when it fits)
  FormulaLines formula;         // its own line, when not on the title's (wrapped if need be)
  float gap = 0;
  bool texture = false;
  TexelGrid texels;             // texture only: one texel per cell, or pooled blocks
  Resolved data;
};

// Room between labels and grid, so that the selection frame never touches a label.
constexpr float kFrameMargin = 3.0f;

ImFont* MonoFont() {
  ImFont* f = GetFonts().mono;
  return f ? f : ImGui::GetFont();
}

float TextWidth(ImFont* font, const char* text) {
  return font->CalcTextSizeA(font->FontSize, FLT_MAX, 0.0f, text).x;
}

// -m .. m for the largest |value| m (an all-zero matrix still gets a readable legend).
ColorScale SymmetricScale(Colormap diverging, double max_abs) {
  const double m = max_abs > 0 ? max_abs : 1.0;
  return {diverging, -m, m};
}

HeatmapData DataOf(const HeatmapSpec& spec) { return {spec.values, spec.allowed}; }

bool IsMaskedCell(const HeatmapSpec& spec, int r, int c) {
  return IsMaskedCell(DataOf(spec), r, c);
}

// The widest of the labels drawn (every step-th), at most `cap`: 2048 token names measured for each
// heatmap, twice a frame (layout, then drawing), cost milliseconds, and only the drawn ones need
// room; a label wider than the cap is measured only as far as the cap (a 1 MB label costs nothing).
float MaxLabelWidth(const std::vector<std::string>* labels, int step, float cap) {
  const TextWidthFn width = [](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x; };
  float w = 0;
  if (labels)
    for (std::size_t i = 0; i < labels->size(); i += std::size_t(step)) w = std::max(w, WidthUpTo((*labels)[i], cap, width));
  return w;
}

std::string TitleText(const HeatmapSpec& spec) {
  if (!spec.shape_in_title) return spec.title ? spec.title : "";
  char shape[64];
  std::snprintf(shape, sizeof shape, "  %d\xC3\x97%d", static_cast<int>(spec.values->rows()),
                static_cast<int>(spec.values->cols()));
  return std::string(spec.title ? spec.title : "") + shape;
}

ImFont* BoldFont() { return GetFonts().bold ? GetFonts().bold : ImGui::GetFont(); }

float TitleWidth(const HeatmapSpec& spec) {
  return spec.title ? TextWidth(BoldFont(), TitleText(spec).c_str()) : 0.0f;
}

float FormulaWidth(const HeatmapSpec& spec) {
  return spec.formula ? TextWidth(MonoFont(), spec.formula) : 0.0f;
}

// Title (and formula, on the same line when the grid is wide enough) above the labels.
void ComputeTitleGeometry(const HeatmapSpec& spec, float natural_w, Geometry& g) {
  const float fs = ImGui::GetFontSize();
  const float title_w = TitleWidth(spec), formula_w = FormulaWidth(spec);
  g.formula_inline = spec.title && spec.formula && title_w + fs + formula_w <= natural_w;
  if (spec.title) g.title_h += std::ceil(fs * 1.25f);
  if (spec.formula && !g.formula_inline) g.formula = FitFormula(MonoFont(), spec.formula, natural_w, fs);
  g.title_h += g.formula.height;
  if (g.title_h > 0) g.title_h += std::floor(fs * 0.25f);
  const float heading_w = g.formula_inline ? title_w + fs + formula_w
                                           : std::max(title_w, g.formula.wrap > 0 ? g.formula.wrap : formula_w);
  g.size.x = std::max(natural_w, heading_w);
}

void ComputeLabelGeometry(const HeatmapSpec& spec, Geometry& g) {
  const float fs = ImGui::GetFontSize();
  const float pad = std::floor(fs * 0.4f);
  // Long token names are shortened in the middle, not allowed to squeeze the grid.
  const float cap = spec.label_max > 0 ? spec.label_max : fs * 7.0f;
  const float col_cap = spec.col_label_max > 0 ? spec.col_label_max : cap;
  // One label per line height: rows always, columns when their labels turn vertical. Upright
  // column labels are all measured (they may all be drawn).
  const int line_step = std::max(1, static_cast<int>(std::ceil(fs / spec.cell)));
  g.row_step = line_step;
  const float row_w = MaxLabelWidth(spec.row_labels, line_step, cap);
  float col_w = MaxLabelWidth(spec.col_labels, line_step, col_cap);
  g.rotate_cols = col_w > spec.cell - 4.0f;
  if (!g.rotate_cols && line_step > 1) {
    col_w = MaxLabelWidth(spec.col_labels, 1, col_cap);
    g.rotate_cols = col_w > spec.cell - 4.0f;
  }
  const float row_axis_w = spec.row_axis ? ImGui::CalcTextSize(spec.row_axis).x : 0.0f;
  g.row_label_w = std::ceil(std::max(row_w, row_axis_w) + pad + kFrameMargin);
  g.col_label_h = std::ceil((g.rotate_cols ? col_w : fs) + pad + kFrameMargin);
  const float step_px = g.rotate_cols ? fs : std::max(col_w + 4.0f, 1.0f);
  g.col_step = std::max(1, static_cast<int>(std::ceil(step_px / spec.cell)));
  g.axis_h = (spec.col_axis || spec.col_band > 0) ? std::ceil(fs + 2.0f) : 0.0f;
}

bool DrawnAsTexture(const HeatmapSpec& spec) {
  return spec.values->rows() > kTextureThreshold || spec.values->cols() > kTextureThreshold ||
         spec.cell < 1.0f;
}

// The widget's own state, by the same id inside and outside its PushID scope (the panels measure
// a heatmap before drawing it).
HeatmapTexture& WidgetState(HeatmapContext& ctx, const HeatmapSpec& spec) {
  return ctx.textures[ImGui::GetID(spec.id)];
}

// The values scan (cached per data_version, 0: not cached), or none while the budget is spent.
std::optional<ValueScan> ScanOf(HeatmapContext& ctx, const HeatmapSpec& spec, bool integers) {
  if (spec.data_version == 0) return ScanValues(*spec.values, integers);
  return ctx.scans.Values(*spec.values, spec.data_version, integers, ctx.work);
}

// Whether spec.allowed forbids some cell (cached like the values scan), or none while it waits.
std::optional<bool> AnyForbidden(HeatmapContext& ctx, const HeatmapSpec& spec) {
  if (spec.data_version == 0) return !spec.allowed->all();
  return ctx.scans.AnyForbidden(*spec.allowed, spec.data_version, ctx.work);
}

// Only what will be used: a texture never prints values, only a legend shows the masked swatch
// and only signed data need their range (the Heads panel's 8 multiples of 2048 x 2048 have none
// of these: 32M cells never scanned).
Resolved Resolve(HeatmapContext& ctx, const HeatmapSpec& spec) {
  HeatmapTexture& last = WidgetState(ctx, spec);
  Resolved r{spec.scale, {}, last.has_masked, false};
  if (spec.symmetric_range && last.has_scale) r.scale = last.scale;  // until the scan is done
  const bool texture = DrawnAsTexture(spec);
  if (!texture || spec.legend || spec.symmetric_range) {
    std::optional<ValueScan> scan = ScanOf(ctx, spec, !texture);
    if (!scan) return {r.scale, r.format, r.has_masked, true};
    scan->integers = scan->integers && spec.integers_bare;
    if (!texture)
      r.format = ChooseValueFormat(*scan, spec.decimals, ValueRoom(spec.cell), MonoFont());
    if (spec.symmetric_range) r.scale = SymmetricScale(spec.scale.map, scan->max_abs);
    r.has_masked = scan->masked;
  }
  if (spec.legend && spec.allowed) {
    const std::optional<bool> forbidden = AnyForbidden(ctx, spec);
    if (!forbidden) return {r.scale, r.format, last.has_masked, true};
    r.has_masked = r.has_masked || *forbidden;
  }
  last.scale = r.scale;
  last.has_scale = true;
  last.has_masked = r.has_masked;
  return r;
}

Geometry ComputeGeometry(HeatmapContext& ctx, const HeatmapSpec& spec) {
  Geometry g;
  const float fs = ImGui::GetFontSize();
  const int rows = static_cast<int>(spec.values->rows());
  const int cols = static_cast<int>(spec.values->cols());
  g.data = Resolve(ctx, spec);
  g.texture = DrawnAsTexture(spec);
  g.texels = MakeTexelGrid(rows, cols, spec.cell, g.data.scale);
  const bool pooled = g.texels.pooling != Pooling::None;
  g.grid_w = pooled ? float(g.texels.cols_px) : cols * spec.cell;  // pooled: a texel a pixel
  g.grid_h = pooled ? float(g.texels.rows_px) : rows * spec.cell;
  g.gap = CellGap(spec.cell);
  g.value_px = ValueTextSize(g.data.format.text_width, spec.cell, MonoFont(), {spec.value_max});
  g.show_values = spec.values_in_cells && !g.texture && g.value_px > 0.0f;
  if (spec.labels) ComputeLabelGeometry(spec, g);
  if (spec.legend) {
    g.legend_w = std::clamp(g.grid_w, fs * 9.0f, fs * 16.0f);
    g.legend_h = HeatmapLegendHeight(g.data.has_masked);
  }
  ComputeTitleGeometry(spec, g.row_label_w + std::max(g.grid_w, g.legend_w), g);
  g.grid_offset = ImVec2(g.row_label_w, g.title_h + g.axis_h + g.col_label_h);
  g.size.y = g.grid_offset.y + g.grid_h + g.legend_h;
  g.size.x = std::ceil(std::max(g.size.x, 1.0f));
  g.size.y = std::ceil(std::max(g.size.y, 1.0f));
  return g;
}

void DrawTitle(ImDrawList* dl, ImVec2 pos, const HeatmapSpec& spec, const Geometry& g) {
  const float fs = ImGui::GetFontSize();
  ImFont* mono = MonoFont();
  float y = pos.y;
  if (spec.title) {
    ImFont* bold = BoldFont();
    const std::string text = TitleText(spec);
    const std::size_t name_len = std::strlen(spec.title);
    dl->AddText(bold, bold->FontSize, ImVec2(pos.x, y), ImGui::GetColorU32(ImGuiCol_Text),
                text.c_str(), text.c_str() + name_len);
    const float name_w = TextWidth(bold, spec.title);
    dl->AddText(ImGui::GetFont(), fs, ImVec2(pos.x + name_w, y),
                ImGui::ColorConvertFloat4ToU32(DimTextColor()), text.c_str() + name_len);
    if (g.formula_inline) {
      // Same baseline region as the title: centre the smaller mono text on the title line.
      const ImVec2 p(pos.x + TitleWidth(spec) + fs, y + std::floor((fs - mono->FontSize) * 0.6f));
      dl->AddText(mono, mono->FontSize, p, ImGui::ColorConvertFloat4ToU32(DimTextColor()),
                  spec.formula);
      return;
    }
    y += std::ceil(fs * 1.25f);
  }
  if (spec.formula)
    dl->AddText(mono, mono->FontSize, ImVec2(pos.x, y),
                ImGui::ColorConvertFloat4ToU32(DimTextColor()), spec.formula, nullptr, g.formula.wrap);
}

bool HasBandLabels(const HeatmapSpec& spec) {
  return spec.col_band > 0 && spec.values->cols() > spec.col_band;
}

// The heads' names centred over their bands of columns, never touching: "head 2" where every
// band has room for it, else "h2", and where even that would run into the last one shown, none
// (hovering the header names each band).
std::vector<HeatmapPlacement::Label> BandLabels(ImVec2 grid, const HeatmapSpec& spec, const Geometry& g) {
  if (!HasBandLabels(spec)) return {};
  const GridPlace place{grid, int(spec.values->rows()), int(spec.values->cols()), spec.cell, g.gap,
                        ImVec2(g.grid_w, g.grid_h)};
  return HeadBandLabels(place, spec.col_band, grid.y - g.col_label_h - g.axis_h);
}

void BandTooltip(ImVec2 grid, const HeatmapSpec& spec, const Geometry& g) {
  const float y = grid.y - g.col_label_h - g.axis_h;
  const ImVec2 mouse = ImGui::GetMousePos();
  if (!ImGui::IsWindowHovered() || mouse.y < y || mouse.y >= y + g.axis_h || mouse.x < grid.x ||
      mouse.x >= grid.x + g.grid_w)
    return;
  const int band = static_cast<int>((mouse.x - grid.x) / (spec.col_band * spec.cell));
  PanelTooltip("%s: columns %d to %d", attnlab::head_label(band).c_str(), band * spec.col_band,
               std::min<int>((band + 1) * spec.col_band, spec.values->cols()) - 1);
}

void DrawAxisHeader(ImDrawList* dl, ImVec2 grid, const HeatmapSpec& spec, const Geometry& g) {
  const ImU32 dim = ImGui::ColorConvertFloat4ToU32(DimTextColor());
  const float y = grid.y - g.col_label_h - g.axis_h;
  if (HasBandLabels(spec)) {
    for (const HeatmapPlacement::Label& l : BandLabels(grid, spec, g))
      dl->AddText(ImVec2(l.x0, l.y0), AccentColor(), l.text.c_str());
    BandTooltip(grid, spec, g);
  } else if (spec.col_axis) {
    const float w = ImGui::CalcTextSize(spec.col_axis).x;
    dl->AddText(ImVec2(grid.x + std::max(0.0f, (g.grid_w - w) * 0.5f), y), dim, spec.col_axis);
  }
  if (spec.row_axis) {
    const ImVec2 sz = ImGui::CalcTextSize(spec.row_axis);
    const float pad = std::floor(ImGui::GetFontSize() * 0.4f);
    dl->AddText(ImVec2(grid.x - sz.x - pad - kFrameMargin, grid.y - sz.y - kFrameMargin), dim,
                spec.row_axis);
  }
}

// The labels drawn (every step-th), shortened to the room the geometry gave them.
DrawnLabels LabelsToDraw(const HeatmapSpec& spec, const Geometry& g) {
  const float pad = std::floor(ImGui::GetFontSize() * 0.4f);
  const TextWidthFn width = [](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x; };
  const float gap = std::ceil(ImGui::GetFontSize() * 0.4f);
  DrawnLabels out;
  if (spec.row_labels)
    out.rows = ShortenAxisLabels(*spec.row_labels, std::min<int>(spec.values->rows(), spec.row_labels->size()),
                                 g.row_step, g.row_label_w - pad - kFrameMargin, false, spec.cell, gap, width)
                   .drawn;
  if (spec.col_labels) {
    // Upright labels were measured against the cell (capped by label_max): longer ones are cut.
    const float room = g.rotate_cols ? g.col_label_h - pad - kFrameMargin : spec.cell - 4.0f;
    ShortenedAxis cols = ShortenAxisLabels(*spec.col_labels, std::min<int>(spec.values->cols(), spec.col_labels->size()),
                                        g.col_step, room, !g.rotate_cols, spec.cell, gap, width);
    out.cols = std::move(cols.drawn);
    out.col_spans = std::move(cols.spans);
  }
  return out;
}

// The row labels `shift` pixels right of their place (StickyShift), drawn over the cells that
// scrolled under them, on the window's background.
void DrawLabels(ImDrawList* dl, ImVec2 grid, const HeatmapSpec& spec, const Geometry& g,
                int hot_row, int hot_col, float shift) {
  const float fs = ImGui::GetFontSize();
  const float pad = std::floor(fs * 0.4f);
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 hot = AccentColor();
  const float right = grid.x + shift;
  if (shift > 0.0f)
    dl->AddRectFilled(ImVec2(right - g.grid_offset.x, grid.y), ImVec2(right, grid.y + g.grid_h),
                      ImGui::GetColorU32(ImGuiCol_WindowBg));
  // Half a line of slack above and below: the first and last labels are centred on their rows.
  const ImVec4 clip_rows(right - g.row_label_w, grid.y - fs * 0.5f, right - kFrameMargin,
                         grid.y + g.grid_h + fs * 0.5f);
  const DrawnLabels labels = LabelsToDraw(spec, g);
  for (const auto& [r, s] : labels.rows) {
    const float w = ImGui::CalcTextSize(s.c_str()).x;
    const ImVec2 p(right - pad - kFrameMargin - w, grid.y + (r + 0.5f) * spec.cell - fs * 0.5f);
    dl->AddText(ImGui::GetFont(), fs, p, r == hot_row ? hot : text, s.c_str(), nullptr, 0.0f,
                &clip_rows);
  }
  for (std::size_t k = 0; k < labels.cols.size(); ++k) {
    const auto& [c, s] = labels.cols[k];
    const ImU32 color = c == hot_col ? hot : text;
    const float cx = grid.x + (c + 0.5f) * spec.cell;
    if (g.rotate_cols) {
      AddVerticalText(dl, ImVec2(cx - fs * 0.5f, grid.y - pad * 0.5f - kFrameMargin), color,
                      s.c_str());
    } else {
      // Centred on its cell, moved inside its span when wider than the cell (UprightLabelSpans).
      const float w = ImGui::CalcTextSize(s.c_str()).x;
      float x = cx - w * 0.5f;
      if (k < labels.col_spans.size()) {
        const float cell_x = grid.x + c * spec.cell;
        x = std::max(std::min(x, cell_x + labels.col_spans[k].right - w), cell_x + labels.col_spans[k].left);
      }
      dl->AddText(ImVec2(x, grid.y - fs - pad * 0.5f - kFrameMargin), color, s.c_str());
    }
  }
}

// How far a heatmap's title and row labels move right to stay in view while the window scrolls
// sideways past the map's left edge (a 500-token Pipeline map wider than its panel): to the
// window's visible left edge, but never past the map's own right end.
float StickyShift(ImVec2 pos, const HeatmapSpec& spec, const Geometry& g) {
  const float fs = ImGui::GetFontSize();
  const float title_w = TitleWidth(spec) + (spec.formula ? fs + FormulaWidth(spec) : 0.0f);
  const float past = ImGui::GetWindowDrawList()->GetClipRectMin().x - pos.x;
  return std::max(0.0f, std::min(past, g.size.x - std::max(title_w, g.grid_offset.x)));
}

// The whole name of the token label under the mouse (labels may be shortened or skipped).
void LabelTooltip(ImVec2 grid, const HeatmapSpec& spec, const Geometry& g, float shift) {
  if (spec.cell < 1.0f) return;
  const ImVec2 m = ImGui::GetIO().MousePos;
  const int r = static_cast<int>(std::floor((m.y - grid.y) / spec.cell));
  const int c = static_cast<int>(std::floor((m.x - grid.x) / spec.cell));
  const auto show = [](const std::vector<std::string>* labels, int i, const char* axis) {
    if (!labels || i < 0 || i >= static_cast<int>(labels->size())) return;
    PanelTooltip("%s %d: %s", axis ? axis : "index", i, (*labels)[std::size_t(i)].c_str());
  };
  const float labels_right = grid.x + shift;  // the row labels, where StickyShift moved them
  if (m.x < labels_right && m.x >= labels_right - g.row_label_w && m.y >= grid.y && m.y < grid.y + g.grid_h)
    show(spec.row_labels, r, spec.row_axis);
  else if (m.y < grid.y && m.y >= grid.y - g.col_label_h && m.x >= grid.x &&
           m.x < grid.x + g.grid_w)
    show(spec.col_labels, c, spec.col_axis);
}

void DrawCells(ImDrawList* dl, ImVec2 grid, const HeatmapSpec& spec, const Geometry& g) {
  const attnlab::Matrix& m = *spec.values;
  ImFont* mono = ValueFont(g.value_px, MonoFont());
  for (int r = 0; r < m.rows(); ++r) {
    for (int c = 0; c < m.cols(); ++c) {
      const ImVec2 a(grid.x + c * spec.cell, grid.y + r * spec.cell);
      const ImVec2 b(a.x + spec.cell - g.gap, a.y + spec.cell - g.gap);
      const bool masked = IsMaskedCell(spec, r, c);
      const Rgb8 fill = masked ? kMaskedFill : MapValue(spec.scale, m(r, c));
      dl->AddRectFilled(a, b, ToU32(fill));
      if (masked && spec.cell >= 8.0f) AddHatch(dl, a, b);
      if (!g.show_values || (masked && spec.masked_blank)) continue;
      const std::string text = attnlab::format_number(m(r, c), g.data.format.decimals);
      const float w = TextWidth(mono, text.c_str()) * g.value_px / mono->FontSize;
      const ImU32 ink = masked ? IM_COL32(235, 235, 240, 255)
                        : Luminance(fill) > 0.5 ? IM_COL32(16, 16, 16, 255)
                                                : IM_COL32(250, 250, 250, 255);
      const ImVec2 p(std::floor((a.x + b.x - w) * 0.5f), std::floor((a.y + b.y - g.value_px) * 0.5f));
      dl->AddText(mono, g.value_px, p, ink, text.c_str());
    }
  }
}

void DrawBands(ImDrawList* dl, ImVec2 grid, const HeatmapSpec& spec, const Geometry& g) {
  const float t = std::max(2.0f, std::floor(ImGui::GetFontSize() * 0.15f));
  for (int c = spec.col_band; spec.col_band > 0 && c < spec.values->cols(); c += spec.col_band) {
    const float x = grid.x + c * spec.cell - g.gap * 0.5f;
    dl->AddLine(ImVec2(x, grid.y - 2), ImVec2(x, grid.y + g.grid_h + 2), AccentColor(), t);
  }
  for (int r = spec.row_band; spec.row_band > 0 && r < spec.values->rows(); r += spec.row_band) {
    const float y = grid.y + r * spec.cell - g.gap * 0.5f;
    dl->AddLine(ImVec2(grid.x - 2, y), ImVec2(grid.x + g.grid_w + 2, y), AccentColor(), t);
  }
}

// The texel under the mouse (a cell, or a pooled block of cells) and the cell it shows.
struct Hover {
  bool on = false;
  int x = 0, y = 0;
  CellIndex cell;
};

ImVec2 TexelSize(const Geometry& g) {
  return ImVec2(g.grid_w / float(g.texels.cols_px), g.grid_h / float(g.texels.rows_px));
}

Hover HoverAt(ImVec2 grid, const HeatmapSpec& spec, const Geometry& g) {
  const ImVec2 m = ImGui::GetIO().MousePos, texel = TexelSize(g);
  Hover h;
  h.x = static_cast<int>(std::floor((m.x - grid.x) / texel.x));
  h.y = static_cast<int>(std::floor((m.y - grid.y) / texel.y));
  h.on = h.x >= 0 && h.y >= 0 && h.x < g.texels.cols_px && h.y < g.texels.rows_px;
  if (h.on) h.cell = ShownCell(DataOf(spec), g.texels, h.x, h.y);
  return h;
}

// Which cells one pixel of a pooled heatmap stands for, under the value.
void PooledTooltipLine(const Geometry& g, const Hover& h) {
  const CellSpan rows = CellsOfTexel(h.y, g.texels.rows, g.texels.rows_px);
  const CellSpan cols = CellsOfTexel(h.x, g.texels.cols, g.texels.cols_px);
  ImGui::TextColored(DimTextColor(), "this pixel: the %s of rows %d-%d, columns %d-%d",
                     g.texels.pooling == Pooling::Max ? "largest" : "value farthest from 0",
                     rows.first, rows.last - 1, cols.first, cols.last - 1);
}

void DrawHover(ImDrawList* dl, ImVec2 grid, const HeatmapSpec& spec, const Geometry& g,
               const Hover& h) {
  const ImVec2 texel = TexelSize(g);
  const ImVec2 a(grid.x + h.x * texel.x, grid.y + h.y * texel.y);
  const ImVec2 b(a.x + std::max(texel.x, 1.0f), a.y + std::max(texel.y, 1.0f));  // a pixel at least
  dl->AddRect(ImVec2(a.x - 1, a.y - 1), b, IM_COL32(255, 255, 255, 255), 0.0f, 0, 2.0f);
  if (!spec.cell_tooltip) return;
  const int r = h.cell.row, c = h.cell.col;
  const double v = (*spec.values)(r, c);
  BeginCellTooltip(grid, ImVec2(grid.x + g.grid_w, b.y));  // the first row down to the hovered one
  const char* rl = spec.row_labels && r < int(spec.row_labels->size()) ? (*spec.row_labels)[r].c_str() : "";
  const char* cl = spec.col_labels && c < int(spec.col_labels->size()) ? (*spec.col_labels)[c].c_str() : "";
  ImGui::Text("%s[%d, %d]   row %s, column %s", spec.title ? spec.title : "", r, c, rl, cl);
  const bool masked = v == -INFINITY || IsMaskedCell(spec, r, c);
  ImGui::Text("%s%s", format_significant(v, 6).c_str(), masked ? "  (masked)" : "");
  if (g.texels.pooling != Pooling::None) PooledTooltipLine(g, h);
  ImGui::EndTooltip();
}

void RecordPlacement(HeatmapContext& ctx, ImVec2 grid, const HeatmapSpec& spec, const Geometry& g) {
  if (!ctx.on_drawn) return;
  HeatmapPlacement p =
      PlacementInCurrentWindow(spec.id, static_cast<int>(spec.values->rows()),
                               static_cast<int>(spec.values->cols()), grid, spec.cell, g.gap);
  p.stage = spec.stage;
  p.head = spec.head;
  p.values_drawn = g.show_values && !g.texture && !spec.hidden;
  p.decimals = p.values_drawn ? g.data.format.decimals : 0;
  p.value_px = p.values_drawn ? g.value_px : 0.0f;
  p.hidden = spec.hidden, p.texture = g.texture;
  p.formula_right = g.formula.height > 0 ? grid.x - g.grid_offset.x + g.formula.width : 0.0f;
  p.pooling = PoolingName(g.texels.pooling);
  p.texels_w = g.texels.cols_px;
  p.texels_h = g.texels.rows_px;
  p.colormap = ColormapName(spec.scale.map);
  p.lo = spec.scale.lo, p.hi = spec.scale.hi;
  p.stale = spec.stale;
  if (spec.outlined) p.outlined = *spec.outlined;
  if (spec.labels) {
    const DrawnLabels labels = LabelsToDraw(spec, g);
    p.row_labels = labels.rows;
    p.col_labels = labels.cols;
    p.row_axis = spec.row_axis ? spec.row_axis : "";
    p.col_axis = spec.col_axis ? spec.col_axis : "";
    p.band_labels = BandLabels(grid, spec, g);
  }
  ctx.on_drawn(p);
}

}  // namespace

HeatmapPlacement PlacementInCurrentWindow(const char* id, int rows, int cols, ImVec2 origin,
                                          float cell, float gap) {
  HeatmapPlacement p;
  p.window = ImGui::GetCurrentWindow()->Name;
  p.id = id;
  p.rows = rows;
  p.cols = cols;
  p.x0 = origin.x;
  p.y0 = origin.y;
  p.cell = cell;
  p.gap = gap;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 cmin = dl->GetClipRectMin(), cmax = dl->GetClipRectMax();
  p.clip[0] = cmin.x;
  p.clip[1] = cmin.y;
  p.clip[2] = cmax.x;
  p.clip[3] = cmax.y;
  return p;
}

ImVec2 HeatmapSize(HeatmapContext& ctx, const HeatmapSpec& spec) {
  return ComputeGeometry(ctx, spec).size;
}

bool HeatmapShowsValues(HeatmapContext& ctx, const HeatmapSpec& spec) {
  return ComputeGeometry(ctx, spec).show_values;
}

HeatmapResult Heatmap(HeatmapContext& ctx, const HeatmapSpec& spec) {
  HeatmapResult result;
  if (!spec.values || spec.values->size() == 0) return result;
  const Geometry g = ComputeGeometry(ctx, spec);
  HeatmapTexture& state = WidgetState(ctx, spec);
  state.last_frame = ctx.frame;
  HeatmapSpec drawn = spec;  // with the range found for it (symmetric_range)
  drawn.scale = g.data.scale;
  const ImVec2 cursor = ImGui::GetCursorScreenPos();
  const ImVec2 pos(std::floor(cursor.x), std::floor(cursor.y));  // whole pixels: cells land exactly
  ImGui::SetCursorScreenPos(pos);
  ImGui::PushID(spec.id);
  ImGui::InvisibleButton("##heatmap", g.size);
  result.clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 grid = result.grid = ImVec2(pos.x + g.grid_offset.x, pos.y + g.grid_offset.y);
  const float shift = StickyShift(pos, spec, g);
  // Not the cells hidden under the shifted row labels.
  const bool on_cells = ImGui::GetIO().MousePos.x >= grid.x + shift;
  const Hover hover = ImGui::IsItemHovered() && on_cells && !spec.hidden ? HoverAt(grid, spec, g) : Hover{};
  result.hovered = hover.on;
  result.row = hover.on ? hover.cell.row : -1;
  result.col = hover.on ? hover.cell.col : -1;
  // Right-click: export and copy (heatmap_export.h). After the hover test, which needs the
  // button to be the last item.
  if (ctx.context_menu && !spec.hidden && ImGui::BeginPopupContextItem("##context")) {
    ctx.context_menu(drawn);
    ImGui::EndPopup();
  }
  DrawTitle(dl, ImVec2(pos.x + shift, pos.y), drawn, g);
  bool current = true;  // false: an older texture (or none yet) is drawn
  if (spec.hidden)
    DrawHiddenCells(dl, {grid, int(spec.values->rows()), int(spec.values->cols()), spec.cell, g.gap,
                         ImVec2(g.grid_w, g.grid_h)}, g.texture, MonoFont());
  else if (g.texture)
    current = DrawHeatmapTexture(ctx, state, dl, grid, ImVec2(grid.x + g.grid_w, grid.y + g.grid_h),
                                 drawn, g.texels, g.data.scale, g.data.pending);
  else
    DrawCells(dl, grid, drawn, g);
  if (spec.labels) {
    DrawAxisHeader(dl, grid, drawn, g);
  }
  DrawBands(dl, grid, drawn, g);
  if (spec.labels) DrawLabels(dl, grid, drawn, g, result.row, result.col, shift);  // over the cells
  // Dimmed while a newer trace is computing or this texture waits for its turn to be rebuilt:
  // these numbers are about to change.
  if (spec.stale || !current)
    dl->AddRectFilled(grid, ImVec2(grid.x + g.grid_w, grid.y + g.grid_h), IM_COL32(24, 24, 28, 150));
  if (spec.selected)
    dl->AddRect(ImVec2(grid.x - 3, grid.y - 3), ImVec2(grid.x + g.grid_w + 2, grid.y + g.grid_h + 2),
                AccentColor(), 0.0f, 0, 3.0f);
  if (spec.outlined)  // where to look, even before the reveal
    DrawOutlines(dl, {grid, int(spec.values->rows()), int(spec.values->cols()), spec.cell, g.gap,
                      ImVec2(g.grid_w, g.grid_h)}, *spec.outlined);
  if (spec.legend && !spec.hidden)
    DrawHeatmapLegend(dl, ImVec2(grid.x, grid.y + g.grid_h), drawn.scale, g.legend_w,
                      g.data.has_masked, spec.decimals);
  if (hover.on) DrawHover(dl, grid, drawn, g, hover);
  else if (spec.labels && ImGui::IsItemHovered())
    LabelTooltip(grid, drawn, g, shift);
  RecordPlacement(ctx, grid, drawn, g);
  ImGui::PopID();
  return result;
}

ColorScale DivergingScale(const attnlab::Matrix& m, Colormap sequential) {
  return SymmetricScale(DivergingFor(sequential), ScanValues(m, false).max_abs);
}

ColorScale SignedScale(Colormap sequential) { return {DivergingFor(sequential), -1.0, 1.0}; }

ColorScale WeightsScale(Colormap sequential) { return {sequential, 0.0, 1.0}; }

}  // namespace attnlab::app
