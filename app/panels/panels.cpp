#include "panels/panels.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "panels/panel_formula.h"
#include "panels/panel_heads.h"
#include "panels/panel_inspector.h"
#include "panels/panel_mask.h"
#include "panels/panel_matrices.h"
#include "panels/panel_help.h"
#include "panels/panel_pipeline.h"
#include "panels/panel_scenario.h"
#include "panels/panel_single_query.h"
#include "widgets/window_backgrounds.h"

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

using ShownTabs = std::map<std::string, std::string>;

const char* GroupOf(const Panel& p, bool compact) { return compact ? p.compact_group : p.group; }

// One window of the arrangement: a panel of its own, or a group of panels (open members, in
// list order) sharing one window with a tab each.
struct Slot {
  const char* group = nullptr;
  std::vector<std::size_t> members;
  PanelColumn column = PanelColumn::Left;
  float weight = 0, strip = 0;
};

std::vector<Slot> Slots(const std::vector<Panel>& panels, const Rect& work) {
  const bool compact = Compact(work);
  std::vector<Slot> slots;
  for (std::size_t i = 0; i < panels.size(); ++i) {
    const Panel& p = panels[i];
    if (!p.open) continue;
    const char* group = GroupOf(p, compact);
    auto same = [group](const Slot& s) { return group && s.group && std::string(s.group) == group; };
    auto it = std::find_if(slots.begin(), slots.end(), same);
    if (it == slots.end()) {
      slots.push_back({group, {}, EffectiveColumn(p.column, work)});
      it = slots.end() - 1;
    }
    it->members.push_back(i);
    // Strips get their text height first; the others share what is left by weight.
    if (p.strip_lines > 0)
      it->strip = std::floor(p.strip_lines * ImGui::GetTextLineHeight() +
                             ImGui::GetStyle().WindowPadding.y * 2.0f);
    else
      it->weight = std::max(it->weight, compact ? p.compact_weight : p.weight);
  }
  return slots;
}

// Default rectangle of slot `index`: its share of its column among the open slots there.
Rect DefaultRect(const std::vector<Slot>& slots, std::size_t index, const Rect& work) {
  const PanelColumn column = slots[index].column;
  const Rect col = ColumnRect(column, work);
  float total = 0, fixed = 0;
  for (const Slot& s : slots) {
    if (s.column != column) continue;
    total += s.weight;
    fixed += s.strip;
  }
  const float flexible = std::max(0.0f, col.size.y - fixed);
  auto height = [&](const Slot& s) { return s.strip + (total > 0 ? flexible * s.weight / total : 0.0f); };
  float before = 0;
  for (std::size_t i = 0; i < index; ++i)
    if (slots[i].column == column) before += height(slots[i]);
  const float y0 = std::floor(before);
  const float y1 = std::floor(before + height(slots[index]));
  return {ImVec2(col.pos.x, col.pos.y + y0), ImVec2(col.size.x, y1 - y0)};
}

// The member whose tab is in front: the one asked for (UiState), else the one shown last frame,
// else the first.
std::size_t FrontMember(const std::vector<Panel>& panels, const Slot& slot, const AppState& state,
                        const ShownTabs& shown_tab) {
  for (const ShownTabs* tabs : {&state.ui.front_tab, &shown_tab}) {
    const auto it = tabs->find(slot.group);
    if (it == tabs->end()) continue;
    for (std::size_t m : slot.members)
      if (it->second == panels[m].name) return m;
  }
  return slot.members.front();
}

void DrawGroup(AppState& state, std::vector<Panel>& panels, const Slot& slot,
               ShownTabs& shown_tab) {
  const std::string group = slot.group;
  const std::string wanted = panels[FrontMember(panels, slot, state, shown_tab)].name;
  // A request (F1, the View menu) differs from what the tab bar showed last frame: select that
  // tab. ImGui switches on the next frame, so the request stands until the tab bar shows it.
  const bool request = !shown_tab.count(group) || shown_tab[group] != wanted;
  std::string shown;
  if (ImGui::Begin(slot.group, nullptr, ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoCollapse) &&
      ImGui::BeginTabBar("##panels", ImGuiTabBarFlags_FittingPolicyScroll)) {
    for (std::size_t m : slot.members) {
      Panel& panel = panels[m];
      const ImGuiTabItemFlags flags = request && wanted == panel.name ? ImGuiTabItemFlags_SetSelected : 0;
      // Only the front tab has a close button: the others then need no room for one, and the
      // tabs of a narrow lecture-mode column keep their names.
      const bool front = shown_tab.count(group) ? shown_tab[group] == panel.name : m == slot.members.front();
      if (!ImGui::BeginTabItem(panel.name, front ? &panel.open : nullptr, flags)) continue;
      shown = panel.name;
      // A child per panel: the tabs stay in place while the panel's contents scroll.
      if (ImGui::BeginChild(panel.name, ImVec2(0, 0), false, panel.flags))
        panel.contents->Draw(state);
      ImGui::EndChild();
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
  ImGui::End();
  if (shown.empty()) return;
  if (!request || shown == wanted) state.ui.front_tab[group] = shown;
  shown_tab[group] = shown;
}

}  // namespace

PanelRegistry::PanelRegistry(std::vector<HelpPanel::ShortcutRow> shortcuts) {
  // Normal width: left = [Scenario | Inputs] above the Mask, right = Heads above [Inspector |
  // Single query | Help]. Compact (lecture mode, narrow): one column of two slots, every panel
  // but Heads tabbed above it, so that neither is a sliver.
  auto add = [this](Panel panel) { panels_.push_back(std::move(panel)); };
  add({"Scenario", ScenarioPanel::Make(), PanelColumn::Left, 0.6f, 0.4f});
  // Before the Pipeline: an edit made while the Inputs draw shows in the same frame.
  add({"Inputs", MatricesPanel::Make(), PanelColumn::Left, 0.6f, 0.4f});
  add({"Mask", MaskPanel::Make(), PanelColumn::Left, 0.4f, 0.4f});
  // The strip draws before the heatmaps (it shows last frame's hover); the Inspector after.
  add({"Formula", FormulaPanel::Make(), PanelColumn::Centre, 0.0f, 0.0f, true,
       ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar, 1.0f});
  add({"Pipeline", PipelinePanel::Make(), PanelColumn::Centre, 1.0f, 1.0f});
  add({"Heads", HeadsPanel::Make(), PanelColumn::Right, 0.55f, 0.6f});
  add({"Inspector", InspectorPanel::Make(), PanelColumn::Right, 0.45f, 0.4f});
  add({"Single query", SingleQueryPanel::Make(), PanelColumn::Right, 0.45f, 0.4f, true, 0, 0.0f,
       true});
  add({"Help", HelpPanel::Make(std::move(shortcuts)), PanelColumn::Right, 0.45f, 0.4f, true, 0, 0.0f,
       true});
  for (Panel& panel : panels_) {
    const std::string name = panel.name;
    if (name == "Scenario" || name == "Inputs") panel.group = "Setup";
    if (name == "Inspector" || name == "Single query" || name == "Help") panel.group = "Details";
    if (name != "Formula" && name != "Pipeline" && name != "Heads") panel.compact_group = "Setup";
  }
}

Panel* PanelRegistry::FindPanel(const char* name) {
  for (Panel& panel : panels_)
    if (std::string(panel.name) == name) return &panel;
  return nullptr;
}

const Panel* PanelRegistry::FindPanel(const char* name) const {
  for (const Panel& panel : panels_)
    if (std::string(panel.name) == name) return &panel;
  return nullptr;
}

void PanelRegistry::DrawPanels(AppState& state) {
  std::vector<Panel>& panels = panels_;
  const Rect work = WorkArea();
  const std::vector<Slot> slots = Slots(panels, work);
  const ImGuiCond cond = state.ui.reset_layout ? ImGuiCond_Always : ImGuiCond_FirstUseEver;
  last_compact_ = Compact(work);
  // In list order of the panel in front: each panel draws where the list puts it (the Inputs
  // before the Pipeline, the Inspector after the heatmaps), tabbed or not.
  for (std::size_t i = 0; i < panels.size(); ++i) {
    auto has = [i](const Slot& s) { return std::find(s.members.begin(), s.members.end(), i) != s.members.end(); };
    const auto slot = std::find_if(slots.begin(), slots.end(), has);
    if (slot == slots.end()) continue;
    if (slot->group && FrontMember(panels, *slot, state, shown_tab_) != i) continue;
    const Rect r = DefaultRect(slots, std::size_t(slot - slots.begin()), work);
    ImGui::SetNextWindowPos(r.pos, cond);
    ImGui::SetNextWindowSize(r.size, cond);
    ImGui::SetNextWindowBgAlpha(PanelBackgroundAlpha(slot->group ? slot->group : panels[i].name));
    if (slot->group) {
      DrawGroup(state, panels, *slot, shown_tab_);
      continue;
    }
    Panel& panel = panels[i];
    if (ImGui::Begin(panel.name, &panel.open, panel.flags | ImGuiWindowFlags_NoCollapse))
      panel.contents->Draw(state);
    ImGui::End();
  }
  state.ui.reset_layout = false;
}

void PanelRegistry::ShowPanel(AppState& state, const char* name) {
  Panel* panel = FindPanel(name);
  if (!panel) return;
  panel->open = true;
  for (const char* group : {panel->group, panel->compact_group})
    if (group) state.ui.front_tab[group] = name;
}

bool PanelRegistry::PanelInFront(const AppState& state, const char* name) const {
  const Panel* panel = FindPanel(name);
  if (!panel || !panel->open) return false;
  const char* group = GroupOf(*panel, last_compact_);
  if (!group) return true;
  auto it = state.ui.front_tab.find(group);
  return it != state.ui.front_tab.end() && it->second == name;
}

}  // namespace attnlab::app
