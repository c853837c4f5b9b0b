#include "session/document.h"

#include <algorithm>
#include <exception>
#include <optional>
#include <utility>

#include "attnlab/attention.h"
#include "attnlab/model.h"
#include "session/trace_worker.h"

namespace attnlab::app {
namespace {

// Undo steps are whole scenarios, each shared with nothing once superseded: bounded by count and
// by memory (a 2048 x 512 x 8 document is 16 MB a step).
constexpr std::size_t kMaxHistory = 200;
constexpr std::size_t kMaxHistoryBytes = std::size_t(1) << 30;

// The numbers a Scenario holds (its strings are small).
std::size_t ScenarioBytes(const attnlab::Scenario& s) { return sizeof(double) * s.number_count(); }

template <typename T>
T PopBack(std::vector<T>& v) {
  T last = std::move(v.back());
  v.pop_back();
  return last;
}

}  // namespace

void Document::Open(LoadedScenario loaded) {
  ++open_count_;  // before SetCurrent: its callback sees a new document
  SetCurrent(std::make_shared<const attnlab::Scenario>(std::move(loaded.scenario)), nullptr);
  saved_version_ = Version();
  saved_scenario_ = current_.scenario;
  undo_.clear();
  redo_.clear();
  unvalidated_.clear();
  edit_error_ = {};
  last_commit_source_.clear();
  path = loaded.is_preset ? std::string() : loaded.path;
  name = loaded.name;
  is_preset = loaded.is_preset;
}

void Document::SetCurrent(ScenarioPtr scenario, std::shared_ptr<const attnlab::Model> model) {
  shape_key_ = TraceShapeKey(*scenario);
  current_ = {++last_version_, std::move(scenario), std::move(model)};
  if (on_new_version_) on_new_version_();
}

std::shared_ptr<const attnlab::Model> Document::Resolve(ScenarioPtr scenario) {
  ++ui_resolve_count_;
  return std::make_shared<const attnlab::Model>(attnlab::resolve(std::move(scenario)));
}

const attnlab::Trace& Document::GetTrace() {
  if (trace_version_ == Version()) return trace_;
  if (trace_worker && ComputeOffThread(GetScenario())) return RequestTrace();
  ComputeHere();
  return trace_;
}

const attnlab::Scenario* Document::TraceScenario() const {
  return ShowsTrace() ? traced_.scenario.get() : nullptr;
}

const attnlab::Model* Document::TraceModel() const {
  return ShowsTrace() ? traced_.model.get() : nullptr;
}

const attnlab::Scenario* Document::TraceScenarioFor(int head) const {
  return ahead_.shown && head == ahead_.index ? ahead_.computed_from.scenario.get() : TraceScenario();
}

const attnlab::Model* Document::TraceModelFor(int head) const {
  return ahead_.shown && head == ahead_.index ? ahead_.computed_from.model.get() : TraceModel();
}

void Document::ComputeHere() {
  TakeHeadAheadOut();  // the trace is one version again: compute_into keeps what it can
  ahead_.index = -1;
  ++compute_count_;
  ++sync_compute_count_;
  try {
    if (!current_.model) current_.model = Resolve(current_.scenario);  // undo, redo, open
    // Into the trace held: a same-shape edit reuses its memory (no zeroing of fresh pages).
    attnlab::compute_into(*current_.model, GetScenario().layout, trace_);
    ShowTrace(current_);
  } catch (const std::exception& e) {
    // ApplyEdit validated the scenario, so this is a limit hit during compute: roll back.
    status = std::string("could not compute: ") + e.what();
    if (RollBack()) return ComputeHere();
    ShowTrace({Version(), nullptr, nullptr});
  }
}

// A large trace: asked of the worker once per version, with the Model when ApplyEdit resolved
// it. Meanwhile the previous trace is shown (marked stale) if its shapes still fit the
// Scenario's labels and indices, else nothing.
const attnlab::Trace& Document::RequestTrace() {
  if (requested_version_ != Version()) {
    ++compute_count_;
    requested_version_ = Version();
    trace_worker->Request(current_, head_first_);
  }
  return ShowsTrace() ? trace_ : empty_trace_;
}

void Document::PollTrace() {
  if (!trace_worker) return;
  PollHeadAhead();
  if (trace_version_ == Version() || requested_version_ != Version()) return;
  TakeHeadAheadOut();  // the worker gets back a trace of one version
  TraceWorker::Result result;
  if (trace_worker->TakeResult(Version(), trace_, &result)) AdoptWorkerResult(result);
  PutHeadAheadIn();
}

void Document::PollHeadAhead() {
  const std::uint64_t newest = std::max(trace_version_, ahead_.index >= 0 ? ahead_.computed_from.version : 0);
  TakeHeadAheadOut();  // its buffer goes back to the worker
  TraceWorker::Head head;
  if (trace_worker->TakeHead(newest, ahead_.data, &head)) {
    ahead_.index = head.index;
    ahead_.shape = TraceShapeKey(*head.computed_from.scenario);
    ahead_.computed_from = std::move(head.computed_from);
  }
  PutHeadAheadIn();
}

void Document::TakeHeadAheadOut() {
  if (!ahead_.shown) return;
  SwapHeadAhead(trace_, ahead_.index, ahead_.data);
  ahead_.shown = false;
}

// Shown only in a trace of the same shapes and an older version, in place of that head's stages.
void Document::PutHeadAheadIn() {
  if (ahead_.shown || ahead_.index < 0) return;
  if (ahead_.computed_from.version <= trace_version_) {
    ahead_.index = -1;  // the whole trace caught up; the buffer stays for the next one
    return;
  }
  if (trace_shape_.empty() || ahead_.shape != trace_shape_ || std::size_t(ahead_.index) >= trace_.heads.size()) return;
  SwapHeadAhead(trace_, ahead_.index, ahead_.data);
  ahead_.shown = true;
}

void Document::AdoptWorkerResult(TraceWorker::Result& result) {
  if (!result.error.empty()) {
    if (RestoreBeforeRefusedEdit(result.error)) return;
    // As in ComputeHere(): a limit hit during compute rolls the edit back.
    status = "could not compute: " + result.error;
    if (RollBack()) return;
    ShowTrace({Version(), nullptr, nullptr});
    return;
  }
  if (!current_.model) current_.model = result.computed_from.model;  // resolved by the worker
  ShowTrace(result.computed_from);
}

bool Document::RollBack() {
  if (undo_.empty()) return false;
  SetCurrent(PopBack(undo_), nullptr);
  return true;
}

bool Document::RestoreBeforeRefusedEdit(const std::string& message) {
  if (!EditUnvalidated()) return false;
  UnvalidatedEdit edit = PopBack(unvalidated_);
  // The very version before the edit: its trace, if still shown, is current again.
  shape_key_ = TraceShapeKey(*edit.before.scenario);
  current_ = std::move(edit.before);
  undo_ = std::move(edit.undo);
  redo_ = std::move(edit.redo);
  last_commit_source_ = std::move(edit.last_commit_source);
  edit_error_ = {edit.source, message};
  if (on_new_version_) on_new_version_();
  return true;
}

// `computed_from` without a Model: the computation failed and the trace is emptied.
void Document::ShowTrace(ScenarioVersion computed_from) {
  TakeHeadAheadOut();
  // Computed: neither it nor an older version can be refused any more.
  const std::uint64_t valid = computed_from.model ? computed_from.version : 0;
  while (!unvalidated_.empty() && unvalidated_.front().version <= valid)
    unvalidated_.erase(unvalidated_.begin());
  if (!computed_from.model) trace_ = attnlab::Trace{};
  trace_version_ = computed_from.version;
  trace_shape_ = computed_from.model ? shape_key_ : std::vector<long>{};
  traced_ = std::move(computed_from);
}

bool Document::ApplyEdit(const char* source,
                         const std::function<void(attnlab::Scenario&)>& edit, bool coalesce) {
  // The edit's one copy: the committed Scenario stays as it is for undo, worker and autosave.
  auto next = std::make_shared<attnlab::Scenario>(GetScenario());
  std::shared_ptr<const attnlab::Model> model;
  try {
    edit(*next);
    // Validates; the computation and the panels use this Model. The worker validates a large
    // scenario instead (resolve() reads about 16 MB at 2048 x 512 x 8 and, in the columns layout,
    // writes as much again).
    if (!ValidatesOffThread(*next)) model = Resolve(next);
  } catch (const std::exception& e) {
    edit_error_ = {source, e.what()};
    return false;
  }
  edit_error_ = {};  // a refusal is news until the next edit: then it would be stale
  if (!model)  // the version Commit() gives it, and the document to restore if it is refused
    unvalidated_.push_back({last_version_ + 1, source, current_, undo_, redo_, last_commit_source_});
  const bool keep_undo_point = coalesce && last_commit_source_ == source && !undo_.empty();
  Commit(std::move(next), std::move(model), keep_undo_point);
  last_commit_source_ = source;
  return true;
}

bool Document::ValidatesOffThread(const attnlab::Scenario& scenario) const {
  return trace_worker && ComputeOffThread(scenario);
}

void Document::Commit(ScenarioPtr next, std::shared_ptr<const attnlab::Model> model,
                      bool keep_undo_point) {
  if (!keep_undo_point) PushUndo(current_.scenario);
  redo_.clear();
  SetCurrent(std::move(next), std::move(model));
}

void Document::PushUndo(ScenarioPtr scenario) {
  undo_.push_back(std::move(scenario));
  std::size_t bytes = 0;
  for (const ScenarioPtr& s : undo_) bytes += ScenarioBytes(*s);
  while (undo_.size() > kMaxHistory || (undo_.size() > 1 && bytes > kMaxHistoryBytes)) {
    bytes -= ScenarioBytes(*undo_.front());
    undo_.erase(undo_.begin());
  }
}

void Document::Undo() {
  if (undo_.empty()) return;
  unvalidated_.clear();  // the user moved on: a failure now is a computation's (RollBack)
  redo_.push_back(current_.scenario);
  SetCurrent(PopBack(undo_), nullptr);
  edit_error_ = {};
  last_commit_source_.clear();
}

void Document::Redo() {
  if (redo_.empty()) return;
  unvalidated_.clear();
  undo_.push_back(current_.scenario);
  SetCurrent(PopBack(redo_), nullptr);
  edit_error_ = {};
  last_commit_source_.clear();
}

const std::string* Document::EditErrorFor(const char* source) const {
  if (edit_error_.message.empty() || edit_error_.source != source) return nullptr;
  return &edit_error_.message;
}

void Document::MarkSaved(const std::string& saved_path, std::uint64_t version) {
  path = saved_path;
  saved_version_ = version;  // an edit made while it was written stays unsaved
  saved_scenario_ = version == Version() ? current_.scenario : nullptr;
  is_preset = false;
}

}  // namespace attnlab::app
