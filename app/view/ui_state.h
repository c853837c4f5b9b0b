#pragma once
/// What the window shows, as opposed to what the document holds: the selected head, colormap,
/// hover, zoom, lecture mode. Never saved in a scenario file; never recomputes a trace.
#include <map>
#include <string>

#include "attnlab/colormap.h"
#include "attnlab/number_format.h"
#include "view/hovered_cell.h"

namespace attnlab::app {

struct UiState {
  int selected_head = 0;
  Colormap colormap = Colormap::Viridis;  ///< sequential map; signed data uses DivergingFor()
  HoveredCell hovered;                    ///< cleared at the start of every frame
  HoveredCell hovered_last_frame;         ///< for panels drawn before the heatmaps (formula strip)
  HoveredCell pinned;                     ///< clicked cell the Inspector keeps showing
  std::string inputs_tab;                 ///< an Inputs tab ("W_q", ...) to bring to the front once
  std::string sweep_request;              ///< a number to sweep ("scale", "W_q[0][1]"): the Sweep panel takes it
  /// The number whose gradient the Sensitivity panel shows ("output[0][0]"), and whether the
  /// Inputs editors are coloured by that gradient instead of by their values.
  std::string sensitivity_target = "output[0][0]";
  bool sensitivity_on_inputs = false;
  bool guide_from_top = false;            ///< the Help panel scrolls back to its guide once (F1)
  float zoom = 1.0f;             ///< the UI scale out of lecture mode (view/ui_scale.h)
  int decimals = attnlab::kDefaultDecimals;  ///< precision of shown numbers (View > Precision),
                                             ///< kMinDecimals to kMaxDecimals
  bool lecture_mode = false;
  /// A side group given its whole column (a double-click on one of its tabs): the column's other
  /// panels fold to their tab bars until a click on one of them, or the same double-click again.
  std::string tall_group;
  float lecture_scale = 0.0f;    ///< 0: fit the window's height (FitLectureScale)
  bool presenting = false;       ///< presenter mode: the lesson's steps instead of the Pipeline
  int presenter_step = 0;        ///< 0-based; the presenter clamps it to the lesson
  bool presenter_revealed = false;  ///< the current step's prediction was revealed (R)
  /// Panel group -> the panel whose tab is in front (panels.cpp). Set it (ShowPanel) to bring a
  /// tab to the front; a click on a tab updates it.
  std::map<std::string, std::string> front_tab;
};

}  // namespace attnlab::app
