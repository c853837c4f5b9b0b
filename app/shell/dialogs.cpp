#include "shell/dialogs.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <cstdio>
#include <filesystem>
#include <utility>

#include "attnlab/scenario_io.h"
#include "session/model_lab.h"
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

// The modal `id` of one of the session's questions, centred and sized to its contents, closed as
// soon as the session no longer asks it (`asked` false: answered elsewhere). True while its body
// is to be drawn; the caller then ends it with EndPopup.
bool BeginQuestionModal(const char* id, bool asked) {
  CenterNextWindow();
  if (!ImGui::BeginPopupModal(id, nullptr,
                              ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings))
    return false;
  if (asked) return true;
  ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
  return false;
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

// ---- files -------------------------------------------------------------------------------

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
void DocumentDialogs::ShowOpenModel(AppState& state) {
  SetPlaces(state);
  purpose_ = BrowserPurpose::OpenModel;
  const std::string dir = model_folder_.empty() ? DefaultFolder(state) : model_folder_;
  browser_.Show(FileBrowser::Mode::Folder, "Open model folder", dir, "");
}

void DocumentDialogs::ShowLocateModel(AppState& state) {
  SetPlaces(state);
  purpose_ = BrowserPurpose::LocateModel;
  // Beside where the folder was: a folder moved is often in the one that held it.
  std::error_code ec;
  fs::path dir = state.models ? fs::path(state.models->DocumentFolder()).parent_path() : fs::path();
  while (!dir.empty() && !fs::is_directory(dir, ec) && dir != dir.parent_path()) dir = dir.parent_path();
  const std::string start = !dir.empty() && fs::is_directory(dir, ec) ? dir.string()
                            : model_folder_.empty()                  ? DefaultFolder(state)
                                                                     : model_folder_;
  browser_.Show(FileBrowser::Mode::Folder, "Locate this layer's model folder", start, "");
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
    case BrowserPurpose::Open: session_.RequestOpen(path); break;
    case BrowserPurpose::OpenModel:
      if (state.models) state.models->RequestOpen(path);
      model_folder_ = fs::path(path).parent_path().string();  // the next model is likely beside it
      break;
    case BrowserPurpose::LocateModel:
      if (state.models) state.models->Locate(path);
      model_folder_ = fs::path(path).parent_path().string();
      break;
    case BrowserPurpose::SaveAs: session_.SaveAs(path); break;
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

// ---- open, save, export -------------------------------------------------------------------

void DocumentDialogs::ShowSaveAs(AppState&) { session_.RequestSaveAs(); }

void DocumentDialogs::Save(AppState&) { session_.Save(); }

// Where to save is asked by the session (Save As, Ctrl+S on a preset, "Save changes?"): the
// browser opens once per question.
void DocumentDialogs::ShowSaveBrowser(AppState& state, const Question& question) {
  shown_serial_ = question.serial;
  SetPlaces(state);
  purpose_ = BrowserPurpose::SaveAs;
  browser_.Show(FileBrowser::Mode::Save, "Save scenario as", DefaultFolder(state), ".json",
                question.suggested_name);
}

// ---- the session's questions --------------------------------------------------------------

void DocumentDialogs::DrawRecovery(const Question* question) {
  const bool asked = question && question->kind == Question::Kind::Recover;
  if (asked && question->serial != shown_serial_ && ReadyForModal() &&
      !ImGui::IsPopupOpen(nullptr, ImGuiPopupFlags_AnyPopupId)) {
    ImGui::OpenPopup(kRecoveryId);
    shown_serial_ = question->serial;
  }
  if (!BeginQuestionModal(kRecoveryId, asked)) return;
  const RecoveredWork& w = *question->recovery;
  BeginModalBody();
  Heading("attnlab closed without saving \xE2\x80\x9C" + w.document_name + "\xE2\x80\x9D");
  ImGui::TextWrapped("Its last autosave, from %s, can be restored: %s.", w.saved_at.c_str(),
                     ScenarioSummary(w.scenario).c_str());
  ImGui::Spacing();
  DimTextWrapped("Restore opens it as a modified document: save it to keep it, or undo to go back "
               "to the last saved version. Discard deletes the autosave.");
  EndModalBody();
  const int pressed = ButtonRow({"Restore", "Discard"});
  const bool enter = EnterPressed();
  if (pressed >= 0 || enter) {
    ImGui::CloseCurrentPopup();
    session_.Answer(pressed == 1 ? Choice::Discard : Choice::Restore);  // `w` is gone after this
  }
  ImGui::EndPopup();
}

void DocumentDialogs::DrawSaveChanges(AppState& state, const Question* question) {
  const bool asked = question && question->kind == Question::Kind::SaveChanges;
  if (asked && question->serial != shown_serial_) {
    ImGui::OpenPopup(kSaveChangesId);
    shown_serial_ = question->serial;
  }
  if (!BeginQuestionModal(kSaveChangesId, asked)) return;
  BeginModalBody();
  Heading("Save changes to \xE2\x80\x9C" + state.document.name + "\xE2\x80\x9D before " +
          question->action + "?");
  DimTextWrapped(question->save_asks_path
                   ? "Your changes are lost if you don't save them. Save asks where to keep "
                     "them (presets stay read-only)."
                   : "Your changes are lost if you don't save them.");
  EndModalBody();
  const int pressed = ButtonRow({"Save", "Don't save", "Cancel"});
  const bool enter = EnterPressed(), escape = EscapePressed();
  if (pressed >= 0 || enter || escape) {
    ImGui::CloseCurrentPopup();
    session_.Answer(pressed == 0 || enter ? Choice::Save
                    : pressed == 1        ? Choice::DontSave
                                          : Choice::Cancel);
  }
  ImGui::EndPopup();
}

void DocumentDialogs::DrawError(const Question* question) {
  const bool asked = question && question->kind == Question::Kind::Error;
  const std::string id = (asked ? question->title : std::string()) + kErrorId;
  if (asked && question->serial != shown_serial_ && ReadyForModal()) {
    ImGui::OpenPopup(id.c_str());
    shown_serial_ = question->serial;
  }
  if (!BeginQuestionModal(id.c_str(), asked)) return;
  BeginModalBody();
  ImGui::PushStyleColor(ImGuiCol_Text, ErrorTextColor());
  ImGui::TextWrapped("%s", question->message.c_str());
  ImGui::PopStyleColor();
  ImGui::Spacing();
  DimTextWrapped("The document you had open is unchanged.");
  EndModalBody();
  if (ButtonRow({"OK"}) == 0 || EnterPressed() || EscapePressed()) {
    ImGui::CloseCurrentPopup();
    session_.Answer(Choice::Ok);
  }
  ImGui::EndPopup();
}

void DocumentDialogs::DrawBusy(const Question* question) {
  const bool busy = question && question->kind == Question::Kind::Busy;
  const std::string id = (busy ? question->title : std::string()) + kBusyId;
  if (busy && ReadyForModal() && !ImGui::IsPopupOpen(nullptr, ImGuiPopupFlags_AnyPopupId))
    ImGui::OpenPopup(id.c_str());
  if (!BeginQuestionModal(id.c_str(), busy)) return;
  BeginModalBody();
  DimTextWrapped(question->busy == Question::BusyKind::Restoring
                   ? "Your unsaved work is restored on top of its file once the file is "
                     "read. Cancel keeps the document you have open; the work is offered "
                     "again at the next start."
               : question->busy == Question::BusyKind::Opening
                   ? "The document you have open stays as it is until the file is read. "
                     "Cancel keeps it."
                   : "attnlab goes on once your work is written. Cancel stops waiting "
                     "(the file is still written).");
  EndModalBody();
  if (ButtonRow({"Cancel"}) == 0 || EscapePressed()) {
    session_.Answer(Choice::Cancel);
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndPopup();
}

// A question whose modal was closed from outside (another popup took its place, a test closed
// it) counts as dismissed: an error as read, "Save changes?" as cancelled.
void DocumentDialogs::DismissClosed(const Question* question) {
  if (!question || question->serial != shown_serial_) return;
  if (question->kind == Question::Kind::Error &&
      !ImGui::IsPopupOpen((question->title + kErrorId).c_str()))
    session_.Answer(Choice::Ok);
  else if (question->kind == Question::Kind::SaveChanges && !ImGui::IsPopupOpen(kSaveChangesId))
    session_.Answer(Choice::Cancel);
}

void DocumentDialogs::DrawDialogs(AppState& state) {
  DismissClosed(session_.Pending());
  if (const Question* q = session_.Pending();
      q && q->kind == Question::Kind::ChooseSavePath && q->serial != shown_serial_)
    ShowSaveBrowser(state, *q);
  const bool browser_was_open = browser_.IsOpen();
  if (browser_.Draw()) {
    OnBrowserResult(state, browser_.Result());
  } else if (browser_was_open && !browser_.IsOpen()) {
    // Cancelled: a Save As asked for by "Save changes?" cancels the pending action too.
    const Question* q = session_.Pending();
    if (purpose_ == BrowserPurpose::SaveAs && q && q->kind == Question::Kind::ChooseSavePath)
      session_.Answer(Choice::Cancel);
    if (purpose_ == BrowserPurpose::ExportFolder) show_export_all_ = true;
    figure_job_.reset();
  }
  DrawSaveChanges(state, session_.Pending());
  DrawError(session_.Pending());
  DrawExportAll(state);
  DrawRecovery(session_.Pending());
  DrawBusy(session_.Pending());
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
  DimTextWrapped("Every matrix of every head, named as attnlab-cli export names them: "
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

}  // namespace attnlab::app
