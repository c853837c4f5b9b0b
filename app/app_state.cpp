#include "app_state.h"

#include <algorithm>
#include <exception>

#include "attnlab/attention.h"
#include "attnlab/model.h"
#include "trace_worker.h"

namespace attnlab::app {
namespace {

// Snapshots are whole scenarios; teaching sizes make this cheap, and it bounds memory anyway.
constexpr std::size_t kMaxHistory = 200;

}  // namespace

const char* StageName(Stage stage) {
  switch (stage) {
    case Stage::None: return "none";
    case Stage::Q: return "Q";
    case Stage::K: return "K";
    case Stage::V: return "V";
    case Stage::Scores: return "scores";
    case Stage::Scaled: return "scaled";
    case Stage::Masked: return "masked";
    case Stage::Weights: return "weights";
    case Stage::HeadOutput: return "head_output";
    case Stage::Concat: return "concat";
    case Stage::Wo: return "W_o";
    case Stage::Output: return "output";
  }
  return "?";
}

void AppState::Open(const LoadedScenario& loaded) {
  scenario_ = loaded.scenario;
  ++version_;
  saved_version_ = version_;
  undo_.clear();
  redo_.clear();
  edit_error_ = {};
  last_commit_source_.clear();
  document_path = loaded.is_preset ? std::string() : loaded.path;
  document_name = loaded.name;
  is_preset = loaded.is_preset;
  ClampSelection();
}

const attnlab::Trace& AppState::GetTrace() {
  if (trace_version_ == version_) return trace_;
  if (trace_worker && ComputeOffThread(scenario_)) return RequestTrace();
  try {
    ++compute_count_;
    ++sync_compute_count_;
    // Into the trace held: a same-shape edit reuses its memory (no zeroing of fresh pages).
    attnlab::compute_into(attnlab::resolve(scenario_), scenario_.layout, trace_);
    trace_shape_ = TraceShapeKey(scenario_);
  } catch (const std::exception& e) {
    // ApplyEdit validated the scenario, so this is a limit hit during compute: roll back.
    status = std::string("could not compute: ") + e.what();
    if (!undo_.empty()) {
      scenario_ = std::move(undo_.back());
      undo_.pop_back();
      ++version_;
      return GetTrace();
    }
    trace_ = attnlab::Trace{};
    trace_shape_.clear();
  }
  trace_version_ = version_;
  return trace_;
}

// A large trace: asked of the worker once per version. Meanwhile the previous trace is shown
// (marked stale) if its shapes still fit the Scenario's labels and indices, else nothing.
const attnlab::Trace& AppState::RequestTrace() {
  if (requested_version_ != version_) {
    ++compute_count_;
    requested_version_ = version_;
    trace_worker->Request(std::make_shared<const attnlab::Scenario>(scenario_), version_);
  }
  return TraceShapeKey(scenario_) == trace_shape_ ? trace_ : empty_trace_;
}

void AppState::PollTrace() {
  if (!trace_worker || trace_version_ == version_ || requested_version_ != version_) return;
  TraceWorker::Result result;
  if (!trace_worker->TakeResult(version_, trace_, &result)) return;
  if (!result.error.empty()) {
    // As in GetTrace(): a limit hit during compute rolls the edit back.
    status = "could not compute: " + result.error;
    if (!undo_.empty()) {
      scenario_ = std::move(undo_.back());
      undo_.pop_back();
      ++version_;
      return;
    }
    trace_ = attnlab::Trace{};
    trace_shape_.clear();
  } else {
    trace_shape_ = TraceShapeKey(*result.scenario);
  }
  trace_version_ = version_;
}

bool AppState::ApplyEdit(const char* source,
                         const std::function<void(attnlab::Scenario&)>& edit, bool coalesce) {
  attnlab::Scenario next = scenario_;
  try {
    edit(next);
    attnlab::validate(next);
  } catch (const std::exception& e) {
    edit_error_ = {source, e.what()};
    return false;
  }
  if (edit_error_.source == source) edit_error_ = {};
  const bool keep_undo_point = coalesce && last_commit_source_ == source && !undo_.empty();
  Commit(std::move(next), keep_undo_point);
  last_commit_source_ = source;
  return true;
}

void AppState::Commit(attnlab::Scenario next, bool keep_undo_point) {
  if (!keep_undo_point) {
    undo_.push_back(std::move(scenario_));
    if (undo_.size() > kMaxHistory) undo_.erase(undo_.begin());
  }
  redo_.clear();
  scenario_ = std::move(next);
  ++version_;
  ClampSelection();
}

void AppState::Undo() {
  if (undo_.empty()) return;
  redo_.push_back(std::move(scenario_));
  scenario_ = std::move(undo_.back());
  undo_.pop_back();
  ++version_;
  edit_error_ = {};
  last_commit_source_.clear();
  ClampSelection();
}

void AppState::Redo() {
  if (redo_.empty()) return;
  undo_.push_back(std::move(scenario_));
  scenario_ = std::move(redo_.back());
  redo_.pop_back();
  ++version_;
  edit_error_ = {};
  last_commit_source_.clear();
  ClampSelection();
}

const std::string* AppState::EditErrorFor(const char* source) const {
  if (edit_error_.message.empty() || edit_error_.source != source) return nullptr;
  return &edit_error_.message;
}

void AppState::MarkSaved(const std::string& path) {
  document_path = path;
  saved_version_ = version_;
  is_preset = false;
}

void AppState::ClampSelection() {
  ui.selected_head = std::clamp(ui.selected_head, 0, std::max(0, HeadCount() - 1));
}

}  // namespace attnlab::app
