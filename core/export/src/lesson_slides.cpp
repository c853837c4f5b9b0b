#include "attnlab/export/lesson_slides.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "attnlab/export/font.h"

namespace attnlab::exporter {
namespace {

constexpr int kMargin = 64;
constexpr Rgba8 kAccent{178, 92, 0, 255};

std::vector<std::string> named(const std::vector<std::string>& given, int n, const char* prefix) {
  if (static_cast<int>(given.size()) == n) return given;
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

std::vector<std::string> indices(int n) { return named({}, n, ""); }

ColorScale signed_scale(const Matrix& m, const Colormaps& maps) {
  double max_abs = 0;
  for (Eigen::Index k = 0; k < m.size(); ++k)
    if (std::isfinite(m.data()[k])) max_abs = std::max(max_abs, std::fabs(m.data()[k]));
  return {maps.diverging, -(max_abs > 0 ? max_abs : 1), max_abs > 0 ? max_abs : 1};
}

// X or Z: tokens along one axis, the embedding along the other, as the file's layout has them.
HeatmapFigure input_figure(const Scenario& s, const Matrix& m, bool context, const Colormaps& maps) {
  const bool rows = s.layout == Layout::rows;
  const int n = int(rows ? m.rows() : m.cols()), d = int(rows ? m.cols() : m.rows());
  const std::vector<std::string> tokens =
      context ? named(s.context_tokens, n, "z") : named(s.tokens, n, "x");
  HeatmapFigure f;
  f.title = context ? "Z \xE2\x80\x93 the context tokens" : "X \xE2\x80\x93 the tokens";
  f.values = m;
  f.row_labels = rows ? tokens : indices(d);
  f.col_labels = rows ? indices(d) : tokens;
  f.row_axis = rows ? "tokens" : (context ? "d_z" : "d_x");
  f.col_axis = rows ? (context ? "d_z" : "d_x") : "tokens";
  f.corner = f.row_axis;
  f.scale = signed_scale(m, maps);
  return f;
}

HeatmapFigure w_o_figure(const Scenario& s, const Colormaps& maps) {
  HeatmapFigure f;
  f.title = "W_o \xE2\x80\x93 the output projection";
  f.values = *s.W_o;
  f.row_labels = indices(int(s.W_o->rows()));
  f.col_labels = indices(int(s.W_o->cols()));
  const bool rows = s.layout == Layout::rows;
  f.row_axis = rows ? "H\xC2\xB7" "d_v" : "d_out";
  f.col_axis = rows ? "d_out" : "H\xC2\xB7" "d_v";
  f.corner = f.row_axis;
  f.scale = signed_scale(*s.W_o, maps);
  return f;
}

// Words of `text` in lines no wider than `width` at em size `px`.
std::vector<std::string> wrap(const Font& font, const std::string& text, double px, double width) {
  std::vector<std::string> lines;
  std::istringstream words(text);
  std::string line, word;
  while (words >> word) {
    const std::string candidate = line.empty() ? word : line + " " + word;
    if (!line.empty() && font.text_width(candidate, px) > width) {
      lines.push_back(line);
      line = word;
    } else {
      line = candidate;
    }
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

// Writes `text` wrapped from baseline y; returns the y below it.
double paragraph(Canvas& c, const Font& font, const std::string& text, double y, double px, Rgba8 color, int s) {
  for (const std::string& line : wrap(font, text, px, kSlideWidth - 2 * kMargin)) {
    y += px * 1.3;
    font.draw(c, line, kMargin * s, y * s, px * s, color);
  }
  return y;
}

// Before the reveal: grey "?" cells, the colour bar and its ticks covered.
void hide(Canvas& c, const FigureLayout& l, int k) {
  const Font& font = default_fonts().regular;
  // The colour bar and its tick labels (the range would give the numbers away).
  const RectI bar = l.colorbar.scaled(k);
  c.fill({bar.x - 2 * k, bar.y - 12 * k, c.width() - bar.x + 2 * k, bar.h + 24 * k}, palette::page);
  c.fill(l.grid.scaled(k), palette::page);
  const double px = std::min(28.0, l.cell * 0.45) * k;
  for (int i = 0; i * l.cell < l.grid.h; ++i)
    for (int j = 0; j * l.cell < l.grid.w; ++j) {
      const RectI r = l.cell_rect(i, j).scaled(k);
      c.fill({r.x + k, r.y + k, r.w - 2 * k, r.h - 2 * k}, kHiddenCell);
      font.draw(c, "?", r.centre_x() - font.text_width("?", px) / 2, r.centre_y() + px * 0.35, px, palette::page);
    }
}

// A highlighted cell: an accent frame just inside it.
void outline(Canvas& c, RectI r, int t) {
  c.fill({r.x, r.y, r.w, t}, kAccent);
  c.fill({r.x, r.y + r.h - t, r.w, t}, kAccent);
  c.fill({r.x, r.y, t, r.h}, kAccent);
  c.fill({r.x + r.w - t, r.y, t, r.h}, kAccent);
}

void blit(Canvas& to, const Canvas& from, int x0, int y0) {
  for (int y = 0; y < from.height() && y0 + y < to.height(); ++y)
    for (int x = 0; x < from.width() && x0 + x < to.width(); ++x) to.blend(x0 + x, y0 + y, from.pixel(x, y), 1.0);
}

}  // namespace

std::vector<HeatmapFigure> step_figures(const Scenario& s, const Trace& t, const lesson::Step& step, int head,
                                        const Colormaps& maps) {
  switch (step.kind) {
    case StageId::inputs: {
      std::vector<HeatmapFigure> out = {input_figure(s, s.X, false, maps)};
      if (s.Z) out.push_back(input_figure(s, *s.Z, true, maps));
      return out;
    }
    case StageId::heads: {
      std::vector<HeatmapFigure> out;
      for (int h = 0; h < int(t.heads.size()); ++h) out.push_back(stage_figure(s, t, StageId::weights, h, maps));
      return out;
    }
    case StageId::W_o:
      if (!s.W_o) return {};
      return {w_o_figure(s, maps)};
    default:
      if (!has_stage(t, step.kind)) return {};  // the explanation says what turns it on
      return {stage_figure(s, t, step.kind, head, maps)};
  }
}

std::string slide_stem(const lesson::Lesson& lesson, std::size_t index, bool hidden) {
  char stem[64];
  std::snprintf(stem, sizeof stem, "step%02zu_%s%s", index + 1, stage_name(lesson.steps[index].kind),
                hidden ? "_predict" : "");
  return stem;
}

Canvas render_slide(const Scenario& s, const Trace& t, const lesson::Lesson& lesson, std::size_t index,
                    bool hidden, const SlideOptions& o, std::vector<SlideGrid>* grids) {
  const lesson::Step& step = lesson.steps.at(index);
  const int head = std::clamp(step.head, 0, std::max(0, int(t.heads.size()) - 1));
  const int k = o.scale;
  Canvas slide(kSlideWidth * k, kSlideHeight * k, palette::page);
  const Fonts& fonts = default_fonts();
  std::string top = "Step " + std::to_string(index + 1) + " of " + std::to_string(lesson.steps.size());
  if (!lesson.title.empty()) top += "  \xC2\xB7  " + lesson.title;
  double y = paragraph(slide, fonts.regular, top, kMargin * 0.4, 24, palette::dim, k);
  y = paragraph(slide, fonts.bold, lesson::step_title(step, s, head), y + 8, 44, palette::ink, k);
  if (!step.caption.empty()) y = paragraph(slide, fonts.regular, step.caption, y + 6, 30, palette::ink, k);
  const std::string said = hidden ? "Predict first: what will these cells be? The next slide reveals them."
                                  : lesson::step_explanation(step, s, t, head);
  y = paragraph(slide, fonts.regular, said, y + 4, 26, hidden ? kAccent : palette::dim, k);
  y = paragraph(slide, fonts.regular, lesson::step_formula(step, s, head), y + 4, 30, kAccent, k);
  // The figures side by side below the text, each at the largest whole scale that fits its slot.
  const std::vector<HeatmapFigure> figures = step_figures(s, t, step, head, o.maps);
  if (figures.empty()) return slide;
  FigureStyle style;
  style.values = !hidden;
  style.decimals = o.decimals;
  const int top_y = int(y) + 24, slot_w = (kSlideWidth - 2 * kMargin) / int(figures.size());
  const int slot_h = kSlideHeight - kMargin / 2 - top_y;
  for (std::size_t i = 0; i < figures.size(); ++i) {
    const FigureLayout l = figure_layout(figures[i], style);
    const int fit = std::max(1, std::min({slot_w / std::max(1, l.width), slot_h / std::max(1, l.height), 4}));
    Canvas figure = render_figure(figures[i], style, fit * k);
    if (hidden) hide(figure, l, fit * k);
    const int x = (kMargin + int(i) * slot_w + (slot_w - l.width * fit) / 2) * k;
    blit(slide, figure, x, top_y * k);
    const int cell = l.cell * fit * k, grid_x = x + l.grid.x * fit * k, grid_y = (top_y + l.grid.y * fit) * k;
    for (const lesson::Cell& c : step.highlight)
      if (c.row < figures[i].values.rows() && c.col < figures[i].values.cols())
        outline(slide, {grid_x + c.col * cell, grid_y + c.row * cell, cell, cell}, 3 * k);
    if (grids)
      grids->push_back({{x + l.grid.x * fit * k, top_y * k + l.grid.y * fit * k, l.grid.w * fit * k, l.grid.h * fit * k},
                        int(figures[i].values.rows()), int(figures[i].values.cols())});
  }
  return slide;
}

}  // namespace attnlab::exporter
