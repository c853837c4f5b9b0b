#pragma once
/// What the window shows, as opposed to what the document holds: the selected head, colormap,
/// hover, zoom, lecture mode. Never saved in a scenario file; never recomputes a trace.
#include <string>

#include "attnlab/colormap.h"
#include "attnlab/number_format.h"
#include "view/hovered_cell.h"

namespace attnlab::app {

/// The heatmap cell under the mouse. The heatmaps report it while they draw; every panel reads
/// the cell of the last whole frame, so what a panel shows does not depend on whether it draws
/// before or after the heatmap under the mouse.
class HoverTrack {
 public:
  /// The shell, before anything draws: this frame's reports start empty.
  void NextFrame() {
    shown_ = reported_;
    reported_ = {};
  }
  /// A heatmap, while it draws: the mouse is over this cell.
  void Report(const HoveredCell& cell) { reported_ = cell; }
  /// The cell under the mouse in the last whole frame (StageId::none: none).
  const HoveredCell& Shown() const { return shown_; }

 private:
  HoveredCell reported_, shown_;
};

struct UiState {
  int selected_head = 0;
  Colormap colormap = Colormap::Viridis;  ///< sequential map; signed data uses DivergingFor()
  HoverTrack hover;
  HoveredCell pinned;                     ///< clicked cell the Inspector keeps showing
  /// The number whose gradient the Sensitivity panel shows ("output[0][0]"), and whether the
  /// Inputs editors are coloured by that gradient instead of by their values.
  std::string sensitivity_target = "output[0][0]";
  bool sensitivity_on_inputs = false;
  float zoom = 1.0f;             ///< the UI scale out of lecture mode (view/ui_scale.h)
  int decimals = attnlab::kDefaultDecimals;  ///< precision of shown numbers (View > Precision),
                                             ///< kMinDecimals to kMaxDecimals
  bool lecture_mode = false;
  float lecture_scale = 0.0f;    ///< 0: fit the window's height (FitLectureScale)
  bool presenting = false;       ///< presenter mode: the lesson's steps instead of the Pipeline
  int presenter_step = 0;        ///< 0-based; the presenter clamps it to the lesson
  bool presenter_revealed = false;  ///< the current step's prediction was revealed (R)
  /// The step drawn last hides its result until revealed (the presenter sets it as it draws): a
  /// clicker's Right reveals it before it steps on.
  bool presenter_hiding = false;
  /// The Model grid's layer last pointed at (hovered or clicked), 0-based: the one the panels
  /// that show another document offer to open (panels/document_banner.h).
  int model_layer = 0;
  /// A panel plays an animation (the Tiles or Decode steps): set by that panel every frame it
  /// plays, cleared by the frame loop after reading it, so the loop draws the next frame.
  bool animating = false;
};

}  // namespace attnlab::app
