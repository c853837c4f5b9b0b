#pragma once
/// A lesson's steps as slides (`attnlab-cli export FILE --lesson --out DIR`): one 1920 x 1080 PNG
/// per step (times the scale), with the step's title, the author's caption, the explanation in the
/// live numbers, the formula in the layout's notation and the step's heatmaps, drawn as the
/// figure exporter draws them. A step that asks for a prediction also gets a slide before the
/// reveal, its cells grey "?" and no colour bar, its figures placed and sized as on the reveal
/// (the two slides share one arrangement, for the taller of their texts).
///
/// Figure size: each slide zooms its figures (a fractional zoom, up to kMaxSlideZoom) to fill the
/// room the text leaves, the text either below the title and above the figures or in a column
/// beside them, whichever gives larger cells; then every slide's cell side is capped at the
/// lesson's smallest fitting cell divided by kSlideCellConsistency, so the cells of one lesson's
/// slides differ by less than that ratio, oversized matrices (kSlideOversizeCell) aside
/// (docs/EXPORT.md).
#include <memory>
#include <string>
#include <vector>

#include "attnlab/export/canvas.h"
#include "attnlab/export/figure.h"
#include "attnlab/export/views.h"
#include "attnlab/lesson.h"

namespace attnlab::exporter {

constexpr int kSlideWidth = 1920, kSlideHeight = 1080;
/// The largest zoom of a figure on a slide: its title (18 units) stays near the slide title's size.
constexpr double kMaxSlideZoom = 2.5;
/// The smallest cell side of a lesson's slides is at least this times the largest (the rule is
/// 0.7; a little above it so pixel rounding stays within).
constexpr double kSlideCellConsistency = 0.71;
/// A slide whose figures cannot have cells this large (a 40-row matrix on one 1080-pixel slide)
/// draws them as large as it can and does not set the lesson's size: the other slides would shrink
/// to match it. Nor does a `heads` step, every head's weights side by side (small multiples).
/// SlideLayout::sets_lesson_cell says which slides do.
constexpr double kSlideOversizeCell = 40;
/// The largest em size of the numbers in a slide's cells (figure units, before the slide's zoom):
/// half again the figures' own, where the cell leaves room for it.
constexpr double kSlideValueSize = 20;
/// The grey of a cell still to be guessed.
constexpr Rgba8 kHiddenCell{150, 150, 158, 255};

/// The figures a step shows: its stage for `head` (0-based), or X and Z for the inputs, or every
/// head's weights; none for W_o when the scenario has no W_o.
std::vector<HeatmapFigure> step_figures(const Scenario& s, const Trace& t, const lesson::Step& step, int head,
                                        const Colormaps& maps);

struct SlideOptions {
  int scale = 1;  ///< 1 or 2 (3840 x 2160)
  int decimals = kDefaultDecimals;
  Colormaps maps;
  /// The lesson's cap on a slide's cell side (slide pixels at scale 1): lesson_cell_cap(), which an
  /// export of every slide computes once; 0: each slide computes it.
  double cell_cap = 0;
};

/// Where one slide drew its heatmap grids (slide pixels): tests check their colours.
struct SlideGrid {
  RectI grid;
  int rows = 0, cols = 0;
};

/// One figure as a slide places it (slide pixels at scale 1).
struct SlideFigure {
  RectI box;   ///< the whole figure: title, labels, cells, colour bar
  RectI grid;  ///< its cells
  int rows = 0, cols = 0;
  double zoom = 1;  ///< times the figure's 1x size
  double cell = 0;  ///< cell side (before the edges are rounded to pixels)
  double value_px = 0;  ///< em size of the numbers in its cells (slide pixels); 0: none printed
  double text_px = 0;   ///< em size of its smallest title, label or tick (slide pixels); 0: none
};

/// Where a slide puts its text and its figures (slide pixels at scale 1; a 2x slide doubles them).
struct SlideLayout {
  std::vector<RectI> text;  ///< one box per paragraph: step line, title, caption, explanation, formula
  std::vector<SlideFigure> figures;
  double fit = 0;  ///< the largest cell side this slide has room for; the cells are this, capped by the lesson
  bool text_beside = false;  ///< caption, explanation and formula right of the figures
  bool sets_lesson_cell = false;  ///< counts for lesson_cell_cap (kSlideOversizeCell)
};

/// The largest cell side any of the lesson's slides may draw: the smallest cell that fits on one of
/// them (each step, and each prediction before its reveal; only those that set the lesson's cell,
/// kSlideOversizeCell) over kSlideCellConsistency.
double lesson_cell_cap(const Scenario& s, const Trace& t, const lesson::Lesson& lesson, const SlideOptions& options);

/// The layout render_slide draws (`options.scale` aside).
SlideLayout slide_layout(const Scenario& s, const Trace& t, const lesson::Lesson& lesson, std::size_t index,
                         bool hidden, const SlideOptions& options);

/// The slide of step `index` of `lesson`; `hidden`: before the reveal. `grids`, when given, gets
/// where each figure's cells are.
Canvas render_slide(const Scenario& s, const Trace& t, const lesson::Lesson& lesson, std::size_t index,
                    bool hidden, const SlideOptions& options, std::vector<SlideGrid>* grids = nullptr);

/// Every slide of a lesson, each step's content (its text, its figures and their layouts) and
/// where its figures go computed once when the deck is made, and the lesson's cell cap from them:
/// render() draws what render_slide() draws, without computing them again per slide (a 768-wide
/// model layer's 13 slides computed each figure's layout four to five times).
class LessonDeck {
 public:
  /// `options.cell_cap` > 0 is used as the cap; 0: the deck computes lesson_cell_cap()'s. `lesson`
  /// must outlive the deck (its slides point at their steps).
  LessonDeck(const Scenario& s, const Trace& t, const lesson::Lesson& lesson,
             const SlideOptions& options);
  ~LessonDeck();
  LessonDeck(const LessonDeck&) = delete;
  LessonDeck& operator=(const LessonDeck&) = delete;
  double cell_cap() const { return cell_cap_; }
  /// Step `index`'s slide (`hidden`: before the reveal, only for a step that asks for a
  /// prediction; else ExportError).
  Canvas render(std::size_t index, bool hidden, std::vector<SlideGrid>* grids = nullptr);

  struct Slide;  ///< one slide's content and frame (lesson_slides.cpp)

 private:
  SlideOptions options_;
  double cell_cap_ = 0;
  std::vector<std::unique_ptr<Slide>>
      slides_;  ///< per step: as revealed, then before the reveal (or null)
};

/// What a slide of a model's layer says it shows, in its top line: "gpt2 · layer 3" (view.model
/// names the folder and the layer), "gpt2 · layer 3 · head 3.2" for a step of one head of several;
/// "" for a scenario that is no model's layer.
std::string slide_model_line(const Scenario& s, const lesson::Step& step, int head);

/// "step01_inputs", "step07_weights_predict".
std::string slide_stem(const lesson::Lesson& lesson, std::size_t index, bool hidden);

}  // namespace attnlab::exporter
