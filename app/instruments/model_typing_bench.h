#pragma once
/// `--bench-model-typing TEXT [--type-every-ms MS]` (issue 38, point 5): with a model folder open
/// (and --model-text's run done, if given), TEXT is typed into the Model view one character every MS
/// milliseconds, as the text field hands each keystroke to ModelLab, and each keystroke is timed
/// until a frame draws the grid of a run that includes it (keystroke to grid). Prints JSON, never a
/// verdict (bench/window_bench.sh, docs/PERFORMANCE.md). Frames are drawn on demand
/// (RunStyle::frames_on_demand), as in the interactive window: a thread wakes the window for each
/// key, and for the two frames after it that a key event gets there.
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "instruments/frame_bench.h"

namespace attnlab::app {

class AppState;

class ModelTypingBench {
 public:
  ModelTypingBench(std::string text, int every_ms) : text_(std::move(text)), every_ms_(every_ms) {}
  ~ModelTypingBench() { StopKeys(); }
  ModelTypingBench(const ModelTypingBench&) = delete;
  ModelTypingBench& operator=(const ModelTypingBench&) = delete;
  /// Ends the thread that wakes the window for each key: before GLFW goes away.
  void StopKeys();

  void StartFrame() { frame_start_ = BenchClock::now(); }
  /// Before drawing: types the next character when it is due (once the model and `ready` are).
  void BeforeFrame(AppState& state, bool ready);
  /// After the frame was rendered: the keystrokes whose run it drew are timed.
  void AfterFrame(const AppState& state);
  bool Done() const { return typed_ == text_.size() && shown_ == text_.size(); }
  /// `{"keystrokes", "every_ms", "tokens", "runs_drawn", "latency_p50_ms", "latency_p95_ms",
  /// "latency_max_ms", "behind_max", "settle_ms"}` on stdout: `behind_max` the most keystrokes a
  /// drawn run lagged the text typed by then, `settle_ms` the last keystroke to its grid.
  void Print(const AppState& state) const;

 private:
  std::string text_;
  int every_ms_;
  std::string prefix_;  ///< the model's text when typing began (--model-text)
  bool started_ = false;
  std::size_t typed_ = 0, shown_ = 0;  ///< characters of text_ typed, and drawn in a grid
  std::vector<BenchClock::time_point> typed_at_;
  BenchClock::time_point frame_start_{}, last_key_{};
  std::uint64_t run_serial_ = 0;
  int runs_drawn_ = 0;
  std::size_t behind_max_ = 0;
  std::vector<double> latency_ms_;
  std::atomic<bool> stop_keys_{false};
  std::thread keys_;  ///< wakes the window when a key is due, and for a key's frames after it
};

}  // namespace attnlab::app
