#pragma once
/// `attnlab --screenshot OUT.png [--frames N]`: draws N frames back to back, then writes the last
/// one as PNG and ends the run. A trace still computing off the UI thread is waited for (bounded),
/// so the picture is a finished one.
#include <string>
#include <utility>

#include "shell/frame_hooks.h"
#include "shell/screenshot.h"

namespace attnlab::app {

/// Frames a screenshot waits at most for a trace still computing.
constexpr int kMaxTraceWaitFrames = 20000;

/// Asks for the document's trace (a small one computes now); true while a large one is still
/// computing, after leaving the cores to the worker for a moment: draw another frame first.
bool WaitForTrace(AppState& state);

class ScreenshotHooks : public FrameHooks {
 public:
  ScreenshotHooks(std::string path, int frames) : path_(std::move(path)), last_frame_(frames) {}
  RunStyle Style() const override;
  void Start(AppState& state, PanelRegistry& panels) override;
  void BeforeFrame(AppState& state, int frame) override;
  Capture* CaptureTarget(int /*frame*/) override { return capture_now_ ? &capture_ : nullptr; }
  void AfterFrame(AppState& state, int frame) override;
  bool Done(int frame) const override { return frame + 1 >= last_frame_; }
  int Finish(AppState& /*state*/) override { return written_ ? 0 : 1; }

 private:
  std::string path_;
  int last_frame_;
  bool capture_now_ = false, written_ = false;
  Capture capture_;
};

}  // namespace attnlab::app
