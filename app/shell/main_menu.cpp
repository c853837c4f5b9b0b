#include "shell/main_menu.h"

#include <imgui.h>
#include <imgui_internal.h>  // BeginViewportSideBar (1.86 has no public status-bar helper)

#include <cstring>
#include <string>

#include "attnlab/text_fit.h"
#include "session/model_lab.h"
#include "shell/guide.h"
#include "view/label_fit.h"
#include "widgets/busy_bar.h"
#include "widgets/theme.h"

namespace attnlab::app {
namespace {

// One menu of the bar: the table's actions that name it, in table order.
void DrawMenu(ActionContext& ctx, const ActionTable& actions, const char* menu) {
  if (!ImGui::BeginMenu(menu)) return;
  for (const Action& a : actions.List()) {
    if (!a.menu || std::strcmp(a.menu, menu) != 0) continue;
    if (a.separator_before) ImGui::Separator();
    if (a.draw) {
      a.draw(ctx);
      continue;
    }
    const std::string keys = a.keys.empty() ? std::string() : ChordText(a.keys.front());
    const bool checked = a.checked && a.checked(ctx);
    const bool enabled = !a.enabled || a.enabled(ctx);
    if (ImGui::MenuItem(a.label, keys.empty() ? nullptr : keys.c_str(), checked, enabled) && a.run)
      a.run(ctx);
    if (a.tooltip && ImGui::IsItemHovered()) a.tooltip(ctx);
  }
  ImGui::EndMenu();
}

std::string DocumentLabel(AppState& state) {
  std::string label = state.document.name.empty() ? "untitled" : state.document.name;
  if (state.document.is_preset) label += "  (preset)";
  if (state.document.IsDirty()) label += "  \xE2\x80\xA2 modified";
  return label;
}

}  // namespace

void DrawMainMenuBar(ActionContext& ctx, const ActionTable& actions) {
  if (!ImGui::BeginMainMenuBar()) return;
  for (const char* menu : {"File", "Edit", "View", "Help"}) DrawMenu(ctx, actions, menu);
  DrawFirstRunHint(ctx.state, ctx.panels);
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
      if (state.models && state.models->Loading()) {  // the model folder being read: a moving bar
        ImGui::TextDisabled("|");
        BusyBar(("loading " + state.models->LoadingName() + kEllipsis).c_str(),
                ImVec2(ImGui::GetFontSize() * 12.0f, ImGui::GetTextLineHeight()));
      }
      const EditError& err = state.document.LastEditError();
      if (!err.message.empty()) {
        ImGui::TextDisabled("|");
        ImGui::TextColored(ErrorTextColor(), "refused: %s", err.message.c_str());
      } else if (!state.document.status.empty()) {
        ImGui::TextDisabled("|");
        // A long path loses its start, not its file name, at the window's edge.
        const std::string status = ElidePathStart(state.document.status, ImGui::GetContentRegionAvail().x,
                                                  [](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x; });
        ImGui::TextDisabled("%s", status.c_str());
      }
      ImGui::EndMenuBar();
    }
  }
  ImGui::End();
}

}  // namespace attnlab::app
