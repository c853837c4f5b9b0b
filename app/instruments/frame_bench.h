#pragma once
/// Window instruments of the performance work (docs/PERFORMANCE.md): `--bench-edit N` (edit-to-pixel latency
/// and the longest UI-thread frame while traces compute), `--bench-startup` (launch to the first
/// drawn frame) and `--trace-stats` (how traces were computed). They print JSON, never a verdict.
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace attnlab::app {

class AppState;

using BenchClock = std::chrono::steady_clock;

/// A duration in milliseconds.
double Ms(BenchClock::duration d);
/// The `p` quantile (0.5: median, 1: maximum) of `v`, 0 when empty.
double Percentile(std::vector<double> v, double p);

/// Milliseconds since the process started (main()); the first call, early in main, fixes zero.
double MillisecondsSinceLaunch();

/// The calling thread's CPU time, in ms: a long frame with little of it was starved, not busy.
double ThreadCpuMs();
/// Sleeps out the rest of a 60 Hz frame begun at `frame_start`. An interactive window is vsynced
/// and leaves the rest of the time to the worker threads; a scripted bench is not, so it paces
/// itself the same way.
void PaceFrame(BenchClock::time_point frame_start);

/// `--bench-edit N --edit-every K`: waits for the document's first trace, then applies a value edit
/// (the score scale, alternating) through ApplyEdit every K frames, N times, and times each edit
/// until the frame that draws its trace has been rendered. An edit overtaken by the next one before
/// its trace was drawn counts as superseded. Separately, the selected head: each edit is timed
/// until a frame draws that head at its version or a newer one (during a drag, how long an edit
/// takes to show in the selected head's heatmaps). Ends once the last edit is drawn.
class EditBench {
 public:
  /// `what`: "scale" (0.1, 0.1005, ...: the projections are kept), "x" (X[0][0] = 0.5, 0.51,
  /// ...: X's first row of Q, K and V and every stage after them are recomputed) or "mask" (edit i
  /// flips the mask cell of query i, key 0: that query's weights and outputs are recomputed).
  EditBench(int edits, int every, std::string what) : edits_(edits), every_(every), what_(std::move(what)) {}

  /// Before drawing: applies the next edit when due. Returns false if the edit was refused.
  /// At the start of the frame: its clocks start.
  void StartFrame();
  bool BeforeFrame(AppState& state);
  /// After the frame was rendered and swapped.
  void AfterFrame(const AppState& state);
  bool Done() const { return applied_ == edits_ && pending_.empty() && head_pending_.empty(); }
  /// `{"edits", "shown", "superseded", "latency_p50_ms", "latency_max_ms", "frames_to_show_max",
  /// "head_shown", "head_latency_p50_ms", "head_latency_max_ms", "frames", "frame_p50_ms", "frame_p95_ms", "frame_max_ms", "ui_cpu_p95_ms", "ui_cpu_max_ms",
  /// "ui_cpu_edit_max_ms", "ui_cpu_arrival_max_ms", "ui_cpu_other_max_ms", ...}` on stdout: the
  /// UI thread's CPU split by the frames that applied an edit, those that adopted a new trace
  /// (texture uploads) and the rest.
  void Print(const AppState& state) const;

 private:
  struct Pending {
    std::uint64_t version;
    BenchClock::time_point applied;
    int frame;
  };
  int edits_, every_;
  std::string what_;
  int applied_ = 0, frame_ = 0, next_edit_frame_ = -1;
  std::vector<Pending> pending_;
  std::vector<Pending> head_pending_;  ///< not yet drawn in the selected head; never superseded
  std::vector<double> head_latency_ms_;
  enum FrameKind { kEditFrame, kArrivalFrame, kOtherFrame, kFrameKinds };
  std::vector<double> latency_ms_, frame_ms_, ui_cpu_ms_;  // wall, and the UI thread's CPU
  double ui_cpu_max_ms_[kFrameKinds] = {};
  std::vector<int> frames_to_show_;
  int superseded_ = 0;
  BenchClock::time_point frame_start_;
  double frame_start_cpu_ms_ = 0;
  bool edit_this_frame_ = false;
  std::uint64_t trace_version_before_ = 0;  ///< at the end of the last frame
};

/// CPU time of the whole process (all threads) since construction, per frame.
class ProcessCpuTimer {
 public:
  ProcessCpuTimer();
  double PerFrameMs(int frames) const;

 private:
  double start_ms_;
};

/// `--bench-frames N`: the wall time of every frame (from the harness's FrameStart to the end of
/// the frame) and the CPU time of every thread (llvmpipe's too) per frame since Start.
class FrameTimes {
 public:
  void Start() { cpu_ = ProcessCpuTimer(); }  ///< after start-up: frames only
  void BeginFrame() { frame_start_ = BenchClock::now(); }
  void EndFrame();
  int Frames() const { return static_cast<int>(frame_ms_.size()); }
  /// `{"frames","p50_ms","p95_ms","max_ms","cpu_ms_per_frame"}` on stdout.
  void Print() const;

 private:
  ProcessCpuTimer cpu_;
  BenchClock::time_point frame_start_;
  std::vector<double> frame_ms_;
};

/// `--trace-stats`: one JSON line of AppState's and the worker's counters, and the control whose
/// last edit was refused ("edit_error", empty when none); tests parse it.
void PrintTraceStats(const AppState& state);

}  // namespace attnlab::app
