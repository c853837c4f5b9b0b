#include "panels.h"

#include <algorithm>

#include "panel_formula.h"
#include "panel_heads.h"
#include "panel_inspector.h"
#include "panel_mask.h"
#include "panel_matrices.h"
#include "panel_help.h"
#include "panel_pipeline.h"
#include "panel_scenario.h"
#include "panel_single_query.h"

namespace attnlab::app {
namespace {

struct Rect {
  ImVec2 pos, size;
};

// The window's area between the menu bar and the status bar, computed from the style rather than
// read from the viewport's work area, which only catches up one frame later.
Rect WorkArea() {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float bar = ImGui::GetFrameHeight();
  return {ImVec2(vp->Pos.x, vp->Pos.y + bar), ImVec2(vp->Size.x, vp->Size.y - 2.0f * bar)};
}

// Narrow in font units (lecture mode on a small screen): two columns, the right column's panels
// joining the left one, so the pipeline keeps enough room.
bool Compact(const Rect& work) { return work.size.x / ImGui::GetFontSize() < 70.0f; }

PanelColumn EffectiveColumn(PanelColumn column, const Rect& work) {
  return Compact(work) && column == PanelColumn::Right ? PanelColumn::Left : column;
}

Rect ColumnRect(PanelColumn column, const Rect& work) {
  const float fs = ImGui::GetFontSize();
  const bool compact = Compact(work);
  const float side = compact ? std::floor(std::max(work.size.x * 0.3f, fs * 12.0f))
                             : std::clamp(std::floor(work.size.x * 0.25f), fs * 16.0f, fs * 29.0f);
  const float right = compact ? 0.0f
                              : std::clamp(std::floor(work.size.x * 0.27f), fs * 17.0f, fs * 31.0f);
  const float centre = std::max(fs * 12.0f, work.size.x - side - right);
  switch (column) {
    case PanelColumn::Left: return {work.pos, ImVec2(side, work.size.y)};
    case PanelColumn::Centre:
      return {ImVec2(work.pos.x + side, work.pos.y), ImVec2(centre, work.size.y)};
    case PanelColumn::Right:
      return {ImVec2(work.pos.x + side + centre, work.pos.y), ImVec2(right, work.size.y)};
  }
  return work;
}

// Default rectangle of panel `index`: its share of its column among the open panels there.
Rect DefaultRect(const std::vector<Panel>& panels, std::size_t index, const Rect& work) {
  const PanelColumn column = EffectiveColumn(panels[index].column, work);
  const Rect col = ColumnRect(column, work);
  const bool compact = Compact(work);
  auto weight = [compact](const Panel& p) { return p.strip_lines > 0 ? 0.0f : compact ? p.compact_weight : p.weight; };
  // Strips get their text height first; the others share what is left by weight.
  auto strip = [](const Panel& p) {
    return p.strip_lines > 0 ? std::floor(p.strip_lines * ImGui::GetTextLineHeight() +
                                          ImGui::GetStyle().WindowPadding.y * 2.0f) : 0.0f;
  };
  float total = 0, fixed = 0;
  for (std::size_t i = 0; i < panels.size(); ++i) {
    if (!panels[i].open || EffectiveColumn(panels[i].column, work) != column) continue;
    total += weight(panels[i]);
    fixed += strip(panels[i]);
  }
  const float flexible = std::max(0.0f, col.size.y - fixed);
  auto height = [&](const Panel& p) {
    return strip(p) + (total > 0 ? flexible * weight(p) / total : 0.0f);
  };
  float before = 0;
  for (std::size_t i = 0; i < index; ++i)
    if (panels[i].open && EffectiveColumn(panels[i].column, work) == column) before += height(panels[i]);
  const float y0 = std::floor(before);
  const float y1 = std::floor(before + height(panels[index]));
  return {ImVec2(col.pos.x, col.pos.y + y0), ImVec2(col.size.x, y1 - y0)};
}

}  // namespace

std::vector<Panel>& Panels() {
  static std::vector<Panel> panels = {
      {"Scenario", ScenarioPanel::Draw, PanelColumn::Left, 1.0f, 1.0f},
      {"Mask", MaskPanel::Draw, PanelColumn::Left, 0.75f, 0.5f},
      // Before the Pipeline: an edit made while the Inputs draw shows in the same frame.
      {"Inputs", MatricesPanel::Draw, PanelColumn::Left, 1.1f, 0.45f},
      // The strip draws before the heatmaps (it shows last frame's hover); the Inspector after.
      {"Formula", FormulaPanel::Draw, PanelColumn::Centre, 0.0f, 0.0f, true,
       ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar, 1.0f},
      {"Pipeline", PipelinePanel::Draw, PanelColumn::Centre, 1.0f, 1.0f},
      {"Heads", HeadsPanel::Draw, PanelColumn::Right, 0.45f, 1.0f},
      {"Inspector", InspectorPanel::Draw, PanelColumn::Right, 0.8f, 1.0f},
      {"Single query", SingleQueryPanel::Draw, PanelColumn::Right, 0.55f, 0.6f, true, 0, 0.0f, true},
      {"Help", HelpPanel::Draw, PanelColumn::Right, 0.3f, 0.5f},
  };
  return panels;
}

void DrawPanels(AppState& state) {
  std::vector<Panel>& panels = Panels();
  const Rect work = WorkArea();
  const ImGuiCond cond = state.ui.reset_layout ? ImGuiCond_Always : ImGuiCond_FirstUseEver;
  for (std::size_t i = 0; i < panels.size(); ++i) {
    Panel& panel = panels[i];
    if (!panel.open) continue;
    const Rect r = DefaultRect(panels, i, work);
    ImGui::SetNextWindowPos(r.pos, cond);
    ImGui::SetNextWindowSize(r.size, cond);
    if (ImGui::Begin(panel.name, &panel.open, panel.flags | ImGuiWindowFlags_NoCollapse))
      panel.draw(state);
    ImGui::End();
  }
  state.ui.reset_layout = false;
}

}  // namespace attnlab::app
