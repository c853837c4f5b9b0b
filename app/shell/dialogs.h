#pragma once
/// The document's dialogs and the file side of the window: Open / Save As / Export all (the
/// in-app file browser), recent files, the "Save changes?" guard in front of anything that would
/// drop unsaved work (opening a file or preset, dropping a file, quitting, the close button),
/// the "Cannot open" message, the offer to restore an autosave, and screenshot requests. Large
/// files are read and written off the UI thread (document_io.h).
#include <cstdint>
#include <functional>
#include <future>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "panels/app_state.h"
#include "session/autosave.h"
#include "session/document_io.h"
#include "widgets/file_browser.h"
#include "shell/heatmap_export.h"
#include "session/recent_files.h"

namespace attnlab::app {

class DocumentDialogs {
 public:
  /// `config_dir` keeps recent.json, `state_dir` the autosave; empty strings disable either
  /// (scripted runs leave the user's files alone).
  void Init(const std::string& config_dir, const std::string& state_dir);

  RecentFiles recent;
  Autosave autosave;
  ExportSettings export_settings;

  // Guarded actions: run now when the document is clean, else after "Save changes?".
  void RequestOpenFile(AppState& state, const std::string& path);
  void RequestOpenPreset(AppState& state, const PresetInfo& preset);
  void RequestQuit(AppState& state);
  bool QuitConfirmed() const { return quit_confirmed_; }
  /// The file given on the command line, when it is large: read off the UI thread, then opened as
  /// the start-up opens it (a failure keeps the built-in example and says so).
  /// `head`: the --head to select once it is open (the file's heads are not known before).
  void OpenInitialFile(AppState& state, const std::string& path, int head);

  /// A large file is being read or written off the UI thread.
  bool Busy() const { return load_.Running() || save_.has_value(); }
  /// The "Opening..." / "Saving..." modal is up: a file is being read, or an action (quit, open)
  /// waits for a save. Meanwhile the document cannot change.
  bool Blocking() const;
  /// Where files were read and written (tests: a large one never on the UI thread).
  struct IoStats {
    int sync_loads = 0, async_loads = 0, sync_saves = 0, async_saves = 0;
  };
  const IoStats& GetIoStats() const { return io_stats_; }

  void ShowOpen(AppState& state);
  void ShowSaveAs(AppState& state);
  /// Ctrl+S: saves in place, or asks where (presets and untitled documents).
  void Save(AppState& state);
  void ShowExportAll(AppState& state);
  /// Asks where to write one heatmap's figure (right-click > Export ...).
  void RequestFigureExport(AppState& state, FigureExport job);

  /// F12 (1) / Shift+F12 (2): a screenshot at that multiple of the framebuffer; the app takes
  /// the request (it needs the GL context) and reports back through ScreenshotWritten().
  void RequestScreenshot(int scale) { screenshot_request_ = scale; }
  int TakeScreenshotRequest() { return std::exchange(screenshot_request_, 0); }

  /// Looks for work left by a crashed run; `answer` "yes"/"no" decides without asking (tests,
  /// on this thread), empty asks with a modal once the autosave is read off the UI thread.
  void OfferRecovery(AppState& state, const std::string& answer);

  /// Draws every open dialog; call once per frame.
  void DrawDialogs(AppState& state);

  /// Shows a modal with `message` (and the status bar keeps it too).
  void ShowError(AppState& state, const std::string& title, const std::string& message);
  /// Errors shown so far, and the last one (tests: --check-open).
  int ErrorCount() const { return error_count_; }
  const std::string& ErrorTitle() const { return error_title_; }
  const std::string& ErrorMessage() const { return error_message_; }

 private:
  enum class BrowserPurpose { Open, SaveAs, ExportFigure, ExportFolder };

  void Guard(AppState& state, const std::string& what, std::function<void(AppState&)> action);
  void OpenLoaded(AppState& state, LoadedScenario loaded);
  void StartLoad(AppState& state, const std::string& path, bool initial);
  void FinishLoad(AppState& state);
  void LoadFailed(AppState& state, const std::string& path, const std::string& message);
  /// Writes the document to `path` (a large one off the UI thread). `run_pending`: the guard's
  /// action waits for it and runs once it is saved, or is dropped if saving fails.
  void SaveTo(AppState& state, const std::string& path, bool run_pending = false);
  void FinishSave(AppState& state);
  void Saved(AppState& state, const std::string& path, std::uint64_t version, bool run_pending);
  void SaveFailed(AppState& state, const std::string& message, bool run_pending);
  /// The guard's pending action, asked about again (the document may have changed meanwhile).
  void ResumePending(AppState& state);
  void DropPending();
  void DrawBusy(AppState& state);
  void OnBrowserResult(AppState& state, const std::string& path);
  void DrawSaveChanges(AppState& state);
  void DrawError();
  void DrawRecovery(AppState& state);
  void FinishRecoverySearch(AppState& state);
  /// Restores `work` on this thread, or, when its file is large, once load_ has read the file.
  void StartRestore(AppState& state, const RecoveredWork& work);
  void RestoreNow(AppState& state, const RecoveredWork& work);
  void FinishRestore(AppState& state, std::optional<attnlab::Scenario> from_file);
  void DrawExportAll(AppState& state);
  void RunPending(AppState& state);
  std::string DefaultFolder(const AppState& state) const;
  void SetPlaces(const AppState& state);

  FileBrowser browser_;
  BrowserPurpose purpose_ = BrowserPurpose::Open;
  std::function<void(AppState&)> pending_;
  std::string pending_what_;
  bool ask_save_ = false, continue_after_save_ = false, quit_confirmed_ = false;
  std::string error_title_, error_message_;
  bool show_error_ = false;
  int error_count_ = 0;
  struct RecoverySearch {
    std::optional<RecoveredWork> work;
    std::string error;
  };
  std::future<RecoverySearch> recovery_search_;  ///< FindOrphan() off the UI thread
  std::optional<RecoveredWork> recovery_;        ///< offered in the modal
  bool ask_recovery_ = false;
  std::optional<RecoveredWork> restoring_;       ///< restored once load_ has read its file
  std::optional<FigureExport> figure_job_;
  bool show_export_all_ = false;
  std::vector<std::string> export_log_;
  std::string export_error_;
  char export_folder_[1024] = {};
  int screenshot_request_ = 0;

  struct SaveJob {
    std::future<void> written;
    std::string path;
    std::uint64_t version = 0;  ///< the version being written: only it is marked saved
    bool run_pending = false;
  };
  BackgroundLoad load_;
  bool load_initial_ = false;
  int initial_head_ = 0;
  std::optional<SaveJob> save_;  ///< one write at a time
  /// Actions asked for while a save runs (quit, open, save again): run, in order, once it ends.
  std::vector<std::function<void(AppState&)>> after_save_;
  IoStats io_stats_;
};

/// Shortcuts to the app's dialogs (state.dialogs); harmless no-ops when there are none.
DocumentDialogs* Dialogs(AppState& state);

}  // namespace attnlab::app
