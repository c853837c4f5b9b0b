#pragma once
/// F12 / Shift+F12: screenshots of the whole window. At 1x the frame is read back from the
/// framebuffer; at 2x the same UI is rendered again into an offscreen framebuffer twice the size,
/// with the font atlas rebuilt at twice the pixel size and every window's position and size
/// doubled, so text is rasterised at 2x (crisp) instead of being scaled up.
#include <string>
#include <vector>

#include <imgui.h>

#include "shell/screenshot.h"

struct ImGuiWindow;

namespace attnlab::app {

class AppState;
class Platform;

class WindowCapture {
 public:
  /// Starts a screenshot at `scale` (1, 2, 4) written to `path`.
  void Request(int scale, const std::string& path);
  bool Busy() const { return phase_ != Phase::Idle; }
  /// Before the frame: prepares the offscreen frames of a 2x capture.
  void BeforeFrame(AppState& state, Platform& platform);
  /// Where this frame's pixels go, or nullptr when this frame is not captured.
  Capture* Target();
  /// After the frame is rendered: writes the PNG when captured and restores the window.
  void AfterFrame(AppState& state, Platform& platform);

 private:
  enum class Phase { Idle, Window, Offscreen };
  struct SavedWindow {
    ImGuiWindow* window;
    ImVec2 pos, size, scroll;
  };
  void ScaleWindows(float factor, bool restore);
  void Finish(AppState& state, Platform& platform);

  Phase phase_ = Phase::Idle;
  int scale_ = 1;
  int frames_left_ = 0;  ///< offscreen frames still to render (the last one is captured)
  std::string path_;
  Capture capture_;
  std::vector<SavedWindow> saved_;  ///< the windows' places, between BeforeFrame and Finish
};

/// A new file name in the pictures folder: attnlab-2024-05-01-104207[@2x].png.
std::string NextScreenshotPath(int scale);

}  // namespace attnlab::app
