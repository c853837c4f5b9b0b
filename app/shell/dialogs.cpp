#include "shell/dialogs.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <utility>

#include "attnlab/scenario_io.h"
#include "shell/commands.h"
#include "widgets/theme.h"
#include "session/user_dirs.h"

namespace attnlab::app {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSaveChangesId = "Unsaved changes###save_changes";
constexpr const char* kErrorId = "###error";
constexpr const char* kRecoveryId = "Recover unsaved work?###recovery";
constexpr const char* kExportAllId = "Export all views###export_all";
constexpr const char* kBusyId = "###busy";
constexpr const char* kEllipsis = "\xE2\x80\xA6";

std::string FileName(const std::string& path) { return fs::path(path).filename().string(); }

std::string WithJson(std::string name) {
  if (name.empty()) name = "scenario";
  if (name.size() < 5 || name.compare(name.size() - 5, 5, ".json") != 0) name += ".json";
  return name;
}

void CenterNextWindow() {
  ImGui::SetNextWindowPos(ImGui::GetMainViewport()->GetCenter(), ImGuiCond_Always,
                          ImVec2(0.5f, 0.5f));
}

float ButtonWidth() { return ImGui::GetFontSize() * 7.0f; }

// A row of buttons at the right edge of a modal; returns the index pressed, or -1.
int ButtonRow(std::initializer_list<const char*> labels) {
  const ImGuiStyle& style = ImGui::GetStyle();
  const float total = labels.size() * ButtonWidth() + (labels.size() - 1) * style.ItemSpacing.x;
  const float avail = ImGui::GetContentRegionAvail().x;
  if (avail > total) ImGui::SetCursorPosX(ImGui::GetCursorPosX() + avail - total);
  int pressed = -1, i = 0;
  for (const char* label : labels) {
    if (i > 0) ImGui::SameLine();
    // The first button answers Enter: it stands out as the default.
    if (i == 0) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    if (ImGui::Button(label, ImVec2(ButtonWidth(), 0))) pressed = i;
    if (i == 0) ImGui::PopStyleColor();
    ++i;
  }
  return pressed;
}

void Heading(const std::string& text) {
  ImGui::PushFont(GetFonts().bold);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopFont();
  ImGui::Spacing();
}

void DimParagraph(const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, DimTextColor());
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

// Modal body text wraps at a readable width instead of stretching the dialog.
void BeginModalBody() { ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f); }
void EndModalBody() {
  ImGui::PopTextWrapPos();
  ImGui::Spacing();
  ImGui::Spacing();
}

// Keys that answer a modal; never on its first frame, where they may be the key that opened it.
bool EnterPressed() {
  return !ImGui::IsWindowAppearing() && (ImGui::IsKeyPressed(GLFW_KEY_ENTER, false) ||
                                         ImGui::IsKeyPressed(GLFW_KEY_KP_ENTER, false));
}

bool EscapePressed() {
  return !ImGui::IsWindowAppearing() && ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false);
}

// Windows appearing in the first frames take the focus, and focusing a window closes popups: a
// modal asked for at start (recovery, a file that would not open) waits until they are all up.
bool ReadyForModal() { return ImGui::GetFrameCount() > 3; }

std::string ScenarioSummary(const attnlab::Scenario& s) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%d token%s, %d head%s, %s layout", s.n_x(),
                s.n_x() == 1 ? "" : "s", s.head_count(), s.head_count() == 1 ? "" : "s",
                attnlab::layout_name(s.layout));
  return buf;
}

}  // namespace

DocumentDialogs* Dialogs(AppState& state) { return state.dialogs; }

void DocumentDialogs::Init(const std::string& config_dir, const std::string& state_dir) {
  recent.Load(config_dir.empty() ? std::string() : (fs::path(config_dir) / "recent.json").string());
  autosave.Init(state_dir);
}

// ---- guarded actions ----------------------------------------------------------------------

void DocumentDialogs::Guard(AppState& state, const std::string& what,
                            std::function<void(AppState&)> action) {
  if (save_) {  // asked again once the save ends: it decides whether the document is saved
    after_save_.push_back([this, what, action](AppState& s) { Guard(s, what, action); });
    return;
  }
  if (!state.document.IsDirty()) {
    action(state);
    return;
  }
  pending_ = std::move(action);
  pending_what_ = what;
  ask_save_ = true;
}

void DocumentDialogs::RunPending(AppState& state) {
  std::function<void(AppState&)> action = std::move(pending_);
  pending_ = nullptr;
  continue_after_save_ = false;
  if (action) action(state);
}

void DocumentDialogs::ResumePending(AppState& state) {
  std::function<void(AppState&)> action = std::move(pending_);
  DropPending();
  if (action) Guard(state, pending_what_, std::move(action));
}

void DocumentDialogs::DropPending() {
  pending_ = nullptr;
  continue_after_save_ = false;
}

void DocumentDialogs::OpenLoaded(AppState& state, LoadedScenario loaded) {
  const std::string path = loaded.path;
  state.document.Open(std::move(loaded));
  state.document.status = "opened " + path;
  recent.Add(path);
}

void DocumentDialogs::RequestOpenFile(AppState& state, const std::string& path) {
  if (LoadsOffThread(path)) {
    StartLoad(state, path, false);
    return;
  }
  ++io_stats_.sync_loads;
  // Read and validate first: a bad file is refused before anything asks about the current one.
  LoadedScenario loaded;
  try {
    loaded = LoadDocument(state, path);
  } catch (const std::exception& e) {
    ShowError(state, "Cannot open " + FileName(path), e.what());
    return;
  }
  Guard(state, "opening " + FileName(path), [this, loaded](AppState& s) { OpenLoaded(s, loaded); });
}

void DocumentDialogs::OpenInitialFile(AppState& state, const std::string& path, int head) {
  StartLoad(state, path, true);
  initial_head_ = head;
}

void DocumentDialogs::StartLoad(AppState& state, const std::string& path, bool initial) {
  load_.Start(path);
  load_initial_ = initial;
  ++io_stats_.async_loads;
  state.document.status = "opening " + path + kEllipsis;
}

// Once the file is read: as RequestOpenFile's synchronous path goes on from LoadDocument.
void DocumentDialogs::FinishLoad(AppState& state) {
  if (!load_.Running()) return;
  const std::string path = load_.Path();
  std::optional<attnlab::Scenario> scenario;
  try {
    scenario = load_.TakeIfDone();
  } catch (const std::exception& e) {
    if (restoring_) return FinishRestore(state, std::nullopt);  // the autosave becomes the base
    LoadFailed(state, path, e.what());
    return;
  }
  if (!scenario) return;
  if (restoring_) return FinishRestore(state, std::move(scenario));
  // Shared, not copied: the guard may hold the action until "Save changes?" is answered.
  auto loaded = std::make_shared<LoadedScenario>(AsDocument(state, path, std::move(*scenario)));
  const std::optional<int> head = load_initial_ ? std::optional<int>(initial_head_) : std::nullopt;
  Guard(state, "opening " + FileName(path), [this, loaded, head](AppState& s) {
    OpenLoaded(s, std::move(*loaded));
    if (head) s.ui.selected_head = std::clamp(*head, 0, s.document.HeadCount() - 1);  // --head, as at start-up
  });
}

// The messages of the synchronous paths: the start-up's (app.cpp) or File > Open's.
void DocumentDialogs::LoadFailed(AppState& state, const std::string& path,
                                 const std::string& message) {
  if (!load_initial_) {
    ShowError(state, "Cannot open " + FileName(path), message);
    return;
  }
  std::fprintf(stderr, "attnlab: %s\nattnlab: showing the built-in example instead\n",
               message.c_str());
  ShowError(state, "Cannot open " + path, message);
}

void DocumentDialogs::RequestOpenPreset(AppState& state, const PresetInfo& preset) {
  Guard(state, "opening the preset " + preset.stem,
        [preset](AppState& s) { OpenPreset(s, preset); });
}

void DocumentDialogs::RequestQuit(AppState& state) {
  Guard(state, "quitting", [this](AppState&) { quit_confirmed_ = true; });
}

void DocumentDialogs::ShowError(AppState& state, const std::string& title,
                                const std::string& message) {
  error_title_ = title;
  error_message_ = message;
  show_error_ = true;
  ++error_count_;
  state.document.status = title + ": " + message;
  std::fprintf(stderr, "attnlab: %s: %s\n", title.c_str(), message.c_str());
}

// ---- open, save, export -------------------------------------------------------------------

std::string DocumentDialogs::DefaultFolder(const AppState& state) const {
  std::error_code ec;
  if (!state.document.path.empty()) {
    const fs::path dir = fs::path(state.document.path).parent_path();
    if (fs::is_directory(dir, ec)) return dir.string();
  }
  if (!browser_.Dir().empty()) return browser_.Dir();
  return HomeDir();
}

void DocumentDialogs::SetPlaces(const AppState& state) {
  browser_.places.clear();
  if (!state.presets.empty())
    browser_.places.push_back({"Presets", fs::path(state.presets.front().path).parent_path().string()});
  if (!state.document.path.empty() && !state.document.is_preset)
    browser_.places.push_back({"Document", fs::path(state.document.path).parent_path().string()});
}

void DocumentDialogs::ShowOpen(AppState& state) {
  SetPlaces(state);
  purpose_ = BrowserPurpose::Open;
  browser_.Show(FileBrowser::Mode::Open, "Open scenario", DefaultFolder(state), ".json");
}

void DocumentDialogs::ShowSaveAs(AppState& state) {
  SetPlaces(state);
  purpose_ = BrowserPurpose::SaveAs;
  const std::string name = state.document.is_preset ? "attnlab-" + WithJson(state.document.name)
                                           : WithJson(state.document.name);
  browser_.Show(FileBrowser::Mode::Save, "Save scenario as", DefaultFolder(state), ".json", name);
}

void DocumentDialogs::Save(AppState& state) {
  if (state.document.path.empty() || state.document.is_preset)
    ShowSaveAs(state);  // presets are read-only, untitled work has no file yet: ask where
  else
    SaveTo(state, state.document.path);
}

void DocumentDialogs::SaveTo(AppState& state, const std::string& path, bool run_pending) {
  if (save_) {  // one write at a time: this one follows
    after_save_.push_back([this, path, run_pending](AppState& s) { SaveTo(s, path, run_pending); });
    return;
  }
  if (SavesOffThread(state.document.GetScenario())) {
    ++io_stats_.async_saves;
    // The version is immutable and shared: the writer serialises it, the UI copies nothing.
    save_ = SaveJob{WriteInBackground(path,
                                      [scenario = state.document.Snapshot()] {
                                        return attnlab::scenario_to_json(*scenario).dump(2) + "\n";
                                      }),
                    path, state.document.Version(), run_pending};
    state.document.status = "saving " + path + kEllipsis;
    return;
  }
  ++io_stats_.sync_saves;
  try {
    attnlab::save_scenario(state.document.GetScenario(), path);  // temp file + fsync + rename
  } catch (const std::exception& e) {
    SaveFailed(state, e.what(), run_pending);
    return;
  }
  Saved(state, path, state.document.Version(), run_pending);
}

void DocumentDialogs::FinishSave(AppState& state) {
  if (!save_ || !IsReady(save_->written)) return;
  SaveJob job = std::move(*save_);
  save_.reset();
  try {
    job.written.get();
    Saved(state, job.path, job.version, job.run_pending);
  } catch (const std::exception& e) {
    SaveFailed(state, e.what(), job.run_pending);
  }
  std::vector<std::function<void(AppState&)>> after = std::move(after_save_);
  after_save_.clear();
  for (std::function<void(AppState&)>& action : after) action(state);
}

void DocumentDialogs::Saved(AppState& state, const std::string& path, std::uint64_t version,
                            bool run_pending) {
  state.document.MarkSaved(path, version);
  state.document.name = FileName(path);
  state.document.status = "saved " + path;
  recent.Add(path);
  if (!state.document.IsDirty()) autosave.Remove();  // else it keeps protecting the edits made meanwhile
  if (run_pending) ResumePending(state);
}

void DocumentDialogs::SaveFailed(AppState& state, const std::string& message, bool run_pending) {
  ShowError(state, "Not saved", message);
  if (run_pending) DropPending();  // the work is still unsaved: quitting or opening must not go on
}

void DocumentDialogs::RequestFigureExport(AppState& state, FigureExport job) {
  std::string name = job.stem;
  if (job.format == ExportFormat::Png && job.scale > 1) name += "@" + std::to_string(job.scale) + "x";
  name += ExportExtension(job.format);
  const char* kind = job.format == ExportFormat::Png ? "PNG" : job.format == ExportFormat::Svg ? "SVG" : "CSV";
  const std::string folder = export_folder_[0] ? std::string(export_folder_) : DefaultFolder(state);
  browser_.Show(FileBrowser::Mode::Save, std::string("Export ") + kind + " \xE2\x80\x94 " + job.figure.title,
                folder, ExportExtension(job.format), name);
  purpose_ = BrowserPurpose::ExportFigure;
  figure_job_ = std::move(job);
}

void DocumentDialogs::ShowExportAll(AppState& state) {
  if (!export_folder_[0]) {
    const std::string stem = fs::path(WithJson(state.document.name)).stem().string();
    std::snprintf(export_folder_, sizeof export_folder_, "%s",
                  (fs::path(DefaultFolder(state)) / (stem + "-figures")).string().c_str());
  }
  export_log_.clear();
  export_error_.clear();
  show_export_all_ = true;
}

void DocumentDialogs::OnBrowserResult(AppState& state, const std::string& path) {
  switch (purpose_) {
    case BrowserPurpose::Open: RequestOpenFile(state, path); break;
    case BrowserPurpose::SaveAs: SaveTo(state, path, continue_after_save_); break;
    case BrowserPurpose::ExportFigure: {
      std::string error;
      if (figure_job_ && WriteFigure(*figure_job_, path, &error))
        state.document.status = "exported " + path;
      else
        ShowError(state, "Not exported", error);
      std::snprintf(export_folder_, sizeof export_folder_, "%s",
                    fs::path(path).parent_path().string().c_str());
      figure_job_.reset();
      break;
    }
    case BrowserPurpose::ExportFolder:
      std::snprintf(export_folder_, sizeof export_folder_, "%s", path.c_str());
      show_export_all_ = true;
      break;
  }
}

// ---- recovery -----------------------------------------------------------------------------

namespace {

/// The file restored work belongs to (a preset's file for a preset), "" for untitled work.
std::string RestoreOrigin(const AppState& state, const RecoveredWork& work) {
  if (work.is_preset)
    for (const PresetInfo& p : state.presets)
      if (p.stem == work.document_name) return p.path;
  return work.document_path;
}

/// Opens the file's version (`from_file`; the autosave itself when the file is gone or changed
/// beyond repair) and applies the autosave to it through ApplyEdit, like any edit: the document
/// is modified (unsaved), and undo leads back to the file.
void ApplyRestore(AppState& state, const RecoveredWork& work, const std::string& origin,
                  std::optional<attnlab::Scenario> from_file) {
  LoadedScenario base{from_file ? std::move(*from_file) : work.scenario, work.document_path,
                      work.document_name, work.is_preset};
  if (work.is_preset && !origin.empty()) base.path = origin;
  state.document.Open(base);
  state.document.ApplyEdit("restore autosave", [&work](attnlab::Scenario& s) { s = work.scenario; });
  state.document.status = "restored unsaved work from " + work.saved_at;
}

std::optional<attnlab::Scenario> LoadOrigin(const std::string& origin) {
  if (origin.empty()) return std::nullopt;
  try {
    return LoadAndValidate(origin);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

void DocumentDialogs::OfferRecovery(AppState& state, const std::string& answer) {
  const std::string dir =
      autosave.Enabled() ? fs::path(autosave.Path()).parent_path().string() : StateDir();
  const std::string own = autosave.Path();
  if (answer.empty()) {  // the window: read off the UI thread (13 MB take most of a second)
    recovery_search_ = std::async(std::launch::async, [dir, own] {
      RecoverySearch found;
      found.work = FindOrphan(dir, own, &found.error);
      return found;
    });
    return;
  }
  std::string error;
  const std::optional<RecoveredWork> work = FindOrphan(dir, own, &error);
  if (!error.empty()) ShowError(state, "Cannot restore autosave", error);
  if (!work) return;
  if (answer == "yes") {
    RestoreNow(state, *work);
  } else {
    Autosave::Discard(*work);
  }
}

void DocumentDialogs::FinishRecoverySearch(AppState& state) {
  if (!IsReady(recovery_search_)) return;
  RecoverySearch found = recovery_search_.get();
  if (!found.error.empty()) ShowError(state, "Cannot restore autosave", found.error);
  if (!found.work) return;
  recovery_ = std::move(found.work);
  ask_recovery_ = true;
}

void DocumentDialogs::RestoreNow(AppState& state, const RecoveredWork& work) {
  const std::string origin = RestoreOrigin(state, work);
  ApplyRestore(state, work, origin, LoadOrigin(origin));
  autosave.Adopt(work);
}

void DocumentDialogs::StartRestore(AppState& state, const RecoveredWork& work) {
  const std::string origin = RestoreOrigin(state, work);
  if (origin.empty() || !LoadsOffThread(origin)) return RestoreNow(state, work);
  restoring_ = work;  // FinishLoad() goes on once the file is read ("Restoring..." meanwhile)
  StartLoad(state, origin, false);
  state.document.status = "restoring unsaved work on " + origin + kEllipsis;
}

void DocumentDialogs::FinishRestore(AppState& state, std::optional<attnlab::Scenario> from_file) {
  ApplyRestore(state, *restoring_, load_.Path(), std::move(from_file));
  autosave.Adopt(*restoring_);
  restoring_.reset();
  OfferRecovery(state, "");  // another crashed window's work, if any
}

void DocumentDialogs::DrawRecovery(AppState& state) {
  if (ask_recovery_ && ReadyForModal() && !ImGui::IsPopupOpen(nullptr, ImGuiPopupFlags_AnyPopupId)) {
    ImGui::OpenPopup(kRecoveryId);
    ask_recovery_ = false;
  }
  CenterNextWindow();
  if (!ImGui::BeginPopupModal(kRecoveryId, nullptr,
                              ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings))
    return;
  const RecoveredWork& w = *recovery_;
  BeginModalBody();
  Heading("attnlab closed without saving \xE2\x80\x9C" + w.document_name + "\xE2\x80\x9D");
  ImGui::TextWrapped("Its last autosave, from %s, can be restored: %s.", w.saved_at.c_str(),
                     ScenarioSummary(w.scenario).c_str());
  ImGui::Spacing();
  DimParagraph("Restore opens it as a modified document: save it to keep it, or undo to go back "
               "to the last saved version. Discard deletes the autosave.");
  EndModalBody();
  const int pressed = ButtonRow({"Restore", "Discard"});
  if (pressed == 0 || EnterPressed()) {
    StartRestore(state, w);
  } else if (pressed == 1) {
    Autosave::Discard(w);
    state.document.status = "discarded the autosave of " + w.document_name;
  }
  if (pressed >= 0 || EnterPressed()) {
    recovery_.reset();
    ImGui::CloseCurrentPopup();
    // Another crashed window may have left one too: offer it next (after a restore still reading
    // its file, once that has adopted this autosave: FinishRestore).
    if (!restoring_) OfferRecovery(state, "");
  }
  ImGui::EndPopup();
}

// ---- dialogs ------------------------------------------------------------------------------

void DocumentDialogs::DrawSaveChanges(AppState& state) {
  if (ask_save_) {
    ImGui::OpenPopup(kSaveChangesId);
    ask_save_ = false;
  }
  CenterNextWindow();
  if (!ImGui::BeginPopupModal(kSaveChangesId, nullptr,
                              ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings))
    return;
  BeginModalBody();
  Heading("Save changes to \xE2\x80\x9C" + state.document.name + "\xE2\x80\x9D before " +
          pending_what_ + "?");
  DimParagraph(state.document.path.empty() || state.document.is_preset
                   ? "Your changes are lost if you don't save them. Save asks where to keep "
                     "them (presets stay read-only)."
                   : "Your changes are lost if you don't save them.");
  EndModalBody();
  const int pressed = ButtonRow({"Save", "Don't save", "Cancel"});
  const bool save = pressed == 0 || EnterPressed();
  if (save) {
    if (state.document.path.empty() || state.document.is_preset) {
      continue_after_save_ = true;  // the pending action runs once Save As succeeds
      ShowSaveAs(state);
    } else {
      SaveTo(state, state.document.path, true);
    }
  } else if (pressed == 1) {
    RunPending(state);
  } else if (pressed == 2 || EscapePressed()) {
    pending_ = nullptr;
  }
  if (save || pressed >= 1 || EscapePressed())
    ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

void DocumentDialogs::DrawError() {
  const std::string id = error_title_ + kErrorId;
  if (show_error_ && ReadyForModal()) {
    ImGui::OpenPopup(id.c_str());
    show_error_ = false;
  }
  CenterNextWindow();
  if (!ImGui::BeginPopupModal(id.c_str(), nullptr,
                              ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings))
    return;
  BeginModalBody();
  ImGui::PushStyleColor(ImGuiCol_Text, ErrorTextColor());
  ImGui::TextWrapped("%s", error_message_.c_str());
  ImGui::PopStyleColor();
  ImGui::Spacing();
  DimParagraph("The document you had open is unchanged.");
  EndModalBody();
  if (ButtonRow({"OK"}) == 0 || EnterPressed() || EscapePressed())
    ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

void DocumentDialogs::DrawExportAll(AppState& state) {
  if (show_export_all_) {
    ImGui::OpenPopup(kExportAllId);
    show_export_all_ = false;
  }
  CenterNextWindow();
  if (!ImGui::BeginPopupModal(kExportAllId, nullptr,
                              ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings))
    return;
  const float fs = ImGui::GetFontSize();
  ExportSettings& s = export_settings;
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Folder");
  ImGui::SameLine(fs * 6.0f);
  ImGui::SetNextItemWidth(fs * 24.0f);
  ImGui::InputText("##folder", export_folder_, sizeof export_folder_);
  ImGui::SameLine();
  const bool browse = ImGui::Button("Browse...");
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Formats");
  ImGui::SameLine(fs * 6.0f);
  ImGui::Checkbox("PNG", &s.png);
  ImGui::SameLine();
  ImGui::Checkbox("SVG", &s.svg);
  ImGui::SameLine();
  ImGui::Checkbox("CSV", &s.csv);
  ImGui::SameLine();
  ImGui::Checkbox("NumPy script", &s.numpy);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("PNG size");
  ImGui::SameLine(fs * 6.0f);
  ImGui::BeginDisabled(!s.png);
  for (int scale : {1, 2, 4}) {
    char label[8];
    std::snprintf(label, sizeof label, "%dx", scale);
    if (scale > 1) ImGui::SameLine();
    ImGui::RadioButton(label, &s.scale, scale);
  }
  ImGui::EndDisabled();
  ImGui::SetCursorPosX(ImGui::GetCursorPosX() + fs * 6.0f - ImGui::GetStyle().WindowPadding.x + 2.0f);
  ImGui::Checkbox("Values in cells", &s.values);
  ImGui::SameLine();
  ImGui::Checkbox("Transparent background", &s.transparent);
  ImGui::Spacing();
  ImGui::PushTextWrapPos(fs * 36.0f);
  DimParagraph("Every matrix of every head, named as attnlab-cli export names them: "
               "head1_Q, head1_scores, ..., head2_weights, concat, output, and attention.py.");
  ImGui::PopTextWrapPos();
  if (!export_error_.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ErrorTextColor());
    ImGui::TextWrapped("%s", export_error_.c_str());
    ImGui::PopStyleColor();
  } else if (!export_log_.empty()) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(AccentColor()), "Wrote %d files to %s",
                       static_cast<int>(export_log_.size()),
                       fs::path(export_log_.front()).parent_path().string().c_str());
  }
  ImGui::Spacing();
  const int pressed = ButtonRow({"Export", "Close"});
  if (pressed == 0) {
    export_log_.clear();
    export_error_.clear();
    const std::string dir = export_folder_;
    if (dir.empty())
      export_error_ = "choose a folder";
    else if (!s.png && !s.svg && !s.csv && !s.numpy)
      export_error_ = "choose at least one format";
    else if (ExportAllViews(state, s, dir, &export_log_, &export_error_))
      state.document.status = "exported " + std::to_string(export_log_.size()) + " files to " + dir;
  }
  if (browse) {
    purpose_ = BrowserPurpose::ExportFolder;
    browser_.Show(FileBrowser::Mode::Folder, "Export all views to folder",
                  fs::path(export_folder_).parent_path().string(), "");
  }
  if (browse || pressed == 1 || EscapePressed())
    ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

bool DocumentDialogs::Blocking() const {
  return load_.Running() || (save_ && (save_->run_pending || !after_save_.empty()));
}

void DocumentDialogs::DrawBusy(AppState& state) {
  const bool busy = Blocking();
  const bool opening = load_.Running();
  const std::string reading = restoring_ ? "Restoring " : "Opening ";
  const std::string title = busy ? (opening ? reading + FileName(load_.Path())
                                            : "Saving " + FileName(save_->path)) + kEllipsis
                                 : std::string();
  if (busy && ReadyForModal() && !ImGui::IsPopupOpen(nullptr, ImGuiPopupFlags_AnyPopupId))
    ImGui::OpenPopup((title + kBusyId).c_str());
  CenterNextWindow();
  if (!ImGui::BeginPopupModal((title + kBusyId).c_str(), nullptr,
                              ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings))
    return;
  if (!busy) {
    ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
    return;
  }
  BeginModalBody();
  DimParagraph(restoring_ ? "Your unsaved work is restored on top of its file once the file is "
                            "read. Cancel keeps the document you have open; the work is offered "
                            "again at the next start."
               : opening  ? "The document you have open stays as it is until the file is read. "
                            "Cancel keeps it."
                          : "attnlab goes on once your work is written. Cancel stops waiting "
                            "(the file is still written).");
  EndModalBody();
  if (ButtonRow({"Cancel"}) == 0 || EscapePressed()) {
    if (opening) {
      state.document.status = (restoring_ ? "did not restore the work on " : "did not open ") + load_.Path();
      restoring_.reset();
      load_.Cancel();  // whatever it reads is discarded
    } else {
      after_save_.clear();
      save_->run_pending = false;
      DropPending();
    }
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndPopup();
}

void DocumentDialogs::DrawDialogs(AppState& state) {
  FinishRecoverySearch(state);  // results of work off the UI thread, before any dialog is drawn
  FinishLoad(state);
  FinishSave(state);
  const bool browser_was_open = browser_.IsOpen();
  if (browser_.Draw()) {
    OnBrowserResult(state, browser_.Result());
  } else if (browser_was_open && !browser_.IsOpen()) {
    // Cancelled: a Save As asked for by "Save changes?" cancels the pending action too.
    if (purpose_ == BrowserPurpose::SaveAs) {
      pending_ = nullptr;
      continue_after_save_ = false;
    }
    if (purpose_ == BrowserPurpose::ExportFolder) show_export_all_ = true;
    figure_job_.reset();
  }
  DrawSaveChanges(state);
  DrawError();
  DrawExportAll(state);
  if (recovery_) DrawRecovery(state);
  DrawBusy(state);
}

// ---- menu and keys ------------------------------------------------------------------------

}  // namespace attnlab::app
