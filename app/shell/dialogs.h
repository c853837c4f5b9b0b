#pragma once
/// The document's dialogs: draws the session's questions ("Save changes?", "Cannot open", the
/// offer to restore an autosave, "Opening..."/"Saving..."), the in-app file browser (Open, Save
/// As, figure export) and the Export-all dialog. The document's file story
/// itself (the guard, loads and saves, recovery, recent files, autosave) is the session's
/// (session/session.h): the dialogs pass the user's answers to it.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "panels/app_state.h"
#include "session/session.h"
#include "widgets/file_browser.h"
#include "shell/heatmap_export.h"

namespace attnlab::app {

class DocumentDialogs {
 public:
  /// `session` must outlive the dialogs.
  explicit DocumentDialogs(Session& session) : session_(session) {}

  ExportSettings export_settings;

  /// The "Opening..." / "Saving..." modal is up: meanwhile the document cannot change.
  bool Blocking() const { return session_.Blocking(); }

  void ShowOpen(AppState& state);
  /// File > Open model...: a folder chooser; the chosen folder is opened by state.models.
  void ShowOpenModel(AppState& state);
  /// Next token's Locate…: the same chooser, its folder taken by state.models->Locate.
  void ShowLocateModel(AppState& state);
  void ShowSaveAs(AppState& state);
  /// Ctrl+S: saves in place, or asks where (presets and untitled documents).
  void Save(AppState& state);
  void ShowExportAll(AppState& state);
  /// Asks where to write one heatmap's figure (right-click > Export ...).
  void RequestFigureExport(AppState& state, FigureExport job);

  /// F12 (1) / Shift+F12 (2): a screenshot at that multiple of the framebuffer; the frame loop
  /// takes the request (it needs the GL context).
  void RequestScreenshot(int scale) { screenshot_request_ = scale; }
  int TakeScreenshotRequest() { return std::exchange(screenshot_request_, 0); }

  /// Draws every open dialog; call once per frame.
  void DrawDialogs(AppState& state);

  /// Shows a modal with `message` (and the status bar keeps it too).
  void ShowError(AppState&, const std::string& title, const std::string& message) {
    session_.ShowError(title, message);
  }

 private:
  enum class BrowserPurpose { Open, OpenModel, LocateModel, SaveAs, ExportFigure, ExportFolder };

  void ShowSaveBrowser(AppState& state, const Question& question);
  void OnBrowserResult(AppState& state, const std::string& path);
  void DismissClosed(const Question* question);
  void DrawSaveChanges(AppState& state, const Question* question);
  void DrawError(const Question* question);
  void DrawRecovery(const Question* question);
  void DrawBusy(const Question* question);
  void DrawExportAll(AppState& state);
  std::string DefaultFolder(const AppState& state) const;
  void SetPlaces(const AppState& state);

  Session& session_;
  std::uint64_t shown_serial_ = 0;  ///< the session's question whose modal (or browser) is up
  FileBrowser browser_;
  BrowserPurpose purpose_ = BrowserPurpose::Open;
  std::optional<FigureExport> figure_job_;
  bool show_export_all_ = false;
  std::vector<std::string> export_log_;
  std::string export_error_;
  char export_folder_[1024] = {};
  std::string model_folder_;  ///< where the last model folder was chosen
  int screenshot_request_ = 0;
};

}  // namespace attnlab::app
