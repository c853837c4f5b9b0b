#include "shell/screenshot_hooks.h"

#include <chrono>
#include <cstdio>
#include <thread>

#include "panels/app_state.h"
#include "session/model_lab.h"
#include "session/session.h"
#include "widgets/heatmap.h"

namespace attnlab::app {

bool WaitForTrace(AppState& state) {
  state.document.GetTrace();  // a small trace computes now; a large one is requested
  // A model folder given opens, runs and predicts off the UI thread, and the head finder or the lens
  // in front computes on the TaskRunner: the picture shows it done.
  const bool tasks = state.session && state.session->Tasks().Busy();
  if (!state.document.TraceStale() && !(state.models && state.models->Busy()) && !tasks) return false;
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // leave the cores to the worker
  return true;
}

RunStyle ScreenshotHooks::Style() const {
  RunStyle style;
  style.scripted = true;
  style.read_file_first = true;
  return style;
}

void ScreenshotHooks::Start(AppState& state, PanelRegistry& /*panels*/) {
  state.heatmaps->work.SetUnlimited(true);  // every texture and scan done in the captured frame
}

void ScreenshotHooks::BeforeFrame(AppState& state, int frame) {
  if (frame == last_frame_ - 1 && frame < kMaxTraceWaitFrames && WaitForTrace(state)) ++last_frame_;
  capture_now_ = frame == last_frame_ - 1;
}

void ScreenshotHooks::AfterFrame(AppState& /*state*/, int /*frame*/) {
  if (!capture_now_) return;
  std::string error;
  written_ = WritePng(path_, capture_, &error);
  if (!written_) std::fprintf(stderr, "attnlab: %s\n", error.c_str());
}

}  // namespace attnlab::app
