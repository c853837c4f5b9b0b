#pragma once
/// A lesson's steps as slides (`attnlab-cli export FILE --lesson --out DIR`): one 1920 x 1080 PNG
/// per step (times the scale), with the step's title, the author's caption, the explanation in the
/// live numbers, the formula in the layout's notation and the step's heatmaps, drawn as the
/// figure exporter draws them. A step that asks for a prediction also gets a slide before the
/// reveal, its cells grey "?" and no colour bar.
#include <string>
#include <vector>

#include "attnlab/export/canvas.h"
#include "attnlab/export/figure.h"
#include "attnlab/export/views.h"
#include "attnlab/lesson.h"

namespace attnlab::exporter {

constexpr int kSlideWidth = 1920, kSlideHeight = 1080;
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
};

/// Where one slide drew its heatmap grids (slide pixels): tests check their colours.
struct SlideGrid {
  RectI grid;
  int rows = 0, cols = 0;
};

/// The slide of step `index` of `lesson`; `hidden`: before the reveal. `grids`, when given, gets
/// where each figure's cells are.
Canvas render_slide(const Scenario& s, const Trace& t, const lesson::Lesson& lesson, std::size_t index,
                    bool hidden, const SlideOptions& options, std::vector<SlideGrid>* grids = nullptr);

/// "step01_inputs", "step07_weights_predict".
std::string slide_stem(const lesson::Lesson& lesson, std::size_t index, bool hidden);

}  // namespace attnlab::exporter
