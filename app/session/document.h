#pragma once
/// Document: the scenario the user edits, as a sequence of immutable versions (ScenarioVersion)
/// with undo/redo, its resolved Model and the cached Trace. Every editor changes the Scenario
/// through ApplyEdit(), which validates the result and refuses a broken scenario. Committed
/// scenarios are immutable and shared: an edit copies the Scenario once, nothing else does.
/// GUI-free: the window draws it, tests drive it without a display.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "attnlab/scenario.h"
#include "attnlab/trace.h"
#include "session/presets.h"
#include "session/scenario_version.h"
#include "session/trace_worker.h"

namespace attnlab::app {

/// A refused edit: which control (`source`) and why, shown beside that control.
struct EditError {
  std::string source;
  std::string message;
};

class Document {
 public:
  /// Replaces the document (clears undo/redo, selects head 0 if out of range).
  void Open(LoadedScenario loaded);

  const attnlab::Scenario& GetScenario() const { return *current_.scenario; }
  /// The same Scenario, shared: it never changes (an edit makes a new one), so a background
  /// task (the autosave) may keep and read it.
  std::shared_ptr<const attnlab::Scenario> Snapshot() const { return current_.scenario; }
  /// Identifies the Scenario: a new, larger number on every change (edit, undo, redo, open); an
  /// edit the worker refuses brings back the version before it.
  std::uint64_t Version() const { return current_.version; }
  /// The trace of the current Scenario, recomputed only when Version() changed since last time.
  /// Large scenarios (ComputeOffThread) are computed by `trace_worker`: meanwhile this returns
  /// the previous trace if it has the same shapes (else an empty one) and TraceStale() is true.
  const attnlab::Trace& GetTrace();
  /// Adopts a trace the worker finished. Call at the start of a frame, while no panel holds a
  /// reference from GetTrace() (the trace's contents are swapped).
  void PollTrace();
  /// After GetTrace(): the trace shown belongs to an older Scenario (being recomputed), at least
  /// in part (its heads, outputs or both: HeadStale()).
  bool TraceStale() const { return trace_version_ != Version(); }
  /// Identifies the numbers shown (textures and caches key on it): the Version() the trace was
  /// computed from, or, while one head of a newer version is shown in it (SetHeadFirst), a
  /// number of its own.
  std::uint64_t TraceVersion() const {
    return ahead_.shown ? ahead_.computed_from.version | kHeadAheadStamp : trace_version_;
  }
  /// Large scenarios: head `head` (the selected one) is computed before the others and shown as
  /// soon as it is ready; the others stay stale until the whole trace is.
  void SetHeadFirst(int head) { head_first_ = head; }
  /// The Version() every head but one shown ahead, and the outputs, were computed from.
  std::uint64_t WholeTraceVersion() const { return trace_version_; }
  /// The Version() the numbers of head `head` in the shown trace were computed from.
  std::uint64_t HeadVersion(int head) const {
    return ahead_.shown && head == ahead_.index ? ahead_.computed_from.version : trace_version_;
  }
  /// Head `head`'s stages are older than the Scenario (dim them); the concatenation and the
  /// output follow TraceStale().
  bool HeadStale(int head) const { return HeadVersion(head) != Version(); }
  /// The Scenario and resolved Model the trace GetTrace() returns was computed from, for panels
  /// that explain its numbers (labels, mask and weights that agree with them, stale or not).
  /// Null when GetTrace() returns an empty trace. Never resolved again by a panel.
  const attnlab::Scenario* TraceScenario() const;
  const attnlab::Model* TraceModel() const;
  /// The same for the numbers of head `head` (a head shown ahead of its trace has its own).
  const attnlab::Scenario* TraceScenarioFor(int head) const;
  const attnlab::Model* TraceModelFor(int head) const;

  /// The one entry point for editors: applies `edit` to a copy, validates it with the core (the
  /// resolved Model is kept for the computation and the panels) and commits it (undoable) or
  /// refuses it, leaving the message in EditErrorFor(source). A large scenario (computed by
  /// `trace_worker`) is committed at once and validated by the worker, first thing: if it refuses
  /// it, PollTrace() restores the document as it was before the edit and sets EditErrorFor(source).
  /// `coalesce`: a continuing gesture (a drag) that extends the previous edit from the same
  /// source, so one drag is one undo step.
  bool ApplyEdit(const char* source, const std::function<void(attnlab::Scenario&)>& edit,
                 bool coalesce = false);
  /// The current version is an edit the worker has not validated yet (not to be saved).
  bool EditUnvalidated() const {
    return !unvalidated_.empty() && unvalidated_.back().version == Version();
  }
  bool CanUndo() const { return !undo_.empty(); }
  bool CanRedo() const { return !redo_.empty(); }
  int RedoSteps() const { return static_cast<int>(redo_.size()); }
  void Undo();
  void Redo();

  /// The refusal message for `source`, or nullptr. A refusal lasts until the next successful
  /// edit (of any control), undo, redo or open.
  const std::string* EditErrorFor(const char* source) const;
  const EditError& LastEditError() const { return edit_error_; }

  /// Unsaved changes; undoing back to the saved scenario is clean again.
  bool IsDirty() const { return Version() != saved_version_ && current_.scenario != saved_scenario_; }
  /// How many times Open() replaced the document: views drop what belonged to the one before.
  int OpenCount() const { return open_count_; }
  /// `version` was written to `path`: the document is saved if it is still the current one.
  void MarkSaved(const std::string& path, std::uint64_t version);
  int HeadCount() const { return GetScenario().head_count(); }
  /// How many times the trace was computed (tests check that idle frames compute nothing).
  /// Off-thread traces count when requested (at most one per version).
  int ComputeCount() const { return compute_count_; }
  /// Of those, computed on the UI thread (tests: never for a large scenario).
  int SyncComputeCount() const { return sync_compute_count_; }
  /// Models resolved on the UI thread: at teaching sizes, one per edit (its validation, reused
  /// by the computation) and one per other version computed (open, undo, redo). The worker
  /// resolves those of large scenarios (TraceWorker::Stats::resolves); the panels none.
  int UiResolveCount() const { return ui_resolve_count_; }

  /// Called whenever the current version changes (edit, undo, redo, open, a refused edit rolled
  /// back): the window keeps its selection within the new scenario's heads.
  void SetOnNewVersion(std::function<void()> on_new_version) {
    on_new_version_ = std::move(on_new_version);
  }

  // The document's identity.
  std::string path;         ///< where Save writes; empty: a copy in the user's home
  std::string name;         ///< shown in the title bar
  bool is_preset = false;   ///< presets are never overwritten
  std::string status;       ///< last message for the status bar (saved, load errors, ...)

  TraceWorker* trace_worker = nullptr; ///< owned by the app; null: every trace computed in place

 private:
  using ScenarioPtr = std::shared_ptr<const attnlab::Scenario>;
  /// An edit committed before the worker validated it, and the document as it was before.
  struct UnvalidatedEdit {
    std::uint64_t version = 0;  ///< the edit's
    std::string source;
    ScenarioVersion before;
    std::vector<ScenarioPtr> undo, redo;
    std::string last_commit_source;
  };
  bool ValidatesOffThread(const attnlab::Scenario& scenario) const;
  /// After the worker refused the current version: restores the document before that edit.
  bool RestoreBeforeRefusedEdit(const std::string& message);
  void Commit(ScenarioPtr next, std::shared_ptr<const attnlab::Model> model, bool keep_undo_point);
  /// Makes `scenario` the document's next version (`model`: its resolved Model, or null).
  void SetCurrent(ScenarioPtr scenario, std::shared_ptr<const attnlab::Model> model);
  void PushUndo(ScenarioPtr scenario);
  std::shared_ptr<const attnlab::Model> Resolve(ScenarioPtr scenario);
  void ComputeHere();
  const attnlab::Trace& RequestTrace();
  /// After a computation failed (a limit hit): back to the previous version, if any.
  bool RollBack();
  void ShowTrace(ScenarioVersion computed_from);
  bool ShowsTrace() const { return trace_version_ == Version() || trace_shape_ == shape_key_; }
  /// The head computed ahead, in or out of trace_ (its stages swapped with the trace's own).
  void PollHeadAhead();
  void TakeHeadAheadOut();
  void PutHeadAheadIn();
  void AdoptWorkerResult(TraceWorker::Result& result);

  ScenarioVersion current_{1, std::make_shared<const attnlab::Scenario>(), nullptr};
  std::uint64_t last_version_ = 1;  ///< the largest version given out
  std::vector<long> shape_key_;  ///< TraceShapeKey of the current Scenario
  std::uint64_t saved_version_ = 1;
  ScenarioPtr saved_scenario_;  ///< the scenario saved_version_ holds, when known
  int open_count_ = 0;
  attnlab::Trace trace_;
  std::uint64_t trace_version_ = 0;
  ScenarioVersion traced_;        ///< what trace_ was computed from
  std::vector<long> trace_shape_; ///< its TraceShapeKey
  std::vector<ScenarioPtr> undo_, redo_;
  std::vector<UnvalidatedEdit> unvalidated_;  ///< oldest first
  EditError edit_error_;
  std::string last_commit_source_;  ///< for coalescing a drag into one undo step
  int compute_count_ = 0;
  int sync_compute_count_ = 0;
  int ui_resolve_count_ = 0;
  std::uint64_t requested_version_ = 0;  ///< newest version sent to trace_worker
  attnlab::Trace empty_trace_;           ///< shown while a trace of a new shape computes
  int head_first_ = -1;                  ///< SetHeadFirst
  static constexpr std::uint64_t kHeadAheadStamp = std::uint64_t(1) << 63;
  /// A head of a newer version than trace_, shown in it while `shown` (then `data` holds the
  /// trace's own head, put back before the trace is computed into or handed to the worker).
  struct HeadAhead {
    int index = -1;  ///< -1: none
    ScenarioVersion computed_from;
    std::vector<long> shape;  ///< TraceShapeKey of its scenario
    attnlab::Trace data;  ///< one head (SwapHeadAhead)
    bool shown = false;
  } ahead_;
  std::function<void()> on_new_version_;
};

}  // namespace attnlab::app
