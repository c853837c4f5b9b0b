#include "panels/panel_help.h"

#include <imgui.h>

#include <utility>

#include "widgets/theme.h"

namespace attnlab::app::HelpPanel {
namespace {

void ShortcutTable(const std::vector<ShortcutRow>& shortcuts) {
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH;
  if (!ImGui::BeginTable("##shortcuts", 2, flags)) return;
  ImGui::TableSetupColumn("keys", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("action", ImGuiTableColumnFlags_WidthStretch);
  for (const ShortcutRow& s : shortcuts) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::PushFont(GetFonts().mono);
    ImGui::TextUnformatted(s.keys.c_str());
    ImGui::PopFont();
    ImGui::TableSetColumnIndex(1);
    ImGui::TextWrapped("%s", s.action.c_str());
  }
  ImGui::EndTable();
}

class Help final : public PanelContents {
 public:
  explicit Help(std::vector<ShortcutRow> shortcuts) : shortcuts_(std::move(shortcuts)) {}
  void Draw(AppState& state) override;

 private:
  std::vector<ShortcutRow> shortcuts_;
};

void Help::Draw(AppState&) {
  ShortcutTable(shortcuts_);
  ImGui::Spacing();
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextColored(DimTextColor(),
                     "Hover a cell for its exact value. Weights use a fixed 0 to 1 scale; "
                     "signed matrices use a diverging scale centred on 0. Hatched cells are "
                     "masked (-\xE2\x88\x9E before the softmax, 0 after it).");
  ImGui::PopTextWrapPos();
}

}  // namespace

std::unique_ptr<PanelContents> Make(std::vector<ShortcutRow> shortcuts) {
  return std::make_unique<Help>(std::move(shortcuts));
}

}  // namespace attnlab::app::HelpPanel
