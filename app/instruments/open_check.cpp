#include "instruments/open_check.h"

#include <imgui.h>
#include <imgui_internal.h>  // windows and their draw lists: what was on screen
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <utility>

#include "panels/app_state.h"
#include "session/model_lab.h"
#include "attnlab/scenario_io.h"
#include "session/session.h"

namespace attnlab::app {
namespace {

void AppendUtf8(std::string* out, unsigned c) {
  if (c < 0x80) {
    *out += static_cast<char>(c);
  } else if (c < 0x800) {
    *out += static_cast<char>(0xC0 | (c >> 6));
    *out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    *out += static_cast<char>(0xE0 | (c >> 12));
    *out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

// The text a window drew this frame, read back from its draw list: every glyph is a quad whose
// first and third vertices carry the glyph's UV corners in the font atlas. Spaces draw nothing,
// so they are missing here; text clipped away is missing too. This is what reaches the screen.
std::string DrawnText(const ImGuiWindow* window) {
  std::map<std::pair<float, float>, const ImFontGlyph*> glyphs;
  for (const ImFont* font : ImGui::GetIO().Fonts->Fonts)
    for (const ImFontGlyph& g : font->Glyphs)
      if (g.Visible) glyphs[{g.U0, g.V0}] = &g;
  std::string text;
  const ImVector<ImDrawVert>& v = window->DrawList->VtxBuffer;
  for (int i = 0; i + 3 < v.Size; ++i) {
    const auto it = glyphs.find({v[i].uv.x, v[i].uv.y});
    if (it == glyphs.end() || v[i + 2].uv.x != it->second->U1 || v[i + 2].uv.y != it->second->V1)
      continue;
    AppendUtf8(&text, it->second->Codepoint);
    i += 3;
  }
  return text;
}

std::string WithoutSpaces(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  return s;
}

// A window drawn and visible this frame. With "###id" the ID, not window->Name, follows the title
// (ImGui keeps the first title there): the title is checked in the drawn text instead.
const ImGuiWindow* DrawnWindow(const std::string& name) {
  const ImGuiWindow* w = ImGui::FindWindowByName(name.c_str());
  return w && w->Active && !w->Hidden ? w : nullptr;
}

// The error modal (dialogs.cpp: title + "###error") is on screen with its title and message.
bool ModalShows(const std::string& title, const std::string& message) {
  const ImGuiWindow* w = DrawnWindow(title + "###error");
  if (!w) return false;
  const std::string drawn = DrawnText(w);
  return drawn.find(WithoutSpaces(title)) != std::string::npos &&
         drawn.find(WithoutSpaces(message)) != std::string::npos;
}

// The status bar starts the line "title: message"; it is one line, so a long message runs past
// the window's edge: the title and the message's first 16 characters must be visible.
bool StatusBarShows(const AppState& state, const std::string& title, const std::string& message) {
  const ImGuiWindow* w = DrawnWindow("##status");
  if (!w || state.document.status != title + ": " + message) return false;
  return DrawnText(w).find(WithoutSpaces(title + ": " + message.substr(0, 16))) != std::string::npos;
}

}  // namespace

bool OpenCheck::Snapshot::operator==(const Snapshot& o) const {
  return scenario_json == o.scenario_json && path == o.path && name == o.name &&
         is_preset == o.is_preset && dirty == o.dirty && version == o.version;
}

OpenCheck::Snapshot OpenCheck::Take(AppState& state) {
  return {attnlab::scenario_to_json(state.document.GetScenario()).dump(), state.document.path,
          state.document.name, state.document.is_preset, state.document.IsDirty(), state.document.Version()};
}

bool OpenCheck::Load(const std::string& list_path, std::string* error) {
  std::ifstream in(list_path);
  if (!in) {
    *error = list_path + ": cannot open";
    return false;
  }
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) files_.push_back(line);
  if (files_.empty()) *error = list_path + ": expected one file per line, got none";
  return !files_.empty();
}

void OpenCheck::BeforeDraw(AppState& state, Session& session, int frame) {
  const int step = frame - kFirstFrame - waited_;
  if (step < 0 || step >= 2 * static_cast<int>(files_.size())) return;
  if (step % 2 == 1) {  // the frame after the request: AfterDraw looks at the screen
    return;
  }
  if (!ImGui::GetCurrentContext()->OpenPopupStack.empty())
    ImGui::ClosePopupToLevel(0, true);  // the previous file's modal, as if OK was pressed
  before_ = Take(state);
  errors_before_ = session.ErrorCount();
  const std::string& file = files_[step / 2];
  if (file.rfind(kModelPrefix, 0) == 0)
    state.models->RequestOpen(file.substr(std::strlen(kModelPrefix)));  // File > Open model's own path
  else
    session.RequestOpen(file);  // the menu's and drag-and-drop's own path
}

void OpenCheck::AfterDraw(AppState& state, Session& session, int frame) {
  const bool busy = session.Busy() || state.models->Loading();
  const bool was_busy = std::exchange(busy_before_, busy);
  const int step = frame - kFirstFrame - waited_;
  if (step < 0 || step >= 2 * static_cast<int>(files_.size()) || step % 2 == 0) return;
  if (was_busy || busy) {  // still reading, or its message opens this frame
    ++waited_;
    return;
  }
  const bool refused = session.ErrorCount() > errors_before_;
  const std::string message = refused ? session.ErrorMessage() : std::string();
  const std::string title = refused ? session.ErrorTitle() : std::string();
  // Shown: the modal is on screen with the message, and the status bar repeats it.
  const bool shown = refused && ModalShows(title, message) && StatusBarShows(state, title, message);
  const nlohmann::json line = {{"file", files_[step / 2]},
                               {"accepted", !refused},
                               {"message", message},
                               {"title", title},
                               {"shown", shown},
                               {"document_unchanged", Take(state) == before_},
                               {"dirty", state.document.IsDirty()},
                               {"asked_to_save", DrawnWindow("Unsaved changes###save_changes") != nullptr}};
  // Replace, not throw: a message escapes bytes that are not UTF-8, but stay safe regardless.
  std::printf("%s\n", line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  std::fflush(stdout);
}

}  // namespace attnlab::app
