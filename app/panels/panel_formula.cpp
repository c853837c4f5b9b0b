#include "panels/panel_formula.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <string>
#include <vector>

#include "attnlab/lesson.h"
#include "widgets/theme.h"

namespace attnlab::app::panel_formula {
namespace {

// The cell under the mouse in the last whole frame (whether the strip draws before or after the
// heatmaps), else the pinned one.
HoveredCell ShownCell(const UiState& ui) {
  if (ui.hover.Shown().stage != StageId::none) return ui.hover.Shown();
  return ui.pinned;
}

int HeadDk(const attnlab::Scenario& s, const attnlab::Trace& t) {
  if (t.heads.empty()) return 1;
  const attnlab::Matrix& q = t.heads.front().Q;
  return int(s.layout == attnlab::Layout::rows ? q.cols() : q.rows());
}

class FormulaPanel final : public PanelContents {
 public:
  void Draw(AppState& state) override;
};

}  // namespace

// The strip is one line tall: a line wider than the strip (lecture mode's large font, a narrow
// window) is written smaller, never cut. Below kSmallest of the font the dim layout name goes
// first (the status bar says it too), then the rest shrinks to whatever fits.
constexpr float kSmallest = 0.7f;

// Text in the given font at its own size, measured without drawing.
float Width(ImFont* font, const std::string& text) {
  return font->CalcTextSizeA(font->FontSize, FLT_MAX, 0.0f, text.c_str()).x;
}

// Parts of the line, each in its font and colour, drawn on one line that fits the strip.
struct Part {
  std::string text;
  ImFont* font;
  ImVec4 colour;
  bool optional = false;  ///< dropped before the line shrinks below kSmallest
};

float LineWidth(const std::vector<Part>& parts, bool with_optional) {
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  float width = 0;
  for (const Part& p : parts)
    if (with_optional || !p.optional) width += Width(p.font, p.text) + gap;
  return width;
}

void DrawLine(const std::vector<Part>& parts) {
  ImGui::SetWindowFontScale(1.0f);  // kept by ImGui from the last frame
  const float avail = ImGui::GetContentRegionAvail().x;
  const bool all = LineWidth(parts, true) * kSmallest <= avail;
  const float width = LineWidth(parts, all);
  if (width > avail) ImGui::SetWindowFontScale(avail / width);
  const float line = ImGui::GetTextLineHeight();
  ImGui::SetCursorPosY(std::max(0.0f, (ImGui::GetWindowHeight() - line) * 0.5f));
  bool first = true;
  for (const Part& p : parts) {
    if (p.optional && !all) continue;
    if (!first) ImGui::SameLine();
    first = false;
    ImGui::PushFont(p.font);
    ImGui::TextColored(p.colour, "%s", p.text.c_str());
    ImGui::PopFont();
  }
}

void FormulaPanel::Draw(AppState& state) {
  const attnlab::Scenario& s = state.document.GetScenario();
  const attnlab::Trace& trace = state.document.GetTrace();
  const HoveredCell cell = ShownCell(state.ui);
  const char* layout = s.layout == attnlab::Layout::rows ? "rows layout" : "columns layout";
  const ImVec4 text = ImGui::GetStyleColorVec4(ImGuiCol_Text);
  ImFont* regular = ImGui::GetFont();
  if (cell.stage == StageId::none) {
    DrawLine({{layout, regular, DimTextColor(), true}, {attnlab::lesson::attention_summary(s), GetFonts().mono, text}});
    return;
  }
  const int head = cell.head >= 0 ? cell.head : state.ui.selected_head;
  DrawLine({{stage_name(cell.stage), GetFonts().bold, ImGui::ColorConvertU32ToFloat4(AccentColor())},
            {attnlab::stage_formula(cell.stage, s, head, HeadDk(s, trace)), GetFonts().mono, text},
            {std::string("  ") + layout, regular, DimTextColor(), true}});
}

std::unique_ptr<PanelContents> Make() { return std::make_unique<FormulaPanel>(); }

}  // namespace attnlab::app::panel_formula
