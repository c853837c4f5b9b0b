#include "instruments/io_bench.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "panels/app_state.h"
#include "session/session.h"
#include "instruments/frame_bench.h"
#include "widgets/heatmap.h"

namespace attnlab::app {
namespace {

// Modals wait for the first frames (dialogs.cpp, ReadyForModal); --test-edit runs at frame 2.
constexpr int kFirstFrame = 6;
// Quiet frames (no trace arriving, no heatmap work left, no file I/O) before a request, so that
// only the request's own cost is measured; and frames drawn after the last step.
constexpr int kQuietFrames = 3;

}  // namespace

IoBench::IoBench(std::string open_path, bool save)
    : open_path_(std::move(open_path)),
      step_(!open_path_.empty() ? Step::Open : save ? Step::Save : Step::Done),
      save_wanted_(save) {}

bool IoBench::Done() const { return step_ == Step::Done && quiet_frames_ >= kQuietFrames; }

void IoBench::StartFrame() {
  frame_cpu_start_ms_ = ThreadCpuMs();
  frame_start_ = std::chrono::steady_clock::now();
}

void IoBench::BeforeFrame(Session& session) {
  if (step_ != Step::Done && !Current().requested && frame_ >= kFirstFrame &&
      quiet_frames_ >= kQuietFrames)
    Request(session);
}

void IoBench::Request(Session& session) {
  const Session::IoStats& io = session.GetIoStats();
  errors_before_ = session.ErrorCount();
  async_before_ = step_ == Step::Open ? io.async_loads : io.async_saves;
  requested_at_ = std::chrono::steady_clock::now();
  Current().requested = true;
  if (step_ == Step::Open)
    session.RequestOpen(open_path_);  // File > Open's, Open recent's and drops' path
  else
    session.Save();  // Ctrl+S
}

void IoBench::AfterFrame(const AppState& state, const Session& session) {
  ++frame_;
  Measure(state, session);
  PaceFrame(frame_start_);  // as --bench-edit: the rest of the frame is the I/O thread's
}

void IoBench::Measure(const AppState& state, const Session& session) {
  if (step_ == Step::Done || !Current().requested) {
    // The document's trace arriving (textures, scans) is the trace worker's cost, not I/O's.
    const bool quiet = !state.document.TraceStale() && !(state.heatmaps && state.heatmaps->WorkDeferred()) &&
                       !session.Busy();
    quiet_frames_ = quiet ? quiet_frames_ + 1 : 0;
    return;
  }
  Measurement& m = Current();
  ++m.frames;
  m.ui_cpu_max_ms = std::max(m.ui_cpu_max_ms, ThreadCpuMs() - frame_cpu_start_ms_);
  if (session.Busy()) {
    ++m.frames_busy;
    return;
  }
  const Session::IoStats& io = session.GetIoStats();
  m.finished = true;
  m.async = (step_ == Step::Open ? io.async_loads : io.async_saves) > async_before_;
  m.ok = session.ErrorCount() == errors_before_ &&
         (step_ == Step::Open ? state.document.path == open_path_ : !state.document.IsDirty());
  m.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                        requested_at_).count();
  step_ = step_ == Step::Open && save_wanted_ ? Step::Save : Step::Done;
  quiet_frames_ = 0;
}

void IoBench::Print(const Session& session) const {
  auto json = [](const Measurement& m, const char* done) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "{\"requested\":%s,\"%s\":%s,\"async\":%s,\"frames\":%d,\"frames_busy\":%d,"
                  "\"ui_cpu_max_ms\":%.3f,\"wall_ms\":%.3f}",
                  m.requested ? "true" : "false", done, m.finished && m.ok ? "true" : "false",
                  m.async ? "true" : "false", m.frames, m.frames_busy, m.ui_cpu_max_ms, m.wall_ms);
    return std::string(buf);
  };
  const Session::IoStats& io = session.GetIoStats();
  std::printf("{\"open\":%s,\"save\":%s,\"sync_loads\":%d,\"async_loads\":%d,\"sync_saves\":%d,"
              "\"async_saves\":%d}\n",
              json(open_, "opened").c_str(), json(save_, "saved").c_str(), io.sync_loads,
              io.async_loads, io.sync_saves, io.async_saves);
}

}  // namespace attnlab::app
