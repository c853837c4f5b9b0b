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
///
/// The selected head first: a request may name a head computed ahead of the others
/// (compute_into's FirstHead). A copy of it is handed over as soon as it is ready (TakeHead()),
/// while the rest computes; and such a computation is cancelled by a newer request only once its
/// head has been handed over, so that during a drag the selected head keeps changing.
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

/// Swaps head `index` of `trace` with the one head of `ahead`, and with it what a trace holds for
/// its version as a whole (scale, mask, positions, X + PE) so that this head's stages and
/// everything its panels derive from them agree; the other heads and the outputs stay as they
/// were (older: shown stale). Swapping again restores both. O(1).
void SwapHeadAhead(attnlab::Trace& trace, int index, attnlab::Trace& ahead);
/// Copies head `index` of `trace` and its version's parts into `ahead` (reusing its memory).
void CopyHeadAhead(const attnlab::Trace& trace, int index, attnlab::Trace& ahead);

class TraceWorker {
 public:
  /// `on_result` runs on the worker thread after a trace is ready (e.g. wake the event loop).
  explicit TraceWorker(std::function<void()> on_result = {});
  ~TraceWorker();  ///< cancels a running computation, then joins
  TraceWorker(const TraceWorker&) = delete;
  TraceWorker& operator=(const TraceWorker&) = delete;

  /// Asks for the trace of `input` (a null model is resolved here, which validates it); replaces
  /// a pending request, cancels a running one and drops a finished trace of another version.
  /// `first_head` (>= 0): computed and handed over (TakeHead) before the other heads.
  void Request(ScenarioVersion input, int first_head = -1);

  struct Result {
    ScenarioVersion computed_from;  ///< with its Model, resolved here if it came without
    std::string error;  ///< non-empty: the computation failed and `trace` was left alone
  };
  /// If the trace of `version` is ready, swaps it into `trace` (whose old contents become the
  /// worker's next buffer) and returns true; a finished trace of any other version is dropped.
  /// Never waits for a computation.
  bool TakeResult(std::uint64_t version, attnlab::Trace& trace, Result* result);
  /// One head computed ahead of the others, and the version (with its Model) it belongs to.
  struct Head {
    int index = -1;
    ScenarioVersion computed_from;
  };
  /// If a head computed ahead for a version newer than `shown` is ready, swaps it into `head`
  /// (whose old contents the worker reuses) and returns true. Never waits.
  /// `head` is a trace of one head: that head's stages and the version's own parts of a trace
  /// (SwapHeadAhead).
  bool TakeHead(std::uint64_t shown, attnlab::Trace& head, Head* which);
  /// Test hook (attnlab-harness --head-first hold): once a head ahead is handed over, the rest of
  /// its trace waits for a newer request (or the end), so a window test sees that head drawn
  /// while the other heads are still stale, whatever the timing.
  void HoldRestAfterHead(bool hold);
  /// A request is pending, running or finished but not yet taken.
  bool Busy() const;

  struct Stats {
    int requests = 0;    ///< Request() calls
    int started = 0;     ///< computations started
    int superseded = 0;  ///< requests replaced before they started
    int cancelled = 0;   ///< computations stopped by a newer request
    int discarded = 0;   ///< computations finished after a newer request: never shown
    int delivered = 0;   ///< traces handed to the UI
    int heads_ahead = 0; ///< heads handed over ahead of their trace (TakeHead)
    int resolves = 0;    ///< Models resolved here (requests that came without one)
  };
  Stats GetStats() const;

 private:
  void Run();
  /// Resolves (if needed) and computes `job` into back_; false when cancelled.
  bool Compute(Result& job, int first_head);
  /// On the worker's thread, when the first head of `job` is ready in back_: copies it out for
  /// TakeHead(), then stops the rest if a newer request waits.
  void HeadReady(const Result& job, int index);
  /// The computation has no head to hand over ahead (one head, or none so numbered).
  void NoHeadAhead();

  std::function<void()> on_result_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  ScenarioVersion pending_;           ///< newest request not yet started (scenario null: none)
  int pending_first_head_ = -1;
  std::uint64_t latest_version_ = 0;  ///< newest version requested
  bool running_ = false;
  bool head_ahead_done_ = true;       ///< the running computation has handed its head over (or has none)
  std::atomic<bool> cancel_{false};   ///< set while running_: a newer request or the destructor
  // The back buffer: written by the worker only while !back_ready_, by the UI only while set.
  attnlab::Trace back_;
  bool back_ready_ = false;
  Result back_result_;
  // The head ahead: written by the worker only while !ahead_ready_, swapped by the UI only while set.
  attnlab::Trace ahead_;
  Head ahead_head_;
  bool ahead_ready_ = false;
  Stats stats_;
  bool stop_ = false;
  bool hold_rest_ = false;  ///< HoldRestAfterHead
  std::thread thread_;  ///< last: starts after every other member exists
};

}  // namespace attnlab::app
