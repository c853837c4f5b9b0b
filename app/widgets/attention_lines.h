#pragma once
/// Attention as lines (BertViz's head view), live: the query tokens in a left column, the key
/// tokens in a right one, a line from query i to key j per head shown, its opacity the head's
/// weight A[i, j] (lines under attnlab::exporter::kMinLineWeight are left out, as the exported
/// figure leaves them out), its colour the head's. A click on a head's swatch hides or shows its
/// lines; hovering a token keeps only its lines and writes their weights beside the other column.
/// The Lines panel and the presenter's `lines` step draw it; the weights are the trace's.
#include <string>
#include <vector>

#include "attnlab/scenario.h"
#include "attnlab/trace.h"
#include "widgets/control_marks.h"

namespace attnlab::app {

/// The most tokens a column draws live (every frame walks n_x by n_z weights a head); past it the
/// view says so and names the CLI's figure.
constexpr int kMaxLinesTokens = 256;

/// What the view keeps between frames: the heads hidden by a click on their swatch.
struct AttentionLinesState {
  std::vector<char> hidden;  ///< per head; heads past its end are shown
  bool Shown(int head) const { return head >= int(hidden.size()) || !hidden[std::size_t(head)]; }
  void Toggle(int head);
};

/// A token's row: its label's height and room around it, so that 60 labels never overlap.
float AttentionLinesRowHeight();

/// Draws the lines of `heads` (0-based; every head of the trace when empty) of trace `t` computed
/// from scenario `s`, in the space left in the current window (a scrolled column when the tokens
/// need more height); `marks` hears where the swatches ("lines head h"), the token labels
/// ("lines query i", "lines key j") and the lines' area ("lines area") were drawn.
void DrawAttentionLines(AttentionLinesState& state, const attnlab::Scenario& s, const attnlab::Trace& t,
                        const std::vector<int>& heads, const ControlMarks& marks);

}  // namespace attnlab::app
