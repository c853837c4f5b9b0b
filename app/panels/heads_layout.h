#pragma once
/// How the Heads panel sizes what it draws: the largest cell a multiple fits in its room with the
/// labels chosen, and lecture mode's focus layout (the selected head large with its numbers and
/// its token labels, beside small multiples of every head that select one).
#include <imgui.h>

#include "attnlab/trace.h"
#include "panels/app_state.h"
#include "view/stage_labels.h"
#include "widgets/heatmap.h"

namespace attnlab::app::panel_heads {

/// The largest whole-pixel cell (2 .. cap) for which the whole multiple (title, labels, grid)
/// fits in `room`. Measured, not estimated: labels turn vertical when cells are narrow, so the
/// overhead depends on the cell size.
/// `upright_cols`: the column labels cut to the cell's width (UprightLabelWidth), never turned.
float LargestFittingCell(AppState& state, HeatmapSpec spec, ImVec2 room, float cap,
                         bool upright_cols = false);
/// The width a column label may take upright over a cell (HeatmapSpec::col_label_max).
float UprightLabelWidth(float cell);

/// Cells never grow past this: big enough to read from the back of a room, small enough to stay
/// a picture of a matrix rather than a table.
float CellCap();

/// How a multiple names its rows and columns, most to least room taken: whole token labels and
/// the axis names ("queries", "keys"), labels shortened in the middle, shortened labels alone
/// (the hint names the axes), nothing.
struct LabelChoice {
  bool labels = false;
  float label_max = 0;  ///< HeatmapSpec::label_max
  bool axes = false;
  bool upright_cols = false;  ///< column labels cut to the cell's width, upright: one line
  float col_max = 0;          ///< > 0: the column labels' own label_max (rows keep label_max)
};

/// Sets `spec`'s labels as `choice` says (upright column labels: to its cell, set first).
void ApplyLabels(HeatmapSpec& spec, const AxisLabels& labels, const LabelChoice& choice);

/// A head's weights as a multiple, titled `title`, with its labels when it has few tokens.
HeatmapSpec SmallMultiple(AppState& state, const attnlab::Matrix& weights,
                          const attnlab::BoolArray& allowed, const AxisLabels& labels, int head,
                          const char* title);

/// Lecture mode, where the multiples are too small for their numbers: the selected head large,
/// with its numbers, beside (or above) small multiples of every head that select one with a click
/// (or keys 0-9). The multiples keep a cell a picture can be read at; when they cannot all fit,
/// a page of them shows at a time, with buttons to the others.
struct Focus {
  bool strip_right = false;  ///< the multiples in a column at the right, else in a row below
  int per_page = 0;          ///< multiples shown at a time (0: no room for the layout)
  float thumb_cell = 0;
  ImVec2 thumb;         ///< one multiple's whole size
  LabelChoice labels;   ///< the large head's
  float cell = 0;       ///< the large head's
  bool values = false;  ///< the large head prints its numbers
  bool strip = true;    ///< multiples beside it: not for one head, the large one is all there is
};

/// The large head of the focus layout: head `h` with its numbers.
HeatmapSpec LargeHead(AppState& state, const attnlab::Trace& trace, const AxisLabels& labels, int h,
                      const char* title);

/// A multiple's cell: a colour a class still tells from its neighbours, no more (the large head
/// takes the room).
float ThumbCell();
/// Head `h` as a multiple of the focus layout's strip.
HeatmapSpec Thumbnail(AppState& state, const attnlab::Trace& trace, const AxisLabels& labels, int h,
                      const char* title);
/// "head 3" over a multiple, "h3" where that is wider than its grid.
void ThumbTitle(char (&title)[32], int h, int cols);
/// The width of a bold `title` and, after it, a head's "on" checkbox without its label (as a
/// multiple of the strip draws them: every head can be switched off there, not only the large one).
float TitleAndBoxWidth(const char* title);
/// The strip's "<  >" buttons: their height above a column of multiples, their width beside a row.
float PagerHeight();
float PagerWidth();

/// The focus layout with the multiples at the right or below, `avail` the room under the notice.
Focus ArrangeFocus(AppState& state, const attnlab::Trace& trace, const AxisLabels& labels,
                   ImVec2 avail, bool right);
/// The better of the two: the one whose large head prints its numbers, then names its tokens, at
/// the larger cell.
Focus ChooseFocus(AppState& state, const attnlab::Trace& trace, const AxisLabels& labels,
                  ImVec2 avail);

/// The least height of the contents, `width` pixels wide, at which the focus layout prints the
/// selected head's numbers with its token labels whole or shortened, keys turned if need be (not
/// cut to their cells' width) in cells of `min_cell` pixels or more, `limit` if even that height
/// does not.
float FocusHeightForNumbers(AppState& state, const attnlab::Trace& trace, const AxisLabels& labels,
                            float width, float limit, float min_cell);
/// The cell in which values of `decimals` decimals are written at the mono font's own size.
float FullSizeValueCell(int decimals);

}  // namespace attnlab::app::panel_heads
