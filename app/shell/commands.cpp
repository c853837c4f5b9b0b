#include "shell/commands.h"

#include <algorithm>

#include "panels/panels.h"

namespace attnlab::app {

void SetLectureMode(AppState& state, PanelRegistry& panels, bool on) {
  if (state.ui.lecture_mode == on) return;
  state.ui.lecture_mode = on;
  for (Panel& panel : panels.List()) {
    if (!panel.hide_in_lecture) continue;
    if (on) panel.open_before_lecture = panel.open;
    panel.open = on ? false : panel.open_before_lecture;
  }
}

void ToggleLectureMode(AppState& state, PanelRegistry& panels) {
  SetLectureMode(state, panels, !state.ui.lecture_mode);
}

}  // namespace attnlab::app
