#pragma once
/// Attention as lines (BertViz's "head view"): the query tokens in a left column, the key tokens
/// in a right one, a line from query i to key j for each head, its opacity the head's weight
/// A[i, j] and its colour the head's (HeadColor). The figure for `attnlab-cli export --what lines`
/// and the lesson's `lines` step; the window draws the same lines live (app/widgets/attention_lines).
#include <string>
#include <vector>

#include "attnlab/colormap.h"
#include "attnlab/export/canvas.h"
#include "attnlab/export/figure.h"
#include "attnlab/matrix.h"
#include "attnlab/scenario.h"
#include "attnlab/trace.h"

namespace attnlab::exporter {

/// A line whose weight is below this is not drawn (an opacity of 1/200 is invisible): a
/// 60-token layer with 12 heads would otherwise write 43,200 lines.
constexpr double kMinLineWeight = 0.005;

struct LinesFigure {
  std::string title, subtitle;
  std::vector<std::string> queries, keys;  ///< left and right column, top to bottom
  struct Head {
    int index = 0;   ///< 0-based, as the scenario numbers it
    Rgb8 color;
    Matrix weights;  ///< n_x by n_z, queries along the rows whatever the scenario's layout
  };
  std::vector<Head> heads;
};

/// The lines of every head (`head` -1) or of head `head` (0-based), with the scenario's token
/// labels: its tokens on the left, its context tokens on the right for cross-attention. The
/// weights are the trace's, transposed from the columns layout.
LinesFigure lines_figure(const Scenario& s, const Trace& t, int head = -1);

/// Where everything goes, in figure units (1x pixels).
struct LinesLayout {
  int width = 0, height = 0;
  double label_px = 15;        ///< em size of the token labels
  int top = 0, row = 0;        ///< the first row's top and each token's row height
  int left_end = 0;            ///< the right edge of the query labels (they are right-aligned)
  int right_start = 0;         ///< the left edge of the key labels
  int line_x0 = 0, line_x1 = 0;  ///< where the lines start and end
  std::vector<TextItem> texts;
  std::vector<RectI> swatches;  ///< one per head, before its "head h" legend entry
  /// The vertical centre of query i's (or key j's) row.
  double row_y(int i) const { return top + (i + 0.5) * row; }
};
LinesLayout lines_layout(const LinesFigure& f);

/// The figure rasterised at `scale` (a fractional zoom too), lines anti-aliased.
Canvas render_lines(const LinesFigure& f, double scale, bool transparent = false);
/// The same as SVG: one `<line class="attention" data-head data-query data-key>` per line of at
/// least kMinLineWeight, its `stroke-opacity` the weight to 6 significant digits.
std::string lines_svg(const LinesFigure& f, bool transparent = false);

/// "lines" (every head) or "head2_lines" (head 2, 0-based, as file_stem names heads).
std::string lines_stem(int head);

}  // namespace attnlab::exporter
