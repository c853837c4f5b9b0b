#include "widgets/file_browser.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "widgets/theme.h"
#include "session/user_dirs.h"

namespace attnlab::app {
namespace {

namespace fs = std::filesystem;

// Directory listings above this are cut (a folder of 100k files must not stall the window).
constexpr std::size_t kMaxEntries = 5000;

void CopyTo(char* buf, std::size_t n, const std::string& s) {
  std::snprintf(buf, n, "%s", s.c_str());
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool HasExtension(const std::string& name, const std::string& ext) {
  return ext.empty() ||
         (name.size() >= ext.size() && Lower(name.substr(name.size() - ext.size())) == Lower(ext));
}

std::string FormatSize(std::uintmax_t bytes) {
  char buf[32];
  if (bytes < 1024)
    std::snprintf(buf, sizeof buf, "%ju B", bytes);
  else if (bytes < 1024 * 1024)
    std::snprintf(buf, sizeof buf, "%.1f KB", bytes / 1024.0);
  else
    std::snprintf(buf, sizeof buf, "%.1f MB", bytes / (1024.0 * 1024.0));
  return buf;
}

std::string FormatTime(fs::file_time_type t) {
  // file_time_type's clock is not system_clock in C++17: convert through "now" on both clocks.
  const auto sys = std::chrono::time_point_cast<std::chrono::system_clock::duration>(
      t - fs::file_time_type::clock::now() + std::chrono::system_clock::now());
  const std::time_t tt = std::chrono::system_clock::to_time_t(sys);
  std::tm tm{};
  localtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
  return buf;
}

bool RightAlignedButton(const char* label, float x_from_right) {
  ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - x_from_right);
  return ImGui::Button(label, ImVec2(ImGui::GetFontSize() * 6.0f, 0));
}

}  // namespace

void FileBrowser::Show(Mode mode, const std::string& title, const std::string& dir,
                       const std::string& extension, const std::string& name) {
  mode_ = mode;
  title_ = title;
  extension_ = extension;
  error_.clear();
  confirm_replace_ = false;
  show_requested_ = true;
  focus_path_ = true;
  select_name_ = mode == Mode::Save;
  std::error_code ec;
  Navigate(fs::is_directory(dir, ec) ? dir : HomeDir());
  CopyTo(path_, sizeof path_, mode == Mode::Folder ? dir_ : name);
}

void FileBrowser::Navigate(const std::string& dir) {
  std::error_code ec;
  fs::path p = fs::absolute(dir, ec).lexically_normal();
  if (p.has_filename() == false && p != p.root_path()) p = p.parent_path();  // drop trailing '/'
  dir_ = p.string();
  CopyTo(folder_, sizeof folder_, dir_);
  if (mode_ == Mode::Folder) CopyTo(path_, sizeof path_, dir_);
  Refresh();
}

void FileBrowser::Refresh() {
  entries_.clear();
  error_.clear();
  std::error_code ec;
  fs::directory_iterator it(dir_, fs::directory_options::skip_permission_denied, ec);
  if (ec) {
    error_ = "cannot list " + dir_ + ": " + ec.message();
    return;
  }
  for (const fs::directory_entry& e : it) {
    if (entries_.size() >= kMaxEntries) break;
    Entry entry;
    entry.name = e.path().filename().string();
    if (!show_hidden_ && !entry.name.empty() && entry.name[0] == '.') continue;
    std::error_code ec2;
    entry.is_dir = e.is_directory(ec2);
    if (!entry.is_dir) {
      if (mode_ == Mode::Folder) continue;
      if (filter_ && !HasExtension(entry.name, extension_)) continue;
      entry.size = e.file_size(ec2);
    }
    const auto t = e.last_write_time(ec2);
    if (!ec2) entry.modified = FormatTime(t);
    entries_.push_back(std::move(entry));
  }
  std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
    if (a.is_dir != b.is_dir) return a.is_dir;
    return Lower(a.name) < Lower(b.name);
  });
}

std::string FileBrowser::Resolve(const std::string& typed) const {
  std::string t = typed;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.erase(t.begin());
  if (t.empty()) return {};
  if (t == "~" || t.rfind("~/", 0) == 0) t = HomeDir() + t.substr(1);
  fs::path p(t);
  if (p.is_relative()) p = fs::path(dir_) / p;
  return p.lexically_normal().string();
}

const char* FileBrowser::ConfirmLabel() const {
  switch (mode_) {
    case Mode::Open: return "Open";
    case Mode::Save: return confirm_replace_ ? "Replace" : "Save";
    case Mode::Folder: return "Choose";
  }
  return "OK";
}

// Acts on the path field: a folder is entered (Open/Save) or chosen (Folder); a file is opened
// or saved to. Returns true when the dialog is done.
bool FileBrowser::TryConfirm() {
  std::string path = Resolve(path_);
  if (path.empty()) {
    error_ = mode_ == Mode::Save ? "type a file name" : "choose a file";
    return false;
  }
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    if (mode_ == Mode::Folder) {
      result_ = path;
      return true;
    }
    Navigate(path);
    path_[0] = '\0';
    return false;
  }
  switch (mode_) {
    case Mode::Folder:
      error_ = "not a folder: " + path;
      return false;
    case Mode::Open:
      if (!fs::exists(path, ec)) {
        error_ = "no such file: " + path;
        return false;
      }
      break;
    case Mode::Save: {
      if (!HasExtension(path, extension_)) path += extension_;
      const fs::path parent = fs::path(path).parent_path();
      if (!fs::is_directory(parent, ec)) {
        error_ = "no such folder: " + parent.string();
        return false;
      }
      if (fs::exists(path, ec) && !confirm_replace_) {
        confirm_replace_ = true;
        error_ = fs::path(path).filename().string() + " already exists: press Replace to overwrite it";
        return false;
      }
      break;
    }
  }
  result_ = path;
  return true;
}

void FileBrowser::DrawToolbar() {
  if (ImGui::Button("\xE2\x86\x91 Up")) Navigate(fs::path(dir_).parent_path().string());
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Parent folder (Backspace)");
  ImGui::SameLine();
  if (ImGui::Button("Home")) Navigate(HomeDir());
  ImGui::SameLine();
  std::string go;
  for (const Place& place : places) {
    if (ImGui::Button(place.label.c_str())) go = place.dir;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", place.dir.c_str());
    ImGui::SameLine();
  }
  if (!go.empty()) Navigate(go);
  ImGui::SetNextItemWidth(-1.0f);
  if (ImGui::InputText("##folder", folder_, sizeof folder_, ImGuiInputTextFlags_EnterReturnsTrue)) {
    const std::string target = Resolve(folder_);
    std::error_code ec;
    if (fs::is_directory(target, ec))
      Navigate(target);
    else
      error_ = "no such folder: " + target;
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Type a folder and press Enter");
}

void FileBrowser::DrawListing(float height) {
  const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_BordersOuter | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("##listing", 3, flags, ImVec2(0, height))) return;
  const float fs = ImGui::GetFontSize();
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Name", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("Size", ImGuiTableColumnFlags_WidthFixed, fs * 5.0f);
  ImGui::TableSetupColumn("Modified", ImGuiTableColumnFlags_WidthFixed, fs * 8.5f);
  ImGui::TableHeadersRow();
  std::string enter;  // navigate after the loop: Refresh() would invalidate `entries_`
  const std::string typed = path_;
  for (const Entry& e : entries_) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    const std::string label = e.is_dir ? "\xE2\x96\xB8 " + e.name + "/" : "   " + e.name;
    if (e.is_dir) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(AccentColor()));
    const bool selected = !e.is_dir && typed == e.name;
    if (ImGui::Selectable(label.c_str(), selected,
                          ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowDoubleClick)) {
      if (e.is_dir && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
        enter = e.name;
      } else if (!e.is_dir) {
        CopyTo(path_, sizeof path_, e.name);
        confirm_replace_ = false;
        error_.clear();
        if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left) && TryConfirm()) confirmed_ = true;
      } else if (mode_ == Mode::Folder) {
        CopyTo(path_, sizeof path_, (fs::path(dir_) / e.name).string());
      }
    }
    if (e.is_dir) ImGui::PopStyleColor();
    ImGui::TableSetColumnIndex(1);
    if (!e.is_dir) ImGui::TextColored(DimTextColor(), "%s", FormatSize(e.size).c_str());
    ImGui::TableSetColumnIndex(2);
    ImGui::TextColored(DimTextColor(), "%s", e.modified.c_str());
  }
  if (entries_.empty()) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextColored(DimTextColor(), mode_ == Mode::Folder ? "   (no sub-folders)"
                                                             : "   (no matching files)");
  }
  ImGui::EndTable();
  if (!enter.empty()) Navigate((fs::path(dir_) / enter).string());
}

void FileBrowser::DrawFooter() {
  const float fs = ImGui::GetFontSize();
  if (mode_ != Mode::Folder) {
    std::string filter_label = "Only " + extension_ + " files";
    if (ImGui::Checkbox(filter_label.c_str(), &filter_)) Refresh();
    ImGui::SameLine();
  }
  if (ImGui::Checkbox("Hidden files", &show_hidden_)) Refresh();
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(mode_ == Mode::Folder ? "Folder" : "File");
  ImGui::SameLine(fs * 3.5f);
  ImGui::SetNextItemWidth(-1.0f);
  // The proposed name, selected when the field takes the focus (a frame or two after the dialog
  // opens): a typed name replaces it instead of being inserted where the last caret was.
  ImGuiInputTextFlags flags = ImGuiInputTextFlags_EnterReturnsTrue;
  if (select_name_) flags |= ImGuiInputTextFlags_AutoSelectAll;
  if (focus_path_) {
    ImGui::SetKeyboardFocusHere();
    focus_path_ = false;
  }
  const bool entered = ImGui::InputText("##path", path_, sizeof path_, flags);
  if (ImGui::IsItemActive()) select_name_ = false;
  if (entered) {
    if (TryConfirm()) confirmed_ = true;
    else focus_path_ = true;  // keep typing after entering a folder or an error
  }
  if (ImGui::IsItemEdited()) confirm_replace_ = false;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("A name in this folder, a relative path, an absolute path or ~/...");
  if (!error_.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ErrorTextColor());
    ImGui::TextWrapped("%s", error_.c_str());
    ImGui::PopStyleColor();
  } else {
    ImGui::TextColored(DimTextColor(), "in %s", dir_.c_str());
  }
  ImGui::Spacing();
  const float button_w = fs * 6.0f, spacing = ImGui::GetStyle().ItemSpacing.x;
  ImGui::Dummy(ImVec2(0, 0));
  if (RightAlignedButton(ConfirmLabel(), 2 * button_w + spacing) && TryConfirm()) confirmed_ = true;
  if (RightAlignedButton("Cancel", button_w)) {
    ImGui::CloseCurrentPopup();
    open_ = false;
  }
}

bool FileBrowser::Draw() {
  const std::string popup = title_ + "###file_browser";
  if (show_requested_) {
    ImGui::OpenPopup(popup.c_str());
    show_requested_ = false;
    open_ = true;
  }
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float fs = ImGui::GetFontSize();
  ImGui::SetNextWindowSize(ImVec2(std::min(vp->Size.x * 0.8f, fs * 46.0f),
                                  std::min(vp->Size.y * 0.8f, fs * 32.0f)),
                           ImGuiCond_Appearing);
  ImGui::SetNextWindowPos(vp->GetCenter(), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  bool keep_open = true;
  if (!ImGui::BeginPopupModal(popup.c_str(), &keep_open, ImGuiWindowFlags_NoSavedSettings)) {
    open_ = false;
    return false;
  }
  confirmed_ = false;
  DrawToolbar();
  const ImGuiStyle& style = ImGui::GetStyle();
  const float footer = ImGui::GetFrameHeightWithSpacing() * 3.0f + ImGui::GetTextLineHeightWithSpacing() * 2.0f +
                       style.ItemSpacing.y * 2.0f;
  DrawListing(std::max(fs * 6.0f, ImGui::GetContentRegionAvail().y - footer));
  DrawFooter();
  const ImGuiIO& io = ImGui::GetIO();
  if (ImGui::IsKeyPressed(GLFW_KEY_BACKSPACE, false) && !io.WantTextInput)
    Navigate(fs::path(dir_).parent_path().string());
  if (!keep_open || ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false) || confirmed_) {
    ImGui::CloseCurrentPopup();
    open_ = false;
  }
  ImGui::EndPopup();
  return confirmed_;
}

}  // namespace attnlab::app
