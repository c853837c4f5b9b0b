#include "shell/commands.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>

#include "shell/dialogs.h"
#include "panels/panels.h"

namespace attnlab::app {

void SetLectureMode(AppState& state, bool on) {
  if (state.ui.lecture_mode == on) return;
  state.ui.lecture_mode = on;
  state.ui.reset_layout = true;  // the menu bar height and the columns change with the font
  for (Panel& panel : Panels()) {
    if (std::string(panel.name) != "Help") continue;
    if (on) state.ui.help_open_before_lecture = panel.open;
    panel.open = on ? false : state.ui.help_open_before_lecture;
  }
  for (Panel& panel : Panels()) {
    if (!panel.hide_in_lecture) continue;
    if (on) panel.open_before_lecture = panel.open;
    panel.open = on ? false : panel.open_before_lecture;
  }
}

void ToggleLectureMode(AppState& state) { SetLectureMode(state, !state.ui.lecture_mode); }

void SelectHead(AppState& state, int head) {
  if (head >= 0 && head < state.document.HeadCount()) state.ui.selected_head = head;
}

void HandleShortcuts(AppState& state) {
  const ImGuiIO& io = ImGui::GetIO();
  const bool ctrl = io.KeyCtrl;
  // Text fields keep their own Ctrl+Z and digits.
  const bool typing = io.WantTextInput;
  if (DocumentDialogs* dialogs = Dialogs(state)) dialogs->HandleShortcuts(state);  // Ctrl+O/S, F12
  if (ctrl && ImGui::IsKeyPressed(GLFW_KEY_Q, false)) state.ui.quit_requested = true;
  if (ctrl && ImGui::IsKeyPressed(GLFW_KEY_L, false)) ToggleLectureMode(state);
  if (ImGui::IsKeyPressed(GLFW_KEY_F11, false)) ToggleLectureMode(state);
  if (ImGui::IsKeyPressed(GLFW_KEY_F1, false)) ShowPanel(state, "Help");
  // While "Opening..." or "Saving..." is up the document cannot change: no undo either.
  if (typing || (state.dialogs && state.dialogs->Blocking())) return;
  if (ctrl && ImGui::IsKeyPressed(GLFW_KEY_Z)) {
    if (io.KeyShift)
      state.document.Redo();
    else
      state.document.Undo();
  }
  if (ctrl && ImGui::IsKeyPressed(GLFW_KEY_Y)) state.document.Redo();
  if (!ctrl) {
    for (int k = 0; k < 9; ++k)
      if (ImGui::IsKeyPressed(GLFW_KEY_1 + k, false)) SelectHead(state, k);
    const int h = state.ui.selected_head;
    if (ImGui::IsKeyPressed(GLFW_KEY_RIGHT_BRACKET)) SelectHead(state, std::min(h + 1, state.document.HeadCount() - 1));
    if (ImGui::IsKeyPressed(GLFW_KEY_LEFT_BRACKET)) SelectHead(state, std::max(h - 1, 0));
  }
}

}  // namespace attnlab::app
