#include "instruments/input_log.h"

#include <imgui.h>
#include <imgui_internal.h>  // the open popups

#include <cmath>
#include <cstdio>
#include <fstream>
#include <utility>

#include "panels/app_state.h"

namespace attnlab::app {
namespace {

std::string KeysHeld(const ImGuiIO& io) {
  int held = 0;
  std::string codes;
  for (int key = 0; key < IM_ARRAYSIZE(io.KeysDown); ++key) {
    if (!io.KeysDown[key]) continue;
    ++held;
    codes += (codes.empty() ? "" : ",") + std::to_string(key);
  }
  return "held=" + std::to_string(held) + " keys=" + (codes.empty() ? "-" : codes);
}

std::string ButtonsAndMouse(const ImGuiIO& io) {
  int buttons = 0;
  for (int b = 0; b < 3; ++b)
    if (io.MouseDown[b]) buttons |= 1 << b;
  std::string pos = "none";
  if (ImGui::IsMousePosValid(&io.MousePos))
    pos = std::to_string(std::lround(io.MousePos.x)) + "," + std::to_string(std::lround(io.MousePos.y));
  return "buttons=" + std::to_string(buttons) + " pos=" + pos;
}

// A text field holds the keyboard at the end of the frame: typed characters go to it.
bool TextFieldActive() {
  const ImGuiContext& g = *ImGui::GetCurrentContext();
  return g.ActiveId != 0 && g.ActiveId == g.InputTextState.ID;
}

// The topmost popup drawn: the one Enter and Escape answer.
std::string TopPopup() {
  const ImGuiContext& g = *ImGui::GetCurrentContext();
  for (int i = g.OpenPopupStack.Size - 1; i >= 0; --i)
    if (const ImGuiWindow* w = g.OpenPopupStack[i].Window) return w->Name;
  return "-";
}

}  // namespace

InputLog::InputLog(std::string path) : path_(std::move(path)) {
  // A test holds a key until a frame has seen it, then releases it: one press. On a loaded machine
  // the next frame can come after ImGui's 0.275 s repeat delay, which would repeat Right or
  // Ctrl+Z: a test's press never lasts 2 s of frames otherwise.
  ImGui::GetIO().KeyRepeatDelay = 2.0f;
}

void InputLog::Observe() {
  const ImGuiIO& io = ImGui::GetIO();
  seen_ = KeysHeld(io) + " " + ButtonsAndMouse(io);
  chars_ += io.InputQueueCharacters.Size;
  if (io.MouseClicked[0]) ++clicks_;
  if (io.MouseDoubleClicked[0]) ++double_clicks_;
  wheel_ += io.MouseWheel;
}

void InputLog::Write(int frame, const AppState& state) {
  if (state.ui.lecture_mode != lecture_) ++lecture_toggles_;
  lecture_ = state.ui.lecture_mode;
  char counts[240];
  std::snprintf(counts, sizeof counts,
                "chars=%ld clicks=%ld double_clicks=%ld wheel=%g text_input=%d lecture_toggles=%ld "
                "version=%llu redo=%d",
                chars_, clicks_, double_clicks_, wheel_, TextFieldActive() ? 1 : 0, lecture_toggles_,
                static_cast<unsigned long long>(state.document.Version()), state.document.RedoSteps());
  const std::string line =
      "frame=" + std::to_string(frame) + " " + seen_ + " " + counts + " popup=" + TopPopup() + "\n";
  // A rename, so a reader never sees half a line; no fsync (write_file_atomically's) every frame:
  // the reader is a test on this machine.
  const std::string temp = path_ + ".tmp";
  bool written = false;
  {
    std::ofstream out(temp);
    written = static_cast<bool>(out << line << std::flush);
  }  // closed before the rename
  if (!written || std::rename(temp.c_str(), path_.c_str()) != 0)
    std::fprintf(stderr, "attnlab: --input-log: cannot write %s\n", path_.c_str());
}

}  // namespace attnlab::app
