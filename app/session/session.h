#pragma once
/// Session: the document's file story as one state machine that the window only asks and
/// answers. Every way of replacing or writing the document goes through it: the start-up file,
/// File > Open, Open recent, a dropped file, presets, Save, Save As, quitting (menu, Ctrl+Q, the
/// window's close button), crash recovery, and the test instruments. Anything that would drop
/// unsaved work asks "Save changes?" first; large files are read and written on the TaskRunner;
/// the autosave protects unsaved work; recent files are kept. GUI-free: the window draws
/// Pending() and calls Answer(), tests drive it without a display.
///
/// The window's part, once per frame: Poll() at the start of the frame (before any panel holds
/// the trace), then draw Pending() if any.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/scenario.h"
#include "session/autosave.h"
#include "session/document.h"
#include "session/presets.h"
#include "session/recent_files.h"
#include "session/task_runner.h"

namespace attnlab::app {

/// What the session asks the user. One at a time (Pending()); answered with Answer().
struct Question {
  enum class Kind {
    Error,           ///< `title`, `message`; answered Ok
    SaveChanges,     ///< "Save changes before `action`?": Save, DontSave or Cancel
    ChooseSavePath,  ///< where to save (`suggested_name`): SaveAs(path), or Answer(Cancel)
    Recover,         ///< `recovery` can be restored: Restore or Discard
    Busy,            ///< a file is being read or written and an action waits for it: Cancel
  };
  enum class BusyKind { Opening, Restoring, Saving };

  Kind kind = Kind::Error;
  /// A new number for every question asked: the window opens a modal once per serial.
  std::uint64_t serial = 0;
  std::string title;           ///< Error: "Cannot open x.json"; Busy: "Opening x.json…"
  std::string message;         ///< Error: what went wrong
  std::string action;          ///< SaveChanges: "opening x.json", "quitting", ...
  bool save_asks_path = false; ///< SaveChanges: Save will ask where (presets, untitled work)
  std::string suggested_name;  ///< ChooseSavePath
  const RecoveredWork* recovery = nullptr;  ///< Recover
  BusyKind busy = BusyKind::Opening;        ///< Busy
};

enum class Choice { Ok, Save, DontSave, Cancel, Restore, Discard };

class Session {
 public:
  /// `document` and `presets` must outlive the session. `config_dir` keeps recent.json,
  /// `state_dir` the autosave; empty strings disable either (scripted runs leave the user's
  /// files alone).
  void Init(Document& document, const std::vector<PresetInfo>& presets,
            const std::string& config_dir, const std::string& state_dir);

  // ---- what the window (and the instruments) ask for ------------------------------------
  /// The start-up: the built-in example, then `file` if any. `in_background`: a large file is
  /// read off the UI thread (Busy meanwhile); else it is read now. `interactive`: a failure is
  /// also asked as an Error and the document goes into the recent files (scripted runs: neither).
  /// A failure prints "attnlab: MESSAGE" and "attnlab: showing the built-in example instead".
  /// Returns false when `file` could not be opened now.
  bool OpenAtStart(const std::string& file, bool in_background, bool interactive);
  /// Runs once the start-up file read in the background is open (e.g. select --head).
  void SetOnStartFileOpened(std::function<void()> callback) { on_start_file_opened_ = std::move(callback); }
  /// Reads `path` (a large one in the background) and opens it, asking first when there are
  /// unsaved changes; a file that cannot be opened is refused (Error) before anything is asked.
  void RequestOpen(const std::string& path);
  void RequestOpenPreset(const PresetInfo& preset);
  /// Opens a scenario made in memory (a model's layer) as a new document without a file, asking
  /// first when there are unsaved changes; `on_opened` runs once it is open.
  void RequestOpenNew(LoadedScenario loaded, std::function<void()> on_opened = {});
  void RequestQuit();
  bool QuitConfirmed() const { return quit_confirmed_; }
  /// Ctrl+S: saves in place, or asks where (ChooseSavePath) for presets and untitled work.
  void Save();
  /// File > Save As: asks where (ChooseSavePath).
  void RequestSaveAs();
  /// Writes the document to `path` (a large one in the background); answers ChooseSavePath.
  void SaveAs(const std::string& path);
  /// Looks for work left by a crashed run; `answer` "yes"/"no" decides without asking (tests,
  /// on this thread), empty searches in the background and asks (Recover) if it finds some.
  void OfferRecovery(const std::string& answer);

  // ---- the window's loop -----------------------------------------------------------------
  /// Once per frame, at its start: adopts a finished trace, delivers finished background tasks
  /// (a file read or written, an autosave written, the recovery search) and autosaves.
  void Poll();
  /// The question to show now, or null. Valid until the next call into the session.
  const Question* Pending() const;
  /// Answers Pending(); ignored when nothing is asked.
  void Answer(Choice choice);
  /// Asks `title`/`message` as an Error (the status bar keeps it, stderr too).
  void ShowError(const std::string& title, const std::string& message);

  /// A large file is being read or written in the background.
  bool Busy() const { return load_.has_value() || save_.has_value(); }
  /// An action waits for a file being read or written (Pending() is Busy): the document cannot
  /// change meanwhile.
  bool Blocking() const;

  // ---- what it keeps -----------------------------------------------------------------------
  RecentFiles& Recent() { return recent_; }
  const Autosave& GetAutosave() const { return autosave_; }
  TaskRunner& Tasks() { return tasks_; }
  /// A clean exit: the work was saved or deliberately discarded, the autosave is not needed.
  void Close() { autosave_.Remove(); }

  /// Where files were read and written (tests: a large one never on the UI thread).
  struct IoStats {
    int sync_loads = 0, async_loads = 0, sync_saves = 0, async_saves = 0;
  };
  const IoStats& GetIoStats() const { return io_stats_; }
  /// Errors asked so far, and the last one (tests: --check-open).
  int ErrorCount() const { return error_count_; }
  const std::string& ErrorTitle() const { return error_title_; }
  const std::string& ErrorMessage() const { return error_message_; }

 private:
  using Action = std::function<void()>;
  struct LoadJob {
    TaskRunner::TaskId task = 0;
    std::string path;
    bool at_start = false;
    std::shared_ptr<const RecoveredWork> restoring;  ///< the autosave applied on the file once read
  };
  struct SaveJob {
    TaskRunner::TaskId task = 0;
    std::string path;
    std::uint64_t version = 0;  ///< the version being written: only it is marked saved
    bool run_pending = false;   ///< the guard's action runs once it is saved
  };

  // session.cpp: the guard, opening, saving
  void Guard(const std::string& what, Action action);
  void AskSave(const std::string& what, Action action);
  void AskSavePath(bool continue_after);
  void RunPending();
  void ResumePending();
  void DropPending();
  void AnswerGuard(Choice choice);
  void AnswerBusy();
  LoadedScenario AsDocument(const std::string& path, attnlab::Scenario scenario) const;
  void OpenLoaded(LoadedScenario loaded);
  void StartLoad(const std::string& path, bool at_start,
                 std::shared_ptr<const RecoveredWork> restoring);
  void FinishLoad(LoadJob job, TaskResult<attnlab::Scenario> result);
  void LoadFailed(const std::string& path, const std::string& message, bool at_start);
  void SaveTo(const std::string& path, bool run_pending);
  void FinishSave(TaskResult<bool> result);
  void Saved(const std::string& path, std::uint64_t version, bool run_pending);
  void SaveFailed(const std::string& message, bool run_pending);
  std::uint64_t NextSerial() { return ++serial_; }

  // session_recovery.cpp
  struct RecoverySearch {
    std::optional<RecoveredWork> work;
    std::string error;
  };
  void FinishRecoverySearch(RecoverySearch found);
  void AnswerRecovery(Choice choice);
  std::string RestoreOrigin(const RecoveredWork& work) const;
  void ApplyRestore(const RecoveredWork& work, const std::string& origin,
                    std::optional<attnlab::Scenario> from_file);
  void RestoreNow(const RecoveredWork& work);
  void StartRestore(const RecoveredWork& work);
  void FinishRestore(const RecoveredWork& work, const std::string& origin,
                     std::optional<attnlab::Scenario> from_file);

  Document* doc_ = nullptr;
  const std::vector<PresetInfo>* presets_ = nullptr;
  TaskRunner tasks_;  ///< before the autosave: its writes run here until it is destroyed
  RecentFiles recent_;
  Autosave autosave_;
  std::function<void()> on_start_file_opened_;

  std::uint64_t serial_ = 0;
  std::optional<Question> error_;     ///< asked on top of anything else
  std::optional<Question> guard_;     ///< SaveChanges or ChooseSavePath
  std::optional<Question> recover_;   ///< Recover
  mutable Question busy_;             ///< built by Pending()
  Action pending_;                    ///< the guard's action, run once the user decides
  std::string pending_what_;
  bool continue_after_save_ = false;  ///< a Save As asked by "Save changes?" runs pending_ after
  bool quit_confirmed_ = false;

  std::optional<LoadJob> load_;  ///< one read at a time: a newer one supersedes it
  std::optional<SaveJob> save_;  ///< one write at a time
  /// Actions asked for while a save runs (quit, open, save again): run, in order, once it ends.
  std::vector<Action> after_save_;
  std::optional<RecoveredWork> recovery_;  ///< offered by recover_
  TaskRunner::TaskId recovery_search_ = 0;

  IoStats io_stats_;
  int error_count_ = 0;
  std::string error_title_, error_message_;
};

}  // namespace attnlab::app
