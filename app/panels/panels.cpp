#include "panels/panels.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "panels/panel_compare.h"
#include "panels/panel_decode.h"
#include "panels/panel_formula.h"
#include "panels/panel_head_finder.h"
#include "panels/panel_head_stats.h"
#include "panels/panel_heads.h"
#include "panels/panel_inspector.h"
#include "panels/panel_lens.h"
#include "panels/panel_lines.h"
#include "panels/panel_mask.h"
#include "panels/panel_inputs.h"
#include "panels/panel_model.h"
#include "panels/panel_next_token.h"
#include "panels/panel_patching.h"
#include "panels/panel_help.h"
#include "panels/panel_pipeline.h"
#include "panels/panel_plane.h"
#include "panels/panel_presenter.h"
#include "panels/panel_scenario.h"
#include "panels/panel_sensitivity.h"
#include "panels/panel_single_query.h"
#include "panels/panel_tiles.h"
#include "panels/panel_sweep.h"
#include "widgets/theme.h"
#include "widgets/window_backgrounds.h"

namespace attnlab::app {
namespace {

// One slot of an arrangement: a panel of its own, or a group sharing one window, a tab each.
struct SlotDef {
  const char* key;
  std::vector<const char*> members;  // tab order
  float share, min_em;               // minimum height in font sizes
};
struct ColumnDef {
  const char* key;
  float share, min_em;
  std::vector<SlotDef> slots;
};

// Normal: [Scenario | Inputs] above the Mask; the formula strip above [Pipeline | ... | Model]; the
// Heads above [Inspector | Next token | ... | Help] (a model's grid where the room is, its
// prediction under the Heads, whose checkboxes change it, its tab in view without scrolling).
// Compact (narrow in font units: small windows, lecture mode on a small screen): the side panels in
// one column beside the Pipeline, the Lines with the Pipeline (a third of the width showed six of
// 60 tokens at lecture size at 1280x800; lecture mode's second row of tabs holds it), the Inspector's group with the largest share and a minimum of
// 12 lines (six lines or more of a hovered cell's arithmetic in lecture mode at 1280x800, where a
// quarter of the column showed a line and a half); Setup's minimum is its tab bar, so that the
// Heads can grow to print a head's numbers (WantedHeight) while the Inspector keeps its lines.
// Presenter: the stage beside the inputs, so that every step can still be edited.
// A document of many heads (a model's layer) widens Compact's side column (WideSideShare).
const std::vector<ColumnDef>& Definition(Arrangement arrangement) {
  static const std::vector<ColumnDef> kNormal = {
      {"left", 0.25f, 16, {{"Setup", {"Scenario", "Inputs"}, 0.6f, 8}, {"Mask", {"Mask"}, 0.4f, 6}}},
      {"centre", 0.48f, 20, {{"Formula", {"Formula"}, 0, 0}, {"Pipeline", {"Pipeline", "Compare", "Sensitivity", "Plane", "Model", "Head finder", "Patching", "Logit lens", "Tiles", "Decode"}, 1.0f, 8}}},
      {"right", 0.27f, 16,
       {{"Heads", {"Heads", "Head stats", "Lines"}, 0.55f, 6},
        {"Details", {"Inspector", "Next token", "Single query", "Sweep", "Help"}, 0.45f, 6}}}};
  static const std::vector<ColumnDef> kCompact = {
      {"left", 0.34f, 17,
       {{"Setup", {"Scenario", "Inputs", "Mask", "Sweep"}, 0.25f, 2},
        {"Heads", {"Heads", "Head stats"}, 0.33f, 5},
        {"Details", {"Inspector", "Next token", "Single query", "Help"}, 0.42f, 12}}},
      {"centre", 0.66f, 20, {{"Formula", {"Formula"}, 0, 0}, {"Pipeline", {"Pipeline", "Compare", "Sensitivity", "Plane", "Model", "Head finder", "Patching", "Logit lens", "Tiles", "Decode", "Lines"}, 1.0f, 8}}}};
  static const std::vector<ColumnDef> kPresenter = {
      {"left", 0.3f, 16,
       {{"Setup", {"Inputs", "Scenario", "Mask"}, 0.6f, 6},
        {"Details", {"Inspector", "Heads", "Head stats", "Lines", "Single query", "Plane", "Sweep", "Next token", "Model", "Head finder", "Patching", "Logit lens", "Tiles", "Help"}, 0.4f, 6}}},
      {"centre", 0.7f, 24, {{"Presenter", {"Presenter"}, 1.0f, 8}}}};
  switch (arrangement) {
    case Arrangement::Compact: return kCompact;
    case Arrangement::Presenter: return kPresenter;
    case Arrangement::Normal: break;
  }
  return kNormal;
}

// Whether slot `key` folds to its tab bar because `tall_group` takes its column (never a strip).
bool Folded(Arrangement arrangement, const std::string& tall_group, const std::string& key) {
  if (tall_group.empty() || key == tall_group) return false;
  for (const ColumnDef& column : Definition(arrangement)) {
    const auto has = [&column](const std::string& k) {
      return std::any_of(column.slots.begin(), column.slots.end(), [&k](const SlotDef& s) { return k == s.key; });
    };
    if (has(key) && has(tall_group)) return key != "Formula";
  }
  return false;
}

// Compact's side column for a document of many heads (a model's layer: 12 in GPT-2 small): the
// Heads slot pages through a row of them, the Scenario's text wraps onto fewer lines, and the model
// grid, which fits itself to its panel, kept its maps' size in the narrower centre (1280x800 in
// lecture mode: 2 multiples a page in a third of the width, 4 in half of it).
constexpr int kManyHeads = 8;
constexpr float kWideSideShare = 0.66f;  // as wide as the centre (0.66)

float DefaultShare(Arrangement arrangement, const ColumnDef& column, int heads) {
  const bool wide = arrangement == Arrangement::Compact && heads >= kManyHeads && std::string(column.key) == "left";
  return wide ? kWideSideShare : column.share;
}

const SlotDef* FindSlot(Arrangement arrangement, const std::string& key) {
  for (const ColumnDef& column : Definition(arrangement))
    for (const SlotDef& slot : column.slots)
      if (key == slot.key) return &slot;
  return nullptr;
}

// The window's area between the menu bar and the status bar, computed from the style rather than
// read from the viewport's work area, which only catches up one frame later.
Box WorkArea() {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float bar = ImGui::GetFrameHeight();  // fractional at some zooms: tiles keep clear of it
  const float top = std::ceil(vp->Pos.y + bar), bottom = std::floor(vp->Pos.y + vp->Size.y - bar);
  return {vp->Pos.x, top, vp->Size.x, std::max(0.0f, bottom - top)};
}

// Narrow in font units: the side panels share one column, so the pipeline keeps enough room.
bool Narrow(const Box& work) { return work.w / ImGui::GetFontSize() < 60.0f; }

// Between neighbouring panels: room to grab a splitter, growing with the UI scale.
float Gap() { return std::max(3.0f, std::round(ImGui::GetFontSize() * 0.3f)); }

std::string ShareKey(Arrangement arrangement, const std::string& column, const char* slot = nullptr) {
  std::string key = std::string(ArrangementName(arrangement)) + "/" + column;
  return slot ? key + "/" + slot : key;
}

using ShownTabs = std::map<std::string, std::string>;

// The member whose tab is in front: the one asked for, else the one shown last frame, else the
// first.
std::size_t FrontMember(const std::vector<Panel>& panels, const std::string& group,
                        const std::vector<std::size_t>& members, const ShownTabs& front_tab,
                        const ShownTabs& shown_tab) {
  for (const ShownTabs* tabs : {&front_tab, &shown_tab}) {
    const auto it = tabs->find(group);
    if (it == tabs->end()) continue;
    for (std::size_t m : members)
      if (it->second == panels[m].name) return m;
  }
  return members.front();
}

// What the panel's tab says (PanelContents::TabLabel, else its name).
const char* TabText(const Panel& panel, const AppState& state) {
  const char* label = panel.contents->TabLabel(state);
  return label ? label : panel.name;
}

// The tab's label for ImGui: a panel whose tab says something else keeps its name as the ID.
std::string TabTitle(const Panel& panel, const AppState& state) {
  const char* label = panel.contents->TabLabel(state);
  return label ? std::string(label) + "###" + panel.name : std::string(panel.name);
}

// What the tabs of `members` say, as the tab rows measure them.
std::vector<const char*> Names(const std::vector<Panel>& panels, const std::vector<std::size_t>& members,
                               const AppState& state) {
  std::vector<const char*> names;
  for (std::size_t m : members) names.push_back(TabText(panels[m], state));
  return names;
}

// The tiles' windows are placed every frame: never moved, resized or remembered by ImGui.
constexpr ImGuiWindowFlags kTileFlags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                                        ImGuiWindowFlags_NoCollapse |
                                        ImGuiWindowFlags_NoSavedSettings;

}  // namespace

const char* ArrangementName(Arrangement arrangement) {
  switch (arrangement) {
    case Arrangement::Compact: return "compact";
    case Arrangement::Presenter: return "presenter";
    case Arrangement::Normal: break;
  }
  return "normal";
}

PanelRegistry::PanelRegistry(std::vector<panel_help::ShortcutRow> shortcuts) {
  // Drawing order: the editors first, so that an edit shows in every panel in the frame that made
  // it (panels.h); nothing else depends on it. Where each goes is the arrangement's (Definition).
  auto add = [this](Panel&& panel) { panels_.push_back(std::move(panel)); };
  add(Panel("Scenario", panel_scenario::Make()));
  add(Panel("Inputs", panel_inputs::Make()));
  add(Panel("Mask", panel_mask::Make()));
  add(Panel("Formula", panel_formula::Make())
          .WindowFlags(ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar)
          .Strip(1.0f));
  add(Panel("Pipeline", panel_pipeline::Make()));
  add(Panel("Compare", panel_compare::Make()));
  add(Panel("Sensitivity", panel_sensitivity::Make()));
  add(Panel("Plane", panel_plane::Make()));
  add(Panel("Model", panel_model::Make()));
  add(Panel("Head finder", panel_head_finder::Make()));
  add(Panel("Patching", panel_patching::Make()));
  add(Panel("Logit lens", panel_lens::Make()));
  add(Panel("Decode", panel_decode::Make()));
  add(Panel("Heads", panel_heads::Make()));
  add(Panel("Head stats", panel_head_stats::Make()));
  add(Panel("Lines", panel_lines::Make()));
  add(Panel("Presenter", panel_presenter::Make())
          .WindowFlags(ImGuiWindowFlags_NoTitleBar)
          .Unlisted());
  add(Panel("Inspector", panel_inspector::Make()));
  add(Panel("Single query", panel_single_query::Make()).HideInLecture());
  add(Panel("Sweep", panel_sweep::Make()));
  add(Panel("Tiles", panel_tiles::Make()));
  add(Panel("Next token", panel_next_token::Make()));
  add(Panel("Help", panel_help::Make(std::move(shortcuts))).HideInLecture());
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

std::vector<TileColumn> PanelRegistry::Columns(Arrangement arrangement, const std::string& tall_group,
                                               int heads) const {
  const float fs = ImGui::GetFontSize();
  auto share = [this](const std::string& key, float fallback) {
    const auto it = shares_.find(key);
    return it == shares_.end() ? fallback : it->second;
  };
  std::vector<TileColumn> columns;
  for (const ColumnDef& def : Definition(arrangement)) {
    TileColumn column{def.key, share(ShareKey(arrangement, def.key), DefaultShare(arrangement, def, heads)),
                      def.min_em * fs, {}};
    for (const SlotDef& slot : def.slots) {
      const Panel* open = nullptr;
      for (const char* name : slot.members)
        if (const Panel* p = FindPanel(name); p && p->open && !open) open = p;
      if (!open) continue;
      TileSlot tile{slot.key, share(ShareKey(arrangement, def.key, slot.key), slot.share),
                    slot.min_em * fs};
      // A strip gets its text height; the others share what is left.
      if (open->strip_lines > 0)
        tile.fixed = std::floor(open->strip_lines * ImGui::GetTextLineHeight() +
                                ImGui::GetStyle().WindowPadding.y * 2.0f);
      else if (slot.key == kept_.key)
        tile.fixed = kept_.height;
      else if (Folded(arrangement, tall_group, slot.key))  // its tab bar (or title bar) only
        tile.fixed = std::ceil(ImGui::GetFrameHeight() + ImGui::GetStyle().WindowPadding.y * 2.0f);
      column.slots.push_back(tile);
    }
    if (!column.slots.empty()) columns.push_back(std::move(column));
  }
  return columns;
}

// A double-click on a tab gives its group the whole column, or gives it back; a click on a tab of
// a group folded by another gives the column back too. Returns whether the double-click had closed
// the panel (and it was opened again).
bool PanelRegistry::TallOnDoubleClick(const std::string& group, Panel& panel) {
  std::string& tall = tall_group_;
  const bool double_click = ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left);
  // The first click brought the tab to the front, with its close button, which the second may hit
  // (the button acts on the release, when the click count is still known).
  if (!panel.open && ImGui::GetIO().MouseClickedLastCount[ImGuiMouseButton_Left] >= 2) {
    panel.open = true;
    front_tab_[group] = panel.name;
    tall = tall == group ? std::string() : group;
    return true;
  }
  if (!ImGui::IsItemHovered()) return false;
  if (double_click)
    tall = tall == group ? std::string() : group;
  else if (ImGui::IsMouseClicked(ImGuiMouseButton_Left) && FoldedNow(group))
    tall.clear();
  return false;
}

// Draws a row of tabs that does not hold `wanted`: each tab a button that brings its panel to the
// front (`clicked`: its name).
void PanelRegistry::DrawOtherTabRow(AppState& state, const std::string& group, const std::vector<std::size_t>& row,
                                    std::string& clicked) {
  if (!ImGui::BeginTabBar("##other panels", WholeNameTabBarFlags(Names(panels_, row, state), false))) return;
  for (std::size_t m : row) {
    if (ImGui::TabItemButton(TabTitle(panels_[m], state).c_str())) clicked = panels_[m].name;
    MarkLastItem(state.on_control, (std::string("panel tab ") + panels_[m].name).c_str());
    TallOnDoubleClick(group, panels_[m]);
  }
  ImGui::EndTabBar();
}

// Draws the row of tabs that holds `wanted` as the tab bar that selects the panel shown; returns
// the panel shown ("": none), and `reopened` whether a double-click reopened a closed panel.
std::string PanelRegistry::DrawFrontTabRow(AppState& state, const std::string& group, const std::vector<std::size_t>& row,
                                           const std::string& wanted, bool request, bool& reopened) {
  std::string shown;
  if (!ImGui::BeginTabBar("##panels", WholeNameTabBarFlags(Names(panels_, row, state), true))) return shown;
  for (std::size_t m : row) {
    Panel& panel = panels_[m];
    const ImGuiTabItemFlags flags = request && wanted == panel.name ? ImGuiTabItemFlags_SetSelected : 0;
    // Only the front tab has a close button: the others then need no room for one, and the
    // tabs of a narrow lecture-mode column keep their names.
    const bool front = shown_tab_.count(group) ? shown_tab_[group] == panel.name : m == row.front();
    const bool open = ImGui::BeginTabItem(TabTitle(panel, state).c_str(), front ? &panel.open : nullptr, flags);
    MarkLastItem(state.on_control, (std::string("panel tab ") + panel.name).c_str());
    reopened = TallOnDoubleClick(group, panel) || reopened;
    if (!open) continue;
    shown = panel.name;
    ImGui::EndTabItem();
  }
  ImGui::EndTabBar();
  return shown;
}

void PanelRegistry::DrawGroup(AppState& state, const Tile& tile, const std::vector<std::size_t>& members) {
  const std::string& group = tile.key;
  const std::string wanted = panels_[FrontMember(panels_, group, members, front_tab_, shown_tab_)].name;
  // A request (F1, the View menu) differs from what the tab bar showed last frame: select that
  // tab. ImGui switches on the next frame, so the request stands until the tab bar shows it.
  const bool request = !shown_tab_.count(group) || shown_tab_[group] != wanted;
  bool reopened = false;
  std::string shown, clicked;
  if (ImGui::Begin(group.c_str(), nullptr, kTileFlags | ImGuiWindowFlags_NoTitleBar)) {
    // Tabs that a large font would scroll out of view take two rows, each in its place: a click
    // on a tab never moves it (the row holding the front tab is the tab bar, the other row's tabs
    // bring their panel to the front).
    const std::vector<std::vector<std::size_t>> rows = WholeNameTabRows(Names(panels_, members, state), true);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      std::vector<std::size_t> row;
      for (std::size_t i : rows[r]) row.push_back(members[i]);
      ImGui::PushID(int(r));
      if (std::any_of(row.begin(), row.end(), [&](std::size_t m) { return panels_[m].name == wanted; })) {
        ImGui::PopID();  // the tab bar keeps one id, whichever row holds the front tab
        shown = DrawFrontTabRow(state, group, row, wanted, request, reopened);
        continue;
      }
      DrawOtherTabRow(state, group, row, clicked);
      ImGui::PopID();
    }
    // A child per panel, below every row of tabs: the tabs stay in place while the panel's
    // contents scroll. Folded to its tab bar, the group has no room for them.
    if (Panel* panel = shown.empty() ? nullptr : FindPanel(shown.c_str()); panel && !FoldedNow(group)) {
      if (ImGui::BeginChild(panel->name, ImVec2(0, 0), false, panel->flags)) panel->contents->Draw(state);
      ImGui::EndChild();
    }
  }
  ImGui::End();
  if (reopened) {
    shown_tab_.erase(group);  // ImGui moved on to another tab as it closed this one: select it again
    return;
  }
  if (shown.empty()) return;
  if (!request || shown == wanted) front_tab_[group] = clicked.empty() ? shown : clicked;
  shown_tab_[group] = shown;
}

bool PanelRegistry::GivenColumn(const char* name) const {
  if (tall_group_.empty()) return false;
  const SlotDef* slot = FindSlot(last_arrangement_, tall_group_);
  return slot && std::any_of(slot->members.begin(), slot->members.end(),
                             [name](const char* m) { return std::string(m) == name; });
}

// Whether group `group` shows only its tab bar, folded by the group given its column.
bool PanelRegistry::FoldedNow(const std::string& group) const {
  return group != kept_.key && Folded(last_arrangement_, tall_group_, group);
}

// Given their column, the Heads fold the column's other slots but one whose panel in front stays
// beside them (PanelContents::HeightBesideHeads: Next token showing a model's prediction): that
// slot keeps the height it needs, the Heads take the rest.
void PanelRegistry::KeepNextTokenBesideHeads(AppState& state, Arrangement arrangement) {
  kept_ = {};
  if (tall_group_ != "Heads") return;
  const ImGuiStyle& style = ImGui::GetStyle();
  const float chrome = ImGui::GetFrameHeight() + style.WindowPadding.y * 2.0f + style.ItemSpacing.y;
  for (const ColumnDef& column : Definition(arrangement))
    for (const SlotDef& slot : column.slots) {
      if (!Folded(arrangement, tall_group_, slot.key)) continue;
      std::vector<std::size_t> open;
      for (const char* name : slot.members)
        if (const Panel* p = FindPanel(name); p && p->open) open.push_back(std::size_t(p - panels_.data()));
      if (open.empty()) continue;
      Panel& front = panels_[FrontMember(panels_, slot.key, open, front_tab_, shown_tab_)];
      const float wanted = front.contents->HeightBesideHeads(state);
      if (wanted > 0.0f) kept_ = {slot.key, std::ceil(wanted + chrome)};
    }
}

// Raises a slot's minimum to the height its panel in front asks for (PanelContents::WantedHeight)
// where the column has that room beside its other slots' minimums; the shares share the rest.
void PanelRegistry::RaiseToWantedHeights(AppState& state, Arrangement arrangement, const Box& work,
                                         std::vector<TileColumn>& columns) {
  const Tiling tiling = TileArea(work, columns, Gap());
  const ImGuiStyle& style = ImGui::GetStyle();
  // Around the contents: the window's padding, the tab (or title) bar and the space under it.
  const float chrome = ImGui::GetFrameHeight() + style.WindowPadding.y * 2.0f + style.ItemSpacing.y;
  for (const Tile& tile : tiling.tiles) {
    TileColumn& column = columns[std::size_t(tile.column)];
    TileSlot& slot = column.slots[std::size_t(tile.slot)];
    std::vector<std::size_t> open;
    for (const char* name : FindSlot(arrangement, tile.key)->members)
      if (const Panel* p = FindPanel(name); p && p->open)
        open.push_back(std::size_t(p - panels_.data()));
    if (slot.fixed > 0 || open.empty()) continue;
    PanelContents& front =
        *panels_[FrontMember(panels_, tile.key, open, front_tab_, shown_tab_)].contents;
    float others = Gap() * float(column.slots.size() - 1);
    for (const TileSlot& s : column.slots)
      if (&s != &slot) others += s.fixed > 0.0f ? s.fixed : s.min;
    const float most = tiling.columns[std::size_t(tile.column)].h - others - chrome;
    const float wanted = front.WantedHeight(state, tile.box.w - style.WindowPadding.x * 2.0f, most);
    if (wanted > 0.0f && wanted <= most) slot.min = std::max(slot.min, std::ceil(wanted + chrome));
  }
}

void PanelRegistry::DrawPanels(AppState& state) {
  const Box work = WorkArea();
  EndLendWhenPanelLeaves(state.document.OpenCount());
  // Lecture mode only scales: the arrangement follows from the room left in font units.
  const Arrangement arrangement = state.ui.presenting ? Arrangement::Presenter
                                  : Narrow(work)      ? Arrangement::Compact
                                                      : Arrangement::Normal;
  KeepNextTokenBesideHeads(state, arrangement);
  std::vector<TileColumn> columns =
      Columns(arrangement, tall_group_, int(state.document.GetTrace().heads.size()));
  RaiseToWantedHeights(state, arrangement, work, columns);
  const Tiling tiling = TileArea(work, columns, Gap());
  last_arrangement_ = arrangement;
  placed_.clear();
  // Each tile's open members, in its tab order.
  std::vector<std::vector<std::size_t>> members(tiling.tiles.size());
  for (std::size_t t = 0; t < tiling.tiles.size(); ++t)
    for (const char* name : FindSlot(arrangement, tiling.tiles[t].key)->members)
      if (const Panel* p = FindPanel(name); p && p->open) members[t].push_back(std::size_t(p - panels_.data()));
  // In list order of the panel in front: each panel draws where the list puts it, tabbed or not.
  for (std::size_t i = 0; i < panels_.size(); ++i) {
    std::size_t t = 0;
    while (t < members.size() && std::find(members[t].begin(), members[t].end(), i) == members[t].end()) ++t;
    if (t == members.size()) continue;
    const Tile& tile = tiling.tiles[t];
    const bool group = FindSlot(arrangement, tile.key)->members.size() > 1;
    if (group && FrontMember(panels_, tile.key, members[t], front_tab_, shown_tab_) != i) continue;
    ImGui::SetNextWindowPos(ImVec2(tile.box.x, tile.box.y), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(tile.box.w, tile.box.h), ImGuiCond_Always);
    ImGui::SetNextWindowBgAlpha(PanelBackgroundAlpha(group ? tile.key.c_str() : panels_[i].name));
    PlacedWindow placed{group ? tile.key : panels_[i].name, {}, panels_[i].name, tile.box};
    for (std::size_t m : members[t]) placed.panels.push_back(panels_[m].name);
    placed_.push_back(std::move(placed));
    if (group) {
      DrawGroup(state, tile, members[t]);
      continue;
    }
    Panel& panel = panels_[i];
    if (ImGui::Begin(panel.name, &panel.open, panel.flags | kTileFlags)) panel.contents->Draw(state);
    ImGui::End();
  }
  DrawSplitters(arrangement, columns, tiling);
}

// The gaps between tiles belong to no window: a press there grabs the splitter, and each frame of
// the drag trades size between its two neighbours (the new shares persist).
void PanelRegistry::DrawSplitters(Arrangement arrangement, std::vector<TileColumn>& columns,
                                  const Tiling& tiling) {
  const ImGuiIO& io = ImGui::GetIO();
  const bool over_window = ImGui::IsWindowHovered(ImGuiHoveredFlags_AnyWindow) || ImGui::IsAnyItemActive();
  if (!ImGui::IsMouseDown(ImGuiMouseButton_Left)) dragging_ = -1;
  for (std::size_t i = 0; i < tiling.splitters.size(); ++i) {
    const Splitter& s = tiling.splitters[i];
    const bool hovered = !over_window && io.MousePos.x >= s.box.x && io.MousePos.x < s.box.Right() &&
                         io.MousePos.y >= s.box.y && io.MousePos.y < s.box.Bottom();
    if (hovered && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) dragging_ = int(i);
    const bool active = dragging_ == int(i);
    if (!hovered && !active) continue;
    ImGui::SetMouseCursor(s.vertical ? ImGuiMouseCursor_ResizeEW : ImGuiMouseCursor_ResizeNS);
    ImGui::GetBackgroundDrawList()->AddRectFilled(ImVec2(s.box.x, s.box.y),
                                                  ImVec2(s.box.Right(), s.box.Bottom()),
                                                  ImGui::GetColorU32(active ? ImGuiCol_SeparatorActive
                                                                            : ImGuiCol_SeparatorHovered));
    if (!active) continue;
    const float delta = s.vertical ? io.MouseDelta.x : io.MouseDelta.y;
    if (delta == 0) continue;
    DragSplitter(columns, tiling, s, delta);
    for (const TileColumn& column : columns) {
      shares_[ShareKey(arrangement, column.key)] = column.share;
      for (const TileSlot& slot : column.slots)
        if (slot.fixed <= 0) shares_[ShareKey(arrangement, column.key, slot.key.c_str())] = slot.share;
    }
  }
}

void PanelRegistry::ShowPanel(const char* name) {
  Panel* panel = FindPanel(name);
  if (!panel) return;
  panel->open = true;
  BringToFront(name);
}

// In every arrangement: the panel's tab is in front of whichever group holds it there.
void PanelRegistry::BringToFront(const char* name) {
  for (Arrangement a : {Arrangement::Normal, Arrangement::Compact, Arrangement::Presenter})
    for (const ColumnDef& column : Definition(a))
      for (const SlotDef& slot : column.slots)
        if (slot.members.size() > 1 &&
            std::any_of(slot.members.begin(), slot.members.end(), [name](const char* m) { return std::string(m) == name; }))
          front_tab_[slot.key] = name;
}

void PanelRegistry::GiveColumn(const char* name) {
  for (const ColumnDef& column : Definition(last_arrangement_))
    for (const SlotDef& slot : column.slots)
      if (std::any_of(slot.members.begin(), slot.members.end(), [name](const char* m) { return std::string(m) == name; }))
        tall_group_ = slot.key;
}

void PanelRegistry::LendColumn(const char* name) {
  const std::string tall_before = tall_group_;
  GiveColumn(name);
  const auto shown = shown_tab_.find(tall_group_);
  const std::string front_before = shown == shown_tab_.end() || shown->second == name ? "" : shown->second;
  lent_ = {tall_group_, name, tall_before, front_before};
}

bool PanelRegistry::ColumnLentTo(const char* name) const {
  return lent_.panel == name && tall_group_ == lent_.group && PanelInFront(name);
}

void PanelRegistry::GiveColumnBack() {
  if (lent_.panel.empty()) return;
  if (tall_group_ == lent_.group) tall_group_ = lent_.tall_before;
  if (!lent_.front_before.empty()) front_tab_[lent_.group] = lent_.front_before;
  lent_ = {};
}

// A lent column lasts while its panel is in front: another tab, closing it, a click on a folded
// tab (which gives the column back by itself) or another file ends it, so no panel stays folded
// after the guide.
void PanelRegistry::EndLendWhenPanelLeaves(int open_count) {
  if (lent_.panel.empty()) return;
  if (lent_.open_count < 0) lent_.open_count = open_count;
  if (tall_group_ != lent_.group) {
    lent_ = {};
    return;
  }
  if (open_count != lent_.open_count) {
    GiveColumnBack();
    return;
  }
  const Panel* panel = FindPanel(lent_.panel.c_str());
  const auto front = front_tab_.find(lent_.group);
  if (panel && panel->open && (front == front_tab_.end() || front->second == lent_.panel)) return;
  lent_.front_before.clear();  // the user chose what is in front now
  GiveColumnBack();
}

bool PanelRegistry::PanelInFront(const char* name) const {
  const Panel* panel = FindPanel(name);
  if (!panel || !panel->open) return false;
  for (const PlacedWindow& placed : placed_) {
    if (std::find(placed.panels.begin(), placed.panels.end(), name) == placed.panels.end()) continue;
    if (placed.window == name) return true;
    const auto it = front_tab_.find(placed.window);
    return it != front_tab_.end() && it->second == name;
  }
  return false;
}

std::map<std::string, bool> PanelRegistry::OpenPanels(bool lecture_mode) const {
  std::map<std::string, bool> open;
  for (const Panel& panel : panels_)
    open[panel.name] = lecture_mode && panel.hide_in_lecture ? panel.open_before_lecture : panel.open;
  return open;
}

void PanelRegistry::SetOpenPanels(const std::map<std::string, bool>& open) {
  for (Panel& panel : panels_)
    if (const auto it = open.find(panel.name); it != open.end()) panel.open = it->second;
}

}  // namespace attnlab::app
