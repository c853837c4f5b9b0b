#pragma once
/// TraceWorker: computes large traces on one background thread so that the window never freezes
/// (up to N = 2048 the UI thread never waits for a computation).
///
/// The UI thread posts versions of the document (shared, never copied) with Request() and
/// collects finished traces with TakeResult(); neither waits for a computation. A newer request
/// replaces a pending one and cancels a running one (compute_into's cancel flag, polled between
/// tasks of a few ms), so a superseded trace is never shown and barely delays the next.
/// Double-buffered: the worker computes into its own Trace and TakeResult() swaps it with the
/// UI's, whose memory the next computation then reuses (compute_into: no page zeroing for a
/// same-shape edit).
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "attnlab/scenario.h"
#include "attnlab/trace.h"
#include "session/scenario_version.h"

namespace attnlab::app {

/// True when computing `scenario` could take more than a few milliseconds (well past 256 tokens,
/// 256 wide, 8 heads): such traces are computed off the UI thread. Teaching sizes stay
/// synchronous so that an edit shows in the same frame.
bool ComputeOffThread(const attnlab::Scenario& scenario);

/// Everything that decides the shapes of a trace's matrices (layout, X and Z, head count, the
/// weights' shapes, W_o). Equal keys: a trace of one scenario can be drawn with the other's labels
/// and indices (values stale, never out of range).
std::vector<long> TraceShapeKey(const attnlab::Scenario& scenario);

class TraceWorker {
 public:
  /// `on_result` runs on the worker thread after a trace is ready (e.g. wake the event loop).
  explicit TraceWorker(std::function<void()> on_result = {});
  ~TraceWorker();  ///< cancels a running computation, then joins
  TraceWorker(const TraceWorker&) = delete;
  TraceWorker& operator=(const TraceWorker&) = delete;

  /// Asks for the trace of `input` (a null model is resolved here, which validates it); replaces
  /// a pending request, cancels a running one and drops a finished trace of another version.
  void Request(ScenarioVersion input);

  struct Result {
    ScenarioVersion computed_from;  ///< with its Model, resolved here if it came without
    std::string error;  ///< non-empty: the computation failed and `trace` was left alone
  };
  /// If the trace of `version` is ready, swaps it into `trace` (whose old contents become the
  /// worker's next buffer) and returns true; a finished trace of any other version is dropped.
  /// Never waits for a computation.
  bool TakeResult(std::uint64_t version, attnlab::Trace& trace, Result* result);
  /// A request is pending, running or finished but not yet taken.
  bool Busy() const;

  struct Stats {
    int requests = 0;    ///< Request() calls
    int started = 0;     ///< computations started
    int superseded = 0;  ///< requests replaced before they started
    int cancelled = 0;   ///< computations stopped by a newer request
    int discarded = 0;   ///< computations finished after a newer request: never shown
    int delivered = 0;   ///< traces handed to the UI
    int resolves = 0;    ///< Models resolved here (requests that came without one)
  };
  Stats GetStats() const;

 private:
  void Run();
  /// Resolves (if needed) and computes `job` into back_; false when cancelled.
  bool Compute(Result& job);

  std::function<void()> on_result_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  ScenarioVersion pending_;           ///< newest request not yet started (scenario null: none)
  std::uint64_t latest_version_ = 0;  ///< newest version requested
  bool running_ = false;
  std::atomic<bool> cancel_{false};   ///< set while running_: a newer request or the destructor
  // The back buffer: written by the worker only while !back_ready_, by the UI only while set.
  attnlab::Trace back_;
  bool back_ready_ = false;
  Result back_result_;
  Stats stats_;
  bool stop_ = false;
  std::thread thread_;  ///< last: starts after every other member exists
};

}  // namespace attnlab::app
