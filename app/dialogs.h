#pragma once
/// The document's dialogs and the file side of the window: Open / Save As / Export all (the
/// in-app file browser), recent files, the "Save changes?" guard in front of anything that would
/// drop unsaved work (opening a file or preset, dropping a file, quitting, the close button),
/// the "Cannot open" message, the offer to restore an autosave, and screenshot requests.
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app_state.h"
#include "autosave.h"
#include "file_browser.h"
#include "heatmap_export.h"
#include "recent_files.h"

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

  /// Looks for work left by a crashed run; `answer` "yes"/"no" decides without asking (tests),
  /// empty asks with a modal.
  void OfferRecovery(AppState& state, const std::string& answer);

  /// Draws the menu's File entries and every open dialog; call once per frame.
  void DrawFileMenu(AppState& state);
  void DrawDialogs(AppState& state);
  void HandleShortcuts(AppState& state);

  /// Shows a modal with `message` (and the status bar keeps it too).
  void ShowError(AppState& state, const std::string& title, const std::string& message);
  /// Errors shown so far, and the last one (tests: --check-open).
  int ErrorCount() const { return error_count_; }
  const std::string& ErrorTitle() const { return error_title_; }
  const std::string& ErrorMessage() const { return error_message_; }

 private:
  enum class BrowserPurpose { Open, SaveAs, ExportFigure, ExportFolder };

  void Guard(AppState& state, const std::string& what, std::function<void(AppState&)> action);
  bool OpenNow(AppState& state, const std::string& path);
  bool SaveTo(AppState& state, const std::string& path);
  void OnBrowserResult(AppState& state, const std::string& path);
  void DrawSaveChanges(AppState& state);
  void DrawError();
  void DrawRecovery(AppState& state);
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
  std::optional<RecoveredWork> recovery_;
  bool ask_recovery_ = false;
  std::optional<FigureExport> figure_job_;
  bool show_export_all_ = false;
  std::vector<std::string> export_log_;
  std::string export_error_;
  char export_folder_[1024] = {};
  int screenshot_request_ = 0;
};

/// Shortcuts to the app's dialogs (state.dialogs); harmless no-ops when there are none.
DocumentDialogs* Dialogs(AppState& state);

}  // namespace attnlab::app
