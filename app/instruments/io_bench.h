#pragma once
/// `--bench-open FILE` and `--bench-save`: open FILE as File > Open does, then save the document
/// in place as Ctrl+S does, each once the window is quiet, and measure the UI thread's CPU time
/// of every frame from the request until the document is swapped in (open) or written (save).
/// Prints one JSON line on exit, numbers only, never a verdict:
///   {"open":{"requested","opened","async","frames","frames_busy","ui_cpu_max_ms","wall_ms"},
///    "save":{"requested","saved","async","frames","frames_busy","ui_cpu_max_ms","wall_ms"},
///    "sync_loads","async_loads","sync_saves","async_saves"}
/// `frames_busy`: frames drawn while the file was still being read or written (off the UI thread).
#include <chrono>
#include <string>

namespace attnlab::app {

class AppState;
class Session;

class IoBench {
 public:
  IoBench(std::string open_path, bool save);
  /// At the start of a frame: makes the next request when due.
  /// At the start of the frame, before the session delivers a finished read or write.
  void StartFrame();
  void BeforeFrame(Session& session);
  /// After the frame was rendered.
  void AfterFrame(const AppState& state, const Session& session);
  /// Both steps are done and the window has settled (the new document's trace drawn).
  bool Done() const;
  void Print(const Session& session) const;

 private:
  enum class Step { Open, Save, Done };
  struct Measurement {
    bool requested = false, finished = false, ok = false, async = false;
    int frames = 0, frames_busy = 0;
    double ui_cpu_max_ms = 0, wall_ms = 0;
  };
  void Request(Session& session);
  void Measure(const AppState& state, const Session& session);
  Measurement& Current() { return step_ == Step::Open ? open_ : save_; }

  std::string open_path_;
  Step step_;
  bool save_wanted_;
  Measurement open_, save_;
  int frame_ = 0, quiet_frames_ = 0;
  int errors_before_ = 0, async_before_ = 0;
  double frame_cpu_start_ms_ = 0;
  std::chrono::steady_clock::time_point requested_at_, frame_start_;
};

}  // namespace attnlab::app
