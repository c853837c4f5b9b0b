#include "panels/panel_formula.h"

#include <imgui.h>

#include <algorithm>
#include <string>

#include "view/formulas.h"
#include "widgets/theme.h"

namespace attnlab::app::FormulaPanel {
namespace {

// The strip is drawn before the heatmaps, so this frame's hover is not known yet: last frame's.
HoveredCell ShownCell(const UiState& ui) {
  if (ui.hovered.stage != Stage::None) return ui.hovered;
  if (ui.hovered_last_frame.stage != Stage::None) return ui.hovered_last_frame;
  return ui.pinned;
}

int HeadDk(const attnlab::Scenario& s, const attnlab::Trace& t) {
  if (t.heads.empty()) return 1;
  const attnlab::Matrix& q = t.heads.front().Q;
  return int(s.layout == attnlab::Layout::rows ? q.cols() : q.rows());
}

class Formula final : public PanelContents {
 public:
  void Draw(AppState& state) override;
};

}  // namespace

void Formula::Draw(AppState& state) {
  const attnlab::Scenario& s = state.document.GetScenario();
  const attnlab::Trace& trace = state.document.GetTrace();
  const HoveredCell cell = ShownCell(state.ui);
  const float line = ImGui::GetTextLineHeight();
  ImGui::SetCursorPosY(std::max(0.0f, (ImGui::GetWindowHeight() - line) * 0.5f));
  const char* layout = s.layout == attnlab::Layout::rows ? "rows layout" : "columns layout";
  if (cell.stage == Stage::None) {
    ImGui::PushStyleColor(ImGuiCol_Text, DimTextColor());
    ImGui::TextUnformatted(layout);
    ImGui::PopStyleColor();
    ImGui::SameLine();
    ImGui::PushFont(GetFonts().mono);
    ImGui::TextUnformatted(AttentionSummary(s).c_str());
    ImGui::PopFont();
    return;
  }
  const int head = cell.head >= 0 ? cell.head : state.ui.selected_head;
  const std::string formula = StageFormula(cell.stage, s, head, HeadDk(s, trace));
  ImGui::PushFont(GetFonts().bold);
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(AccentColor()), "%s", StageName(cell.stage));
  ImGui::PopFont();
  ImGui::SameLine();
  ImGui::PushFont(GetFonts().mono);
  ImGui::TextUnformatted(formula.c_str());
  ImGui::PopFont();
  ImGui::SameLine();
  ImGui::PushStyleColor(ImGuiCol_Text, DimTextColor());
  ImGui::Text("  %s", layout);
  ImGui::PopStyleColor();
}

std::unique_ptr<PanelContents> Make() { return std::make_unique<Formula>(); }

}  // namespace attnlab::app::FormulaPanel
