#pragma once
/// A timeline of numbered steps, shared by the Tiles and Decode panels: previous, Play / Pause,
/// next, and a slider; the Left and Right keys step while the mouse is over the panel or it has
/// the focus (never while a text field takes the keys). Playing advances one step every
/// `seconds` and stops at the last step; Play at the last step starts again from the first.
#include <string>

#include "widgets/control_marks.h"

namespace attnlab::app {

/// What the timeline shows: steps first..last, the slider's text and the names its controls are
/// marked by for window tests (`marks` followed by "previous", "play", "next" and "slider").
struct TimelineSpec {
  const char* id = "timeline";
  int first = 0, last = 0;
  std::string format = "%d";  ///< the printf format of the step, drawn beside the slider
  std::string marks;
  double seconds = 0.8;
  bool keys = true;            ///< false while presenting: there the keys step the lesson
  float room_after = 0;        ///< width kept free right of the slider (the panel's own controls)
};

/// The step and the playing state a panel keeps from frame to frame.
class Timeline {
 public:
  /// Draws the controls on one line; returns true while playing (the panel asks for frames).
  bool Draw(const TimelineSpec& spec, const ControlMarks& marks);
  int Step() const { return step_; }
  void SetStep(int step) { step_ = step; }
  bool Playing() const { return playing_; }

 private:
  void Go(int to, const TimelineSpec& spec);
  void Keys(const TimelineSpec& spec);
  void Advance(const TimelineSpec& spec);

  int step_ = 0;
  bool playing_ = false;
  double next_at_ = 0;
};

}  // namespace attnlab::app
