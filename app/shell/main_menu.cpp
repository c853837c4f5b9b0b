#include "shell/main_menu.h"

#include <imgui.h>
#include <imgui_internal.h>  // BeginViewportSideBar (1.86 has no public status-bar helper)

#include <cstdio>
#include <string>

#include "shell/commands.h"
#include "shell/dialogs.h"
#include "panels/panels.h"
#include "widgets/theme.h"

namespace attnlab::app {
namespace {

void FileMenu(AppState& state) {
  if (!ImGui::BeginMenu("File")) return;
  if (DocumentDialogs* dialogs = Dialogs(state)) {  // Open, recent, Save As, export, quit
    dialogs->DrawFileMenu(state);
    ImGui::EndMenu();
    return;
  }
  if (ImGui::BeginMenu("Open preset", !state.presets.empty())) {
    for (const PresetInfo& p : state.presets)
      if (ImGui::MenuItem(p.title.c_str())) OpenPreset(state, p);
    ImGui::EndMenu();
  }
  ImGui::Separator();
  if (ImGui::MenuItem("Save", "Ctrl+S")) SaveDocument(state);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Writes %s", SavePath(state).c_str());
  ImGui::Separator();
  if (ImGui::MenuItem("Quit", "Ctrl+Q")) state.ui.quit_requested = true;
  ImGui::EndMenu();
}

void EditMenu(AppState& state) {
  if (!ImGui::BeginMenu("Edit")) return;
  if (ImGui::MenuItem("Undo", "Ctrl+Z", false, state.document.CanUndo())) state.document.Undo();
  if (ImGui::MenuItem("Redo", "Ctrl+Shift+Z", false, state.document.CanRedo())) state.document.Redo();
  ImGui::EndMenu();
}

void ColormapMenu(AppState& state) {
  if (!ImGui::BeginMenu("Colormap")) return;
  struct Item {
    Colormap map;
    const char* label;
  };
  const Item items[] = {{Colormap::Viridis, "Viridis"},
                        {Colormap::Cividis, "Cividis (colour-blind safe)"},
                        {Colormap::Grayscale, "Grayscale (print)"}};
  for (const Item& item : items)
    if (ImGui::MenuItem(item.label, nullptr, state.ui.colormap == item.map))
      state.ui.colormap = item.map;
  ImGui::EndMenu();
}

void ViewMenu(AppState& state, PanelRegistry& panels) {
  if (!ImGui::BeginMenu("View")) return;
  if (ImGui::MenuItem("Lecture mode", "Ctrl+L", state.ui.lecture_mode)) ToggleLectureMode(state, panels);
  if (ImGui::BeginMenu("Lecture scale")) {
    for (float s : {1.5f, 2.0f, 2.5f}) {
      char label[16];
      std::snprintf(label, sizeof label, "%.1fx", s);
      if (ImGui::MenuItem(label, nullptr, state.ui.lecture_scale == s)) {
        state.ui.lecture_scale = s;
        state.ui.reset_layout = true;
      }
    }
    ImGui::EndMenu();
  }
  ColormapMenu(state);
  ImGui::Separator();
  // A panel behind another tab comes to the front; one in front closes; a closed one opens.
  for (Panel& panel : panels.List())
    if (ImGui::MenuItem(panel.name, nullptr, panel.open)) {
      if (panels.PanelInFront(state, panel.name))
        panel.open = false;
      else
        panels.ShowPanel(state, panel.name);
    }
  ImGui::Separator();
  if (ImGui::MenuItem("Reset layout")) state.ui.reset_layout = true;
  ImGui::EndMenu();
}

void HelpMenu(AppState& state, PanelRegistry& panels) {
  if (!ImGui::BeginMenu("Help")) return;
  if (ImGui::MenuItem("Keyboard shortcuts", "F1")) panels.ShowPanel(state, "Help");
  ImGui::EndMenu();
}

std::string DocumentLabel(AppState& state) {
  std::string label = state.document.name.empty() ? "untitled" : state.document.name;
  if (state.document.is_preset) label += "  (preset)";
  if (state.document.IsDirty()) label += "  \xE2\x80\xA2 modified";
  return label;
}

}  // namespace

void DrawMainMenuBar(AppState& state, PanelRegistry& panels) {
  if (!ImGui::BeginMainMenuBar()) return;
  FileMenu(state);
  EditMenu(state);
  ViewMenu(state, panels);
  HelpMenu(state, panels);
  ImGui::EndMainMenuBar();
}

void DrawStatusBar(AppState& state) {
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_MenuBar;
  const float height = ImGui::GetFrameHeight();
  if (ImGui::BeginViewportSideBar("##status", ImGui::GetMainViewport(), ImGuiDir_Down, height,
                                  flags)) {
    if (ImGui::BeginMenuBar()) {
      ImGui::TextUnformatted(DocumentLabel(state).c_str());
      const attnlab::Trace& trace = state.document.GetTrace();
      ImGui::TextDisabled("|");
      ImGui::Text("%d head%s, %s layout", state.document.HeadCount(), state.document.HeadCount() == 1 ? "" : "s",
                  attnlab::layout_name(state.document.GetScenario().layout));
      if (!trace.warnings.empty()) {
        ImGui::TextDisabled("|");
        ImGui::TextColored(WarningTextColor(), "%d warning%s", int(trace.warnings.size()),
                           trace.warnings.size() == 1 ? "" : "s");
        if (ImGui::IsItemHovered()) {
          ImGui::BeginTooltip();
          for (const std::string& w : trace.warnings) ImGui::BulletText("%s", w.c_str());
          ImGui::EndTooltip();
        }
      }
      const EditError& err = state.document.LastEditError();
      if (!err.message.empty()) {
        ImGui::TextDisabled("|");
        ImGui::TextColored(ErrorTextColor(), "refused: %s", err.message.c_str());
      } else if (!state.document.status.empty()) {
        ImGui::TextDisabled("|");
        ImGui::TextDisabled("%s", state.document.status.c_str());
      }
      ImGui::EndMenuBar();
    }
  }
  ImGui::End();
}

}  // namespace attnlab::app
