#include "attnlab/export/lesson_slides.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>

#include "attnlab/export/engine_figures.h"
#include "attnlab/export/font.h"
#include "attnlab/export/lines.h"
#include "attnlab/numbering.h"
#include "attnlab/stage.h"

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

constexpr int kGap = 32;          // between figures, and between the figures and the text
constexpr int kTextColumn = 600;  // the narrowest text column beside the figures
// The figures' own margins (24 units, zoomed) keep them off the title and the slide's edge.
constexpr double kBottom = kSlideHeight - kMargin / 4.0;

struct Paragraph {
  const Font* font = nullptr;
  std::string text;
  double px = 0, gap = 0;  // em size, space above
  Rgba8 color;
  std::vector<std::string> lines;
  RectI box;
};

Paragraph paragraph(const Font& font, std::string text, double px, double gap, Rgba8 color) {
  Paragraph p;
  p.font = &font;
  p.text = std::move(text);
  p.px = px;
  p.gap = gap;
  p.color = color;
  return p;
}

// Wraps `ps` to `width` and stacks them from `y` at `x`; returns the bottom of the last box.
double stack(std::vector<Paragraph>& ps, int x, double y, int width) {
  double bottom = y;
  for (Paragraph& p : ps) {
    p.lines = wrap(*p.font, p.text, p.px, width);
    const double top = y + p.gap;
    y = top + p.lines.size() * p.px * 1.3;  // the last baseline
    bottom = y + p.px * 0.3;                // its descenders
    p.box = {x, int(std::floor(top)), width, int(std::ceil(bottom - std::floor(top)))};
  }
  return bottom;
}

// Everything one slide shows, before it is placed.
struct SlideContent {
  std::vector<Paragraph> head, body;  // head: step line and title, full width; body: the rest
  std::vector<HeatmapFigure> figures;
  std::vector<FigureLayout> layouts;  // figure units
  FigureStyle style;
  const lesson::Step* step = nullptr;
  std::vector<lesson::TileBox> tiles;  // a tiles step's tiling, drawn over its first figure
  std::size_t tile = 0;                // the step's tile among them
  // Small multiples (style.bare): each figure's caption, drawn by the slide above its cells.
  std::vector<std::string> captions;
  std::optional<LinesFigure> lines;  // a lines step's figure, drawn under the text
};

// A small multiple's caption: its em size (slide pixels) and the band it takes above the cells.
constexpr double kCaptionPx = 30;
constexpr double kCaptionBand = kCaptionPx * 1.4;

double caption_band(const SlideContent& c) { return c.captions.empty() ? 0 : kCaptionBand; }

// Every head side by side as small multiples, the cells alone under a caption: each figure's own
// labels and colour bar made 12 heads of 60 tokens a strip of stamps (issue 38, point 11). A few
// small heads keep their labels.
bool as_small_multiples(const lesson::Step& step, const Trace& t) {
  return step.kind == StageId::heads && !t.heads.empty() &&
         (t.heads.size() > 4 || t.heads.front().weights.rows() > 16 ||
          t.heads.front().weights.cols() > 16);
}

// A tiles step's scores keep their numbers before the reveal: they are what the class predicts from.
bool keeps_values(const SlideContent& c, std::size_t figure) { return c.step->kind == StageId::tiles && figure == 0; }

SlideContent slide_content(const Scenario& s, const Trace& t, const lesson::Lesson& lesson, std::size_t index,
                           bool hidden, const SlideOptions& o) {
  SlideContent c;
  c.step = &lesson.steps.at(index);
  const lesson::Step& step = *c.step;
  const int head = std::clamp(step.head, 0, std::max(0, int(t.heads.size()) - 1));
  const Fonts& fonts = default_fonts();
  std::string top = "Step " + std::to_string(index + 1) + " of " + std::to_string(lesson.steps.size());
  // A model's layer names itself, model, layer and head, in place of the title its file gave it
  // ("gpt2, layer 3 (of 0-11)"); a lesson's own title stays.
  const std::string model = slide_model_line(s, step, head);
  if (!lesson.title.empty() && (model.empty() || lesson.title != s.title))
    top += "  \xC2\xB7  " + lesson.title;
  if (!model.empty()) top += "  \xC2\xB7  " + model;
  c.head.push_back(paragraph(fonts.regular, top, 24, kMargin * 0.4, palette::dim));
  c.head.push_back(paragraph(fonts.bold, lesson::step_title(step, s, head), 44, 8, palette::ink));
  if (!step.caption.empty()) c.body.push_back(paragraph(fonts.regular, step.caption, 30, 6, palette::ink));
  const std::string said = hidden ? lesson::predict_prompt(step, s, t, head, o.decimals) + " The next slide reveals them."
                                  : lesson::step_explanation(step, s, t, head, o.decimals);
  c.body.push_back(paragraph(fonts.regular, said, 26, 4, hidden ? kAccent : palette::dim));
  c.body.push_back(paragraph(fonts.regular, lesson::step_formula(step, s, head), 30, 4, kAccent));
  c.figures = step_figures(s, t, step, head, o.maps);
  if (step.kind == StageId::lines && !t.heads.empty()) c.lines = lines_figure(s, t, step.head >= 0 ? head : -1);
  if (step.kind == StageId::tiles && c.figures.size() > 1) {
    const FlashRun run = lesson::tiles_run(step, t, head);
    c.tiles = lesson::tile_boxes(run);
    c.tile = lesson::shown_tile(step, run);
  }
  // Laid out with its values on both slides, so that the figures keep their size at the reveal;
  // before it, hide() covers them.
  c.style.values = true;
  c.style.decimals = o.decimals;
  c.style.max_value_size = kSlideValueSize;
  if (as_small_multiples(step, t)) {
    c.style.bare = true;
    c.style.values = false;
    const std::string model = slide_model_line(s, step, 0);
    const auto layer = s.view.find("model");
    for (int h = 0; h < int(c.figures.size()); ++h)
      c.captions.push_back(model.empty() ? head_label(h)
                                         : model_head_label(layer->at("layer").get<int>(), h));
  }
  for (const HeatmapFigure& f : c.figures) c.layouts.push_back(figure_layout(f, c.style));
  return c;
}

// The figures in rows of `per_row`: the largest cell side (slide pixels) at which they fit w x h,
// each figure zoomed by cell / its own cell, at most kMaxSlideZoom (below the floor when they
// cannot fit).
double fit_cell(const std::vector<FigureLayout>& ls, double w, double h, int per_row,
                double caption = 0) {
  double cell = 1e9, height = 0;
  int rows = 0;
  for (std::size_t first = 0; first < ls.size(); first += per_row, ++rows) {
    double width = 0, row_height = 0;
    const std::size_t end = std::min(ls.size(), first + per_row);
    for (std::size_t i = first; i < end; ++i) {
      width += ls[i].width / double(ls[i].cell);
      row_height = std::max(row_height, ls[i].height / double(ls[i].cell));
    }
    cell = std::min(cell, (w - (end - first - 1) * kGap) / width);
    height += row_height;
  }
  cell = std::min(cell, (h - (rows - 1) * kGap - rows * caption) / height);
  for (const FigureLayout& l : ls) cell = std::min(cell, kMaxSlideZoom * l.cell);
  return cell;
}

// The smallest cell side render_figure can draw every figure at (its zoom >= kMinFigureScale).
double floor_cell(const std::vector<FigureLayout>& ls) {
  double lowest = 0;
  for (const FigureLayout& l : ls) lowest = std::max(lowest, kMinFigureScale * l.cell);
  return lowest;
}

struct Fit {
  double cell = 0;
  int per_row = 1;
};

Fit best_fit(const std::vector<FigureLayout>& ls, double w, double h, double caption = 0) {
  Fit best;
  for (int per_row = 1; per_row <= int(ls.size()); ++per_row) {
    const double cell = fit_cell(ls, w, h, per_row, caption);
    if (cell > best.cell * 1.001) best = {cell, per_row};
  }
  return best;
}

double head_bottom(SlideContent& c) { return stack(c.head, kMargin, 0, kSlideWidth - 2 * kMargin); }

// Text below the title, figures below the text.
Fit fit_below(SlideContent& c) {
  const double top = stack(c.body, kMargin, head_bottom(c), kSlideWidth - 2 * kMargin) + kGap;
  return best_fit(c.layouts, kSlideWidth - 2 * kMargin, kBottom - top, caption_band(c));
}

// Figures below the title, the text in a column right of them (no fit when the text is too long).
Fit fit_beside(SlideContent& c) {
  const double top = head_bottom(c);
  if (stack(c.body, kSlideWidth - kMargin - kTextColumn, top, kTextColumn) > kBottom) return {};
  const Fit fit = best_fit(c.layouts, kSlideWidth - 2 * kMargin - kTextColumn - kGap, kBottom - top,
                           caption_band(c));
  return fit.cell >= floor_cell(c.layouts) ? fit : Fit{};  // figures that overflow would run under the text
}

// Beside only when it gives clearly larger cells: a column of text is harder to read.
bool prefers_beside(SlideContent& c) { return fit_beside(c).cell > 1.1 * fit_below(c).cell; }

bool sets_lesson_cell(const SlideContent& c, double fit) {
  return !c.layouts.empty() && fit >= kSlideOversizeCell && c.step->kind != StageId::heads;
}

// The figures at `cell`, in rows of `per_row` from (x, y); centred in `width` when `centre`.
// Returns the right edge of the widest row.
int place_figures(const SlideContent& c, SlideLayout& out, double cell, int per_row, int x, int y, int width,
                  bool centre) {
  int right = x;
  const int caption = int(std::ceil(caption_band(c)));
  for (std::size_t first = 0; first < c.layouts.size(); first += per_row) {
    const std::size_t end = std::min(c.layouts.size(), first + per_row);
    int row_width = int(end - first - 1) * kGap, row_height = 0;
    y += caption;
    for (std::size_t i = first; i < end; ++i) row_width += int(std::ceil(c.layouts[i].width * cell / c.layouts[i].cell));
    int fx = centre ? x + std::max(0, (width - row_width) / 2) : x;
    for (std::size_t i = first; i < end; ++i) {
      const FigureLayout& l = c.layouts[i];
      const double zoom = cell / l.cell;
      const RectI box{fx, y, int(std::ceil(l.width * zoom)), int(std::ceil(l.height * zoom))};
      const RectI g = l.grid.scaled(zoom);
      double text = 0;  // its smallest title, label or tick (the numbers in cells are value_px)
      for (const TextItem& t : l.texts)
        if (t.role != "value") text = text > 0 ? std::min(text, t.size * zoom) : t.size * zoom;
      out.figures.push_back({box,
                             {fx + g.x, y + g.y, g.w, g.h},
                             int(c.figures[i].values.rows()),
                             int(c.figures[i].values.cols()),
                             zoom,
                             cell,
                             l.value_size * zoom,
                             text});
      fx += box.w + kGap;
      row_height = std::max(row_height, box.h);
    }
    right = std::max(right, fx - kGap);
    y += row_height + kGap;
  }
  return right;
}

// Where a slide's figures go: beside the text or below it (from `top`), at `fit`.
struct FigureFrame {
  bool beside = false;
  Fit fit;
  int top = 0;
};

FigureFrame frame_of(SlideContent& c, bool beside) {
  if (beside) return {true, fit_beside(c), int(std::ceil(head_bottom(c)))};
  const double below = stack(c.body, kMargin, head_bottom(c), kSlideWidth - 2 * kMargin);
  return {false, fit_below(c), int(std::ceil(below)) + kGap};
}

// A predict step's two slides differ in their text only (`twin`: the other one's content): their
// figures share one frame, beside only when both texts fit beside, else below the taller text, so
// the figures do not move when the deck advances to the reveal.
FigureFrame figure_frame(SlideContent& c, SlideContent* twin) {
  const bool beside = !c.layouts.empty() && prefers_beside(c) && (!twin || prefers_beside(*twin));
  const FigureFrame own = frame_of(c, beside);
  if (!twin || beside) return own;
  const FigureFrame other = frame_of(*twin, false);
  return other.top > own.top ? other : own;
}

SlideLayout arrange(SlideContent& c, const FigureFrame& frame, double cap) {
  SlideLayout out;
  const Fit& fit = frame.fit;
  const double cell = c.layouts.empty() ? 0 : std::max(std::min(fit.cell, cap), floor_cell(c.layouts));
  const int top = int(std::ceil(head_bottom(c)));
  if (frame.beside) {
    const int right = place_figures(c, out, cell, fit.per_row, kMargin, top, 0, false);
    stack(c.body, right + kGap, top, kSlideWidth - kMargin - right - kGap);
  } else {
    stack(c.body, kMargin, top, kSlideWidth - 2 * kMargin);
    place_figures(c, out, cell, fit.per_row, kMargin, frame.top, kSlideWidth - 2 * kMargin, true);
  }
  for (const auto* part : {&c.head, &c.body})
    for (const Paragraph& p : *part) out.text.push_back(p.box);
  out.text_beside = frame.beside;
  out.fit = fit.cell;
  out.sets_lesson_cell = sets_lesson_cell(c, fit.cell);
  return out;
}

// A lines step's figure under the text (`top`, slide pixels at scale 1), as large as the room
// lets it be, up to kMaxSlideZoom, centred.
void draw_lines(Canvas& slide, const LinesFigure& f, int top, int k) {
  const LinesLayout l = lines_layout(f);
  const double room_w = kSlideWidth - 2 * kMargin, room_h = kSlideHeight - kMargin / 2.0 - top;
  const double zoom = std::clamp(std::min({room_w / l.width, room_h / l.height, kMaxSlideZoom}), kMinFigureScale, 8.0);
  const Canvas figure = render_lines(f, zoom * k, true);
  const int x0 = int(std::lround((kSlideWidth * k - figure.width()) / 2.0)), y0 = top * k;
  for (int y = 0; y < figure.height(); ++y)
    for (int x = 0; x < figure.width(); ++x) {
      const Rgba8 p = figure.pixel(x, y);
      if (p.a) slide.blend(x0 + x, y0 + y, p, 1.0);
    }
}

void draw_paragraphs(Canvas& slide, const std::vector<Paragraph>& ps, int k) {
  for (const Paragraph& p : ps)
    for (std::size_t i = 0; i < p.lines.size(); ++i)
      p.font->draw(slide, p.lines[i], p.box.x * k, (p.box.y + (i + 1) * p.px * 1.3) * k, p.px * k, p.color);
}

// Before the reveal: grey "?" cells, the colour bar and its ticks covered.
void hide(Canvas& c, const FigureLayout& l, double z) {
  const Font& font = default_fonts().regular;
  // The colour bar and its tick labels (the range would give the numbers away), and the hatched
  // cells' legend below it ("evicted" answers "which tokens does the cache hold?").
  const RectI bar = l.colorbar.scaled(z), swatch = l.masked_swatch.scaled(z);
  const int pad = int(std::lround(2 * z)), ticks = int(std::lround(12 * z)), inset = std::max(1, int(std::lround(z)));
  if (l.colorbar.w > 0)
    c.fill({bar.x - pad, bar.y - ticks, c.width() - bar.x + pad, bar.h + 2 * ticks}, palette::page);
  if (l.has_masked) c.fill({swatch.x - pad, swatch.y - ticks, c.width() - swatch.x + pad, swatch.h + 2 * ticks}, palette::page);
  c.fill(l.grid.scaled(z), palette::page);
  const double px = std::min(28.0, l.cell * 0.45) * z;
  for (int i = 0; i * l.cell < l.grid.h; ++i)
    for (int j = 0; j * l.cell < l.grid.w; ++j) {
      const RectI r = l.cell_rect(i, j).scaled(z);
      c.fill({r.x + inset, r.y + inset, r.w - 2 * inset, r.h - 2 * inset}, kHiddenCell);
      font.draw(c, "?", r.centre_x() - font.text_width("?", px) / 2, r.centre_y() + px * 0.35, px, palette::page);
    }
}

// A highlighted cell: an accent frame just inside it.
void outline(Canvas& c, RectI r, int t, Rgba8 color = kAccent) {
  c.fill({r.x, r.y, r.w, t}, color);
  c.fill({r.x, r.y + r.h - t, r.w, t}, color);
  c.fill({r.x, r.y, t, r.h}, color);
  c.fill({r.x + r.w - t, r.y, t, r.h}, color);
}

// Skipped tiles hatched with grey diagonals, every tile's edge a thin grey line, the step's tile
// framed in the accent colour.
void draw_tiling(Canvas& slide, const SlideContent& c, const FigureLayout& l, double zoom, int x, int y, int k) {
  const auto rect = [&](const lesson::TileBox& b) {
    const RectI first = l.cell_rect(b.row, b.col).scaled(zoom), end = l.cell_rect(b.row + b.rows, b.col + b.cols).scaled(zoom);
    return RectI{x + first.x, y + first.y, end.x - first.x, end.y - first.y};
  };
  for (const lesson::TileBox& b : c.tiles) {
    const RectI r = rect(b);
    if (b.skipped)
      for (int py = r.y; py < r.y + r.h; ++py)
        for (int px = r.x; px < r.x + r.w; ++px)
          if ((px + py) % (8 * k) < 2 * k) slide.blend(px, py, palette::masked_ink, 0.6);
    outline(slide, r, std::max(1, k), palette::dim);
  }
  const RectI current = rect(c.tiles[c.tile]);
  const int t = 5 * k;
  outline(slide, {current.x - t / 2, current.y - t / 2, current.w + t, current.h + t}, t, kAccent);
}

void blit(Canvas& to, const Canvas& from, int x0, int y0) {
  for (int y = 0; y < from.height() && y0 + y < to.height(); ++y)
    for (int x = 0; x < from.width() && x0 + x < to.width(); ++x) to.blend(x0 + x, y0 + y, from.pixel(x, y), 1.0);
}

// Figure `i` of the slide at scale k, its highlighted cells, and where its cells went.
void draw_figure(Canvas& slide, const SlideContent& c, const SlideFigure& at, std::size_t i, bool hidden, int k,
                 std::vector<SlideGrid>* grids) {
  const FigureLayout& l = c.layouts[i];
  const double zoom = at.zoom * k;
  FigureStyle style = c.style;
  style.values = style.values || keeps_values(c, i);
  Canvas figure = render_figure(c.figures[i], l, style, zoom);
  if (hidden && !keeps_values(c, i)) hide(figure, l, zoom);
  const int x = at.box.x * k, y = at.box.y * k;
  blit(slide, figure, x, y);
  if (i == 0 && !c.tiles.empty()) draw_tiling(slide, c, l, zoom, x, y, k);
  const Matrix& values = c.figures[i].values;
  for (const lesson::Cell& cell : c.step->highlight)
    if (cell.row < values.rows() && cell.col < values.cols()) {
      const RectI r = l.cell_rect(cell.row, cell.col).scaled(zoom);
      outline(slide, {x + r.x, y + r.y, r.w, r.h}, 3 * k);
    }
  const RectI g = l.grid.scaled(zoom);
  if (grids) grids->push_back({{x + g.x, y + g.y, g.w, g.h}, int(values.rows()), int(values.cols())});
  if (i < c.captions.size())  // a small multiple's caption, in the band above its cells
    default_fonts().bold.draw(slide, c.captions[i], x, y - (kCaptionBand - kCaptionPx) * k,
                              kCaptionPx * k, palette::ink);
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
    case StageId::tiles: return tiles_figures(s, t, step, head, maps);
    case StageId::decode: return decode_figures(s, step, head, maps);
    case StageId::lines: return {};  // not a heatmap: the slide draws its LinesFigure
    default:
      if (!has_stage(t, step.kind)) return {};  // the explanation says what turns it on
      return {stage_figure(s, t, step.kind, head, maps)};
  }
}

std::string slide_model_line(const Scenario& s, const lesson::Step& step, int head) {
  const auto model = s.view.find("model");
  if (model == s.view.end() || !model->is_object()) return "";
  const auto folder = model->find("folder"), layer = model->find("layer");
  if (folder == model->end() || !folder->is_string() || layer == model->end() ||
      !layer->is_number_integer())
    return "";
  std::string name = folder->get<std::string>();
  while (name.size() > 1 && name.back() == '/') name.pop_back();
  name = name.substr(name.find_last_of('/') == std::string::npos ? 0 : name.find_last_of('/') + 1);
  const int l = layer->get<int>();
  std::string line = name + " \xC2\xB7 " + layer_label(l);
  if (per_head(step.kind) && s.head_count() > 1) line += " \xC2\xB7 " + model_head_label(l, head);
  return line;
}

std::string slide_stem(const lesson::Lesson& lesson, std::size_t index, bool hidden) {
  char stem[64];
  std::snprintf(stem, sizeof stem, "step%02zu_%s%s", index + 1, stage_name(lesson.steps[index].kind),
                hidden ? "_predict" : "");
  return stem;
}

namespace {

// Slide `index` (`hidden`: before the reveal) in `c` and the frame of its figures, shared with
// its twin when the step asks for a prediction.
FigureFrame step_frame(const Scenario& s, const Trace& t, const lesson::Lesson& lesson, std::size_t index,
                       bool hidden, const SlideOptions& o, SlideContent& c) {
  c = slide_content(s, t, lesson, index, hidden, o);
  if (!lesson.steps[index].predict) return figure_frame(c, nullptr);
  SlideContent twin = slide_content(s, t, lesson, index, !hidden, o);
  return figure_frame(c, &twin);
}

}  // namespace

double lesson_cell_cap(const Scenario& s, const Trace& t, const lesson::Lesson& lesson, const SlideOptions& o) {
  double smallest = 1e9;
  for (std::size_t i = 0; i < lesson.steps.size(); ++i) {  // a predict slide shares its reveal's frame
    if (lesson::needs_model(lesson.steps[i])) continue;  // not drawn here: export --lesson refuses it
    SlideContent c;
    const FigureFrame frame = step_frame(s, t, lesson, i, false, o, c);
    const double fit = c.layouts.empty() ? 0 : frame.fit.cell;
    if (sets_lesson_cell(c, fit)) smallest = std::min(smallest, fit);
  }
  return smallest / kSlideCellConsistency;
}

SlideLayout slide_layout(const Scenario& s, const Trace& t, const lesson::Lesson& lesson, std::size_t index,
                         bool hidden, const SlideOptions& o) {
  SlideContent c;
  const FigureFrame frame = step_frame(s, t, lesson, index, hidden, o, c);
  return arrange(c, frame, o.cell_cap > 0 ? o.cell_cap : lesson_cell_cap(s, t, lesson, o));
}

namespace {

Canvas draw_slide(SlideContent& c, const FigureFrame& frame, double cap, bool hidden, int k,
                  std::vector<SlideGrid>* grids) {
  const SlideLayout layout = arrange(c, frame, cap);
  Canvas slide(kSlideWidth * k, kSlideHeight * k, palette::page);
  draw_paragraphs(slide, c.head, k);
  draw_paragraphs(slide, c.body, k);
  if (c.lines && !hidden) draw_lines(slide, *c.lines, frame.top, k);
  for (std::size_t i = 0; i < layout.figures.size(); ++i) draw_figure(slide, c, layout.figures[i], i, hidden, k, grids);
  return slide;
}

}  // namespace

Canvas render_slide(const Scenario& s, const Trace& t, const lesson::Lesson& lesson,
                    std::size_t index, bool hidden, const SlideOptions& o,
                    std::vector<SlideGrid>* grids) {
  SlideContent c;
  const FigureFrame frame = step_frame(s, t, lesson, index, hidden, o, c);
  return draw_slide(c, frame, o.cell_cap > 0 ? o.cell_cap : lesson_cell_cap(s, t, lesson, o),
                    hidden, o.scale, grids);
}

struct LessonDeck::Slide {
  virtual ~Slide() = default;
};

namespace {

// One slide's content and its figures' frame, made once (a LessonDeck::Slide: the deck's header
// names no type of this file's).
struct DeckSlide : LessonDeck::Slide {
  SlideContent content;
  FigureFrame frame;
};

}  // namespace

LessonDeck::LessonDeck(const Scenario& s, const Trace& t, const lesson::Lesson& lesson,
                       const SlideOptions& o)
    : options_(o) {
  double smallest = 1e9;
  for (std::size_t i = 0; i < lesson.steps.size(); ++i) {
    // A step's slide and, when it asks for a prediction, the one before the reveal: each the
    // other's twin, as step_frame() makes them, with their contents computed once each.
    auto revealed = std::make_unique<DeckSlide>();
    revealed->content = slide_content(s, t, lesson, i, false, o);
    std::unique_ptr<DeckSlide> before;
    if (lesson.steps[i].predict) {
      before = std::make_unique<DeckSlide>();
      before->content = slide_content(s, t, lesson, i, true, o);
      revealed->frame = figure_frame(revealed->content, &before->content);
      before->frame = figure_frame(before->content, &revealed->content);
    } else {
      revealed->frame = figure_frame(revealed->content, nullptr);
    }
    const double fit = revealed->content.layouts.empty() ? 0 : revealed->frame.fit.cell;
    if (sets_lesson_cell(revealed->content, fit)) smallest = std::min(smallest, fit);
    slides_.push_back(std::move(revealed));
    slides_.push_back(std::move(before));
  }
  cell_cap_ = o.cell_cap > 0 ? o.cell_cap : smallest / kSlideCellConsistency;
}

LessonDeck::~LessonDeck() = default;

Canvas LessonDeck::render(std::size_t index, bool hidden, std::vector<SlideGrid>* grids) {
  auto* slide = static_cast<DeckSlide*>(slides_.at(2 * index + (hidden ? 1 : 0)).get());
  if (!slide)
    throw ExportError("slide " + std::to_string(index + 1) + ": the step asks for no prediction");
  return draw_slide(slide->content, slide->frame, cell_cap_, hidden, options_.scale, grids);
}

}  // namespace attnlab::exporter
