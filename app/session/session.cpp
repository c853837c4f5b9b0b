#include "session/session.h"

#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <utility>

#include "attnlab/scenario_io.h"
#include "attnlab/text_fit.h"
#include "session/document_io.h"

namespace attnlab::app {
namespace {

namespace fs = std::filesystem;


std::string FileName(const std::string& path) { return fs::path(path).filename().string(); }

std::string WithJson(std::string name) {
  if (name.empty()) name = "scenario";
  if (name.size() < 5 || name.compare(name.size() - 5, 5, ".json") != 0) name += ".json";
  return name;
}

}  // namespace

void Session::Init(Document& document, const std::vector<PresetInfo>& presets,
                   const std::string& config_dir, const std::string& state_dir) {
  doc_ = &document;
  presets_ = &presets;
  recent_.Load(config_dir.empty() ? std::string() : (fs::path(config_dir) / "recent.json").string());
  autosave_.Init(state_dir, tasks_);
}

// ---- the window's loop ----------------------------------------------------------------------

// The trace worker keeps its own thread: it cancels a running computation between tasks of a few
// ms and swaps a double-buffered Trace, which a generic runner would have to copy. It is polled
// here all the same, so finished work of either kind arrives at one point of the frame.
void Session::Poll() {
  doc_->PollTrace();
  tasks_.Poll();
  autosave_.Tick(*doc_);
}

bool Session::Blocking() const {
  return load_.has_value() || (save_ && (save_->run_pending || !after_save_.empty()));
}

const Question* Session::Pending() const {
  if (error_) return &*error_;
  if (guard_) return &*guard_;
  if (recover_) return &*recover_;
  if (!Blocking()) return nullptr;
  busy_ = Question{};
  busy_.kind = Question::Kind::Busy;
  if (load_) {
    busy_.busy = load_->restoring ? Question::BusyKind::Restoring : Question::BusyKind::Opening;
    busy_.title = (load_->restoring ? "Restoring " : "Opening ") + FileName(load_->path) + kEllipsis;
  } else {
    busy_.busy = Question::BusyKind::Saving;
    busy_.title = "Saving " + FileName(save_->path) + kEllipsis;
  }
  return &busy_;
}

void Session::Answer(Choice choice) {
  const Question* question = Pending();
  if (!question) return;
  switch (question->kind) {
    case Question::Kind::Error: error_.reset(); break;
    case Question::Kind::SaveChanges:
    case Question::Kind::ChooseSavePath: AnswerGuard(choice); break;
    case Question::Kind::Recover: AnswerRecovery(choice); break;
    case Question::Kind::Busy:
      if (choice == Choice::Cancel) AnswerBusy();
      break;
  }
}

void Session::ShowError(const std::string& title, const std::string& message) {
  error_title_ = title;
  error_message_ = message;
  ++error_count_;
  error_ = Question{};
  error_->kind = Question::Kind::Error;
  error_->serial = NextSerial();
  error_->title = title;
  error_->message = message;
  doc_->status = title + ": " + message;
  std::fprintf(stderr, "attnlab: %s: %s\n", title.c_str(), message.c_str());
}

// ---- the guard ------------------------------------------------------------------------------

void Session::Guard(const std::string& what, Action action) {
  if (save_) {  // asked again once the save ends: it decides whether the document is saved
    after_save_.push_back([this, what, action] { Guard(what, action); });
    return;
  }
  if (!doc_->IsDirty()) {
    action();
    return;
  }
  AskSave(what, std::move(action));
}

void Session::AskSave(const std::string& what, Action action) {
  pending_ = std::move(action);
  pending_what_ = what;
  guard_ = Question{};
  guard_->kind = Question::Kind::SaveChanges;
  guard_->serial = NextSerial();
  guard_->action = what;
  guard_->save_asks_path = doc_->path.empty() || doc_->is_preset;
}

void Session::AskSavePath(bool continue_after) {
  continue_after_save_ = continue_after;
  guard_ = Question{};
  guard_->kind = Question::Kind::ChooseSavePath;
  guard_->serial = NextSerial();
  guard_->suggested_name = doc_->is_preset ? "attnlab-" + WithJson(doc_->name) : WithJson(doc_->name);
}

void Session::AnswerGuard(Choice choice) {
  const bool asking_path = guard_->kind == Question::Kind::ChooseSavePath;
  if (choice == Choice::Cancel) {
    guard_.reset();
    DropPending();
  } else if (asking_path) {
    return;  // answered by SaveAs(path)
  } else if (choice == Choice::Save) {
    guard_.reset();
    if (doc_->path.empty() || doc_->is_preset)
      AskSavePath(true);  // the pending action runs once Save As succeeds
    else
      SaveTo(doc_->path, true);
  } else if (choice == Choice::DontSave) {
    guard_.reset();
    RunPending();
  }
}

void Session::RunPending() {
  Action action = std::move(pending_);
  DropPending();
  if (action) action();
}

// The guard's pending action, asked about again (the document may have changed meanwhile).
void Session::ResumePending() {
  Action action = std::move(pending_);
  DropPending();
  if (action) Guard(pending_what_, std::move(action));
}

void Session::DropPending() {
  pending_ = nullptr;
  continue_after_save_ = false;
}

void Session::AnswerBusy() {
  if (load_) {
    doc_->status = (load_->restoring ? "did not restore the work on " : "did not open ") + load_->path;
    tasks_.Cancel(load_->task);  // whatever it reads is discarded
    load_.reset();
    return;
  }
  after_save_.clear();
  if (save_) save_->run_pending = false;
  DropPending();
}

void Session::RequestQuit() {
  Guard("quitting", [this] { quit_confirmed_ = true; });
}

// ---- opening --------------------------------------------------------------------------------

bool Session::OpenAtStart(const std::string& file, bool in_background, bool interactive) {
  doc_->Open(BuiltInExample(*presets_));
  bool opened = true;
  if (!file.empty() && in_background) {
    StartLoad(file, true, nullptr);
  } else if (!file.empty()) {
    try {
      doc_->Open(AsDocument(file, LoadAndValidate(file)));
      doc_->status = "opened " + file;
    } catch (const std::exception& e) {
      doc_->status = e.what();
      std::fprintf(stderr, "attnlab: %s\n", e.what());
      opened = false;
    }
  }
  if (!opened) std::fprintf(stderr, "attnlab: showing the built-in example instead\n");
  if (interactive) {
    if (!doc_->path.empty()) recent_.Add(doc_->path);
    if (!opened) ShowError("Cannot open " + file, doc_->status);
  }
  return opened;
}

LoadedScenario Session::AsDocument(const std::string& path, attnlab::Scenario scenario) const {
  LoadedScenario loaded{std::move(scenario), path, FileName(path), false};
  // A preset opened by its path is still a preset: Save must never write into the library.
  std::error_code ec;
  for (const PresetInfo& p : *presets_)
    if (fs::equivalent(p.path, path, ec)) {
      loaded.is_preset = true;
      loaded.name = p.stem;
    }
  return loaded;
}

void Session::OpenLoaded(LoadedScenario loaded) {
  const std::string path = loaded.path;
  doc_->Open(std::move(loaded));
  doc_->status = "opened " + path;
  recent_.Add(path);
}

void Session::RequestOpen(const std::string& path) {
  if (LoadsOffThread(path)) {
    StartLoad(path, false, nullptr);
    return;
  }
  ++io_stats_.sync_loads;
  // Read and validate first: a bad file is refused before anything asks about the current one.
  std::shared_ptr<LoadedScenario> loaded;
  try {
    loaded = std::make_shared<LoadedScenario>(AsDocument(path, LoadAndValidate(path)));
  } catch (const std::exception& e) {
    ShowError("Cannot open " + FileName(path), e.what());
    return;
  }
  Guard("opening " + FileName(path), [this, loaded] { OpenLoaded(std::move(*loaded)); });
}

void Session::RequestOpenPreset(const PresetInfo& preset) {
  Guard("opening the preset " + preset.stem, [this, preset] {
    try {
      doc_->Open({LoadAndValidate(preset.path), preset.path, preset.stem, true});
      doc_->status = "preset " + preset.stem;
    } catch (const std::exception& e) {
      doc_->status = preset.stem + ": " + e.what();
    }
  });
}

void Session::RequestOpenNew(LoadedScenario loaded, std::function<void()> on_opened) {
  loaded.path.clear();
  loaded.is_preset = false;
  auto shared = std::make_shared<LoadedScenario>(std::move(loaded));
  Guard("opening " + shared->name, [this, shared, on_opened] {
    const std::string name = shared->name;
    doc_->Open(std::move(*shared));
    doc_->status = "opened " + name + " (not saved yet: Save as writes it as a scenario file)";
    if (on_opened) on_opened();
  });
}

void Session::StartLoad(const std::string& path, bool at_start,
                        std::shared_ptr<const RecoveredWork> restoring) {
  if (load_) tasks_.Cancel(load_->task);  // superseded: whatever it reads is discarded
  LoadJob job{0, path, at_start, std::move(restoring)};
  job.task = tasks_.Start<attnlab::Scenario>(
      "load", [path] { return LoadAndValidate(path); },
      [this, job](TaskResult<attnlab::Scenario> result) { FinishLoad(job, std::move(result)); });
  load_ = std::move(job);
  ++io_stats_.async_loads;
  doc_->status = "opening " + path + kEllipsis;
}

// Once the file is read: as RequestOpen's synchronous path goes on from LoadAndValidate.
void Session::FinishLoad(LoadJob job, TaskResult<attnlab::Scenario> result) {
  load_.reset();
  std::optional<attnlab::Scenario> scenario;
  try {
    scenario = result.Take();
  } catch (const std::exception& e) {
    // A restore goes on without its file: the autosave becomes the base.
    if (job.restoring) return FinishRestore(*job.restoring, job.path, std::nullopt);
    return LoadFailed(job.path, e.what(), job.at_start);
  }
  if (job.restoring) return FinishRestore(*job.restoring, job.path, std::move(scenario));
  // Shared, not copied: the guard may hold the action until "Save changes?" is answered.
  auto loaded = std::make_shared<LoadedScenario>(AsDocument(job.path, std::move(*scenario)));
  const bool at_start = job.at_start;
  Guard("opening " + FileName(job.path), [this, loaded, at_start] {
    OpenLoaded(std::move(*loaded));
    if (at_start && on_start_file_opened_) on_start_file_opened_();
  });
}

// The messages of the synchronous paths: the start-up's or File > Open's.
void Session::LoadFailed(const std::string& path, const std::string& message, bool at_start) {
  if (!at_start) {
    ShowError("Cannot open " + FileName(path), message);
    return;
  }
  std::fprintf(stderr, "attnlab: %s\nattnlab: showing the built-in example instead\n",
               message.c_str());
  ShowError("Cannot open " + path, message);
}

// ---- saving ---------------------------------------------------------------------------------

void Session::Save() {
  if (doc_->path.empty() || doc_->is_preset)
    AskSavePath(false);  // presets are read-only, untitled work has no file yet: ask where
  else
    SaveTo(doc_->path, false);
}

void Session::RequestSaveAs() { AskSavePath(false); }

void Session::SaveAs(const std::string& path) {
  const bool run_pending = continue_after_save_;
  continue_after_save_ = false;
  if (guard_ && guard_->kind == Question::Kind::ChooseSavePath) guard_.reset();
  SaveTo(path, run_pending);
}

void Session::SaveTo(const std::string& path, bool run_pending) {
  if (save_) {  // one write at a time: this one follows
    after_save_.push_back([this, path, run_pending] { SaveTo(path, run_pending); });
    return;
  }
  if (SavesOffThread(doc_->GetScenario())) {
    ++io_stats_.async_saves;
    // The version is immutable and shared: the writer serialises it, the UI copies nothing.
    SaveJob job{0, path, doc_->Version(), run_pending};
    job.task = tasks_.Start<bool>(
        "save",
        [path, scenario = doc_->Snapshot()] {
          attnlab::write_file_atomically(path, attnlab::scenario_to_text(*scenario));
          return true;
        },
        [this](TaskResult<bool> result) { FinishSave(std::move(result)); });
    save_ = std::move(job);
    doc_->status = "saving " + path + kEllipsis;
    return;
  }
  ++io_stats_.sync_saves;
  try {
    attnlab::save_scenario(doc_->GetScenario(), path);  // temp file + fsync + rename
  } catch (const std::exception& e) {
    SaveFailed(e.what(), run_pending);
    return;
  }
  Saved(path, doc_->Version(), run_pending);
}

void Session::FinishSave(TaskResult<bool> result) {
  const SaveJob job = std::move(*save_);
  save_.reset();
  try {
    result.Take();
    Saved(job.path, job.version, job.run_pending);
  } catch (const std::exception& e) {
    SaveFailed(e.what(), job.run_pending);
  }
  std::vector<Action> after = std::move(after_save_);
  after_save_.clear();
  for (Action& action : after) action();
}

void Session::Saved(const std::string& path, std::uint64_t version, bool run_pending) {
  doc_->MarkSaved(path, version);
  doc_->name = FileName(path);
  doc_->status = "saved " + path;
  recent_.Add(path);
  if (!doc_->IsDirty()) autosave_.Remove();  // else it keeps protecting the edits made meanwhile
  if (run_pending) ResumePending();
}

void Session::SaveFailed(const std::string& message, bool run_pending) {
  ShowError("Not saved", message);
  if (run_pending) DropPending();  // the work is still unsaved: quitting or opening must not go on
}

}  // namespace attnlab::app
