#include "view/ui_scale.h"

#include <algorithm>
#include <cmath>

#include "view/ui_state.h"

namespace attnlab::app {

float FitLectureScale(float height) {
  const float lines_per_scale = 540.0f;  // the normal font shows ~36 lines on 540 px per 1x
  return std::clamp(std::round(height / lines_per_scale * 4.0f) / 4.0f, 1.25f, 2.5f);
}

namespace {
// Presenting is lecturing: the class reads the stage, so it gets lecture mode's sizes too.
bool LectureSizes(const UiState& ui) { return ui.lecture_mode || ui.presenting; }
}  // namespace

float UiScale(const UiState& ui, float height) {
  if (!LectureSizes(ui)) return ui.zoom;
  return ui.lecture_scale > 0 ? ui.lecture_scale : FitLectureScale(height);
}

float StepZoom(float current, int direction) {
  const float* begin = std::begin(kZoomSteps);
  const float* end = std::end(kZoomSteps);
  if (direction > 0) {
    const float* next = std::upper_bound(begin, end, current + 1e-3f);
    return next == end ? end[-1] : *next;
  }
  const float* next = std::lower_bound(begin, end, current - 1e-3f);
  return next == begin ? *begin : next[-1];
}

void Zoom(UiState& ui, float height, int direction) {
  float& target = LectureSizes(ui) ? ui.lecture_scale : ui.zoom;
  if (direction == 0)
    target = LectureSizes(ui) ? 0.0f : 1.0f;
  else
    target = StepZoom(UiScale(ui, height), direction);
}

}  // namespace attnlab::app
