#include "panels/panel_help.h"

#include <imgui.h>

#include <utility>

#include "panels/panel_requests.h"
#include "view/guide.h"
#include "widgets/guide_text.h"
#include "widgets/theme.h"

namespace attnlab::app::panel_help {
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

// The guide (docs/GUIDE.md, compiled in), a section per collapsing header, then the shortcuts.
class HelpPanel final : public PanelContents, public Accepts<GuideRequest> {
 public:
  explicit HelpPanel(std::vector<ShortcutRow> shortcuts)
      : guide_(ParseGuide(GuideMarkdown())), shortcuts_(std::move(shortcuts)) {}
  void Take(AppState&, const GuideRequest&) override { from_top_ = true; }
  void Draw(AppState& state) override;

 private:
  Guide guide_;
  std::vector<ShortcutRow> shortcuts_;
  bool from_top_ = false;  ///< scroll back to the guide once, as it draws next (GuideRequest)
};

void HelpPanel::Draw(AppState& /*state*/) {
  if (from_top_) ImGui::SetScrollY(0.0f);
  for (const GuideBlock& block : guide_.intro) GuideBlockText(block);
  ImGui::Spacing();
  // Closed at first but the first, the walkthrough: the reader sees every topic at once and opens
  // the one wanted. The guide asked for (F1, the first-run hint) opens on the walkthrough.
  const bool asked = from_top_;
  for (const GuideSection& section : guide_.sections) {
    const bool first = &section == &guide_.sections.front();
    if (first && asked) ImGui::SetNextItemOpen(true);
    if (!ImGui::CollapsingHeader(section.title.c_str(), first ? ImGuiTreeNodeFlags_DefaultOpen : 0)) continue;
    for (const GuideBlock& block : section.blocks) GuideBlockText(block);
    ImGui::Spacing();
  }
  if (ImGui::CollapsingHeader("Keyboard shortcuts", ImGuiTreeNodeFlags_DefaultOpen))
    ShortcutTable(shortcuts_);
  from_top_ = false;
}

}  // namespace

std::unique_ptr<PanelContents> Make(std::vector<ShortcutRow> shortcuts) {
  return std::make_unique<HelpPanel>(std::move(shortcuts));
}

}  // namespace attnlab::app::panel_help
