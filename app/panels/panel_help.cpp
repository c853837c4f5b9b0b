#include "panels/panel_help.h"

#include <imgui.h>

#include "widgets/theme.h"

namespace attnlab::app::HelpPanel {
namespace {

struct Shortcut {
  const char* keys;
  const char* action;
};

// Keep in sync with HandleShortcuts() (commands.cpp) and README.md.
constexpr Shortcut kShortcuts[] = {
    {"Ctrl+O", "Open a scenario file"},
    {"Ctrl+S", "Save (a preset asks where to keep a copy)"},
    {"Ctrl+Shift+S", "Save as"},
    {"Ctrl+Z", "Undo"},
    {"Ctrl+Shift+Z", "Redo"},
    {"Ctrl+Y", "Redo"},
    {"1 ... 9", "Select head"},
    {"[  ]", "Previous / next head"},
    {"Ctrl+L", "Lecture mode"},
    {"F11", "Lecture mode"},
    {"F1", "Show this help"},
    {"F12", "Screenshot of the window"},
    {"Shift+F12", "Screenshot at 2x"},
    {"Right-click", "Export a heatmap (PNG, SVG, CSV, copy)"},
    {"Ctrl+Q", "Quit"},
};

void ShortcutTable() {
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH;
  if (!ImGui::BeginTable("##shortcuts", 2, flags)) return;
  ImGui::TableSetupColumn("keys", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("action", ImGuiTableColumnFlags_WidthStretch);
  for (const Shortcut& s : kShortcuts) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::PushFont(GetFonts().mono);
    ImGui::TextUnformatted(s.keys);
    ImGui::PopFont();
    ImGui::TableSetColumnIndex(1);
    ImGui::TextWrapped("%s", s.action);
  }
  ImGui::EndTable();
}

}  // namespace

void Draw(AppState&) {
  ShortcutTable();
  ImGui::Spacing();
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextColored(DimTextColor(),
                     "Hover a cell for its exact value. Weights use a fixed 0 to 1 scale; "
                     "signed matrices use a diverging scale centred on 0. Hatched cells are "
                     "masked (-\xE2\x88\x9E before the softmax, 0 after it).");
  ImGui::PopTextWrapPos();
}

}  // namespace attnlab::app::HelpPanel
