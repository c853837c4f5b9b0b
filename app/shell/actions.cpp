#include "shell/actions.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>

#include "attnlab/number_format.h"

#include "session/session.h"
#include "session/user_dirs.h"
#include "shell/commands.h"
#include "shell/dialogs.h"
#include "shell/guide.h"
#include "view/ui_scale.h"

namespace attnlab::app {
namespace {

KeyChord Key(int key) { return {key, false, false}; }
KeyChord Ctrl(int key) { return {key, true, false}; }
KeyChord CtrlShift(int key) { return {key, true, true}; }
KeyChord Shift(int key) { return {key, false, true}; }

Action& Add(std::vector<Action>& table, const char* label, const char* menu) {
  table.emplace_back();
  table.back().label = label;
  table.back().menu = menu;
  return table.back();
}

// File actions go through the app's dialogs (the "Save changes?" guard, files off the UI thread).
bool HasDialogs(const ActionContext& c) { return c.dialogs != nullptr; }

void OpenRecentMenu(ActionContext& c) {
  Session* session = c.state.session;
  if (!ImGui::BeginMenu("Open recent", session && !session->Recent().Files().empty())) return;
  std::string open;
  for (const std::string& path : session->Recent().Files()) {
    std::error_code ec;
    const bool exists = std::filesystem::exists(path, ec);
    const std::string name = std::filesystem::path(path).filename().string();
    if (ImGui::MenuItem(name.c_str(), nullptr, false, exists)) open = path;
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip("%s%s", path.c_str(), exists ? "" : "\n(no longer there)");
  }
  ImGui::Separator();
  if (ImGui::MenuItem("Clear list")) session->Recent().Clear();
  ImGui::EndMenu();
  if (!open.empty()) session->RequestOpen(open);
}

void OpenPresetMenu(ActionContext& c) {
  if (!ImGui::BeginMenu("Open preset", c.state.session && !c.state.presets.empty())) return;
  for (const PresetInfo& p : c.state.presets)
    if (ImGui::MenuItem(p.title.c_str())) c.state.session->RequestOpenPreset(p);
  ImGui::EndMenu();
}

void AddOpenSave(std::vector<Action>& t) {
  Action& open = Add(t, "Open...", "File");
  open.keys = {Ctrl(GLFW_KEY_O)};
  open.scope = KeyScope::NoDialog;
  open.help = "Open a scenario file";
  open.enabled = HasDialogs;
  open.run = [](ActionContext& c) { c.dialogs->ShowOpen(c.state); };
  Add(t, "Open recent", "File").draw = OpenRecentMenu;
  Add(t, "Open preset", "File").draw = OpenPresetMenu;
  Action& model = Add(t, "Open model...", "File");
  model.keys = {CtrlShift(GLFW_KEY_O)};
  model.scope = KeyScope::NoDialog;
  model.help = "Open a model folder (GPT-2, Llama, Qwen2; or drop it on the window)";
  model.enabled = [](const ActionContext& c) { return c.dialogs && c.state.models; };
  model.run = [](ActionContext& c) { c.dialogs->ShowOpenModel(c.state); };
  model.tooltip = [](ActionContext&) {
    ImGui::SetTooltip("A Hugging Face folder: config.json, model.safetensors, a tokenizer");
  };
  Action& save = Add(t, "Save", "File");
  save.separator_before = true;
  save.keys = {Ctrl(GLFW_KEY_S)};
  save.scope = KeyScope::NoDialog;
  save.help = "Save (a preset asks where to keep a copy)";
  save.enabled = HasDialogs;
  save.run = [](ActionContext& c) { c.dialogs->Save(c.state); };
  save.tooltip = [](ActionContext& c) {
    const Document& d = c.state.document;
    ImGui::SetTooltip("%s", d.path.empty() || d.is_preset ? "Asks where to save (presets stay read-only)"
                                                          : ("Writes " + d.path).c_str());
  };
  Action& save_as = Add(t, "Save as...", "File");
  save_as.keys = {CtrlShift(GLFW_KEY_S)};
  save_as.scope = KeyScope::NoDialog;
  save_as.help = "Save as";
  save_as.enabled = HasDialogs;
  save_as.run = [](ActionContext& c) { c.dialogs->ShowSaveAs(c.state); };
}

void AddUndoRedo(std::vector<Action>& t) {
  Action& undo = Add(t, "Undo", "Edit");
  undo.keys = {Ctrl(GLFW_KEY_Z)};
  undo.scope = KeyScope::Document;
  undo.repeat = true;
  undo.help = "Undo";
  undo.enabled = [](const ActionContext& c) { return c.state.document.CanUndo(); };
  undo.run = [](ActionContext& c) { c.state.document.Undo(); };
  Action& redo = Add(t, "Redo", "Edit");
  redo.keys = {CtrlShift(GLFW_KEY_Z), Ctrl(GLFW_KEY_Y)};
  redo.scope = KeyScope::Document;
  redo.repeat = true;
  redo.help = "Redo";
  redo.enabled = [](const ActionContext& c) { return c.state.document.CanRedo(); };
  redo.run = [](ActionContext& c) { c.state.document.Redo(); };
}

// Heads count from 0 (attnlab/numbering.h): key 0 selects head 0.
constexpr const char* kHeadLabels[] = {"Head 0", "Head 1", "Head 2", "Head 3", "Head 4",
                                       "Head 5", "Head 6", "Head 7", "Head 8", "Head 9"};

void AddHeadKeys(std::vector<Action>& t) {
  for (int k = 0; k < 10; ++k) {
    Action& head = Add(t, kHeadLabels[k], nullptr);
    head.keys = {Key(GLFW_KEY_0 + k)};
    head.scope = KeyScope::Document;
    if (k == 0) {
      head.help = "Select head";
      head.help_keys = "0 ... 9";
    }
    head.run = [k](ActionContext& c) { c.state.SelectHead(k); };
  }
  Action& previous = Add(t, "Previous head", nullptr);
  previous.keys = {Key(GLFW_KEY_LEFT_BRACKET)};
  previous.scope = KeyScope::Document;
  previous.repeat = true;
  previous.help = "Previous / next head";
  previous.help_keys = "[  ]";
  previous.run = [](ActionContext& c) { c.state.SelectHead(std::max(c.state.ui.selected_head - 1, 0)); };
  Action& next = Add(t, "Next head", nullptr);
  next.keys = {Key(GLFW_KEY_RIGHT_BRACKET)};
  next.scope = KeyScope::Document;
  next.repeat = true;
  next.run = [](ActionContext& c) {
    c.state.SelectHead(std::min(c.state.ui.selected_head + 1, c.state.document.HeadCount() - 1));
  };
}

void LectureScaleMenu(ActionContext& c) {
  if (!ImGui::BeginMenu("Lecture scale")) return;
  if (ImGui::MenuItem("Fit the window", nullptr, c.state.ui.lecture_scale == 0.0f))
    c.state.ui.lecture_scale = 0.0f;
  for (float s : {1.5f, 2.0f, 2.5f}) {
    char label[16];
    std::snprintf(label, sizeof label, "%.1fx", s);
    if (ImGui::MenuItem(label, nullptr, c.state.ui.lecture_scale == s)) c.state.ui.lecture_scale = s;
  }
  ImGui::EndMenu();
}

void ColormapMenu(ActionContext& c) {
  if (!ImGui::BeginMenu("Colormap")) return;
  struct Item {
    Colormap map;
    const char* label;
  };
  const Item items[] = {{Colormap::Viridis, "Viridis"},
                        {Colormap::Cividis, "Cividis (colour-blind safe)"},
                        {Colormap::Grayscale, "Grayscale (print)"}};
  for (const Item& item : items)
    if (ImGui::MenuItem(item.label, nullptr, c.state.ui.colormap == item.map))
      c.state.ui.colormap = item.map;
  ImGui::EndMenu();
}

void PrecisionMenu(ActionContext& c) {
  if (!ImGui::BeginMenu("Precision")) return;
  for (int d = attnlab::kMinDecimals; d <= attnlab::kMaxDecimals; ++d) {
    const std::string label = std::to_string(d) + (d == 1 ? " decimal" : " decimals");
    if (ImGui::MenuItem(label.c_str(), nullptr, c.state.ui.decimals == d)) c.state.ui.decimals = d;
  }
  ImGui::EndMenu();
}

// One decimal more or fewer in every number shown (heatmaps, Inspector, Single query, exports),
// as a spreadsheet's "increase decimal" buttons.
void AddPrecisionKeys(std::vector<Action>& t) {
  Action& more = Add(t, "More decimals", nullptr);
  more.keys = {Key(GLFW_KEY_PERIOD)};
  more.scope = KeyScope::Document;
  more.help = "More / fewer decimals (View > Precision)";
  more.help_keys = ".  ,";
  more.run = [](ActionContext& c) {
    c.state.ui.decimals = std::min(c.state.ui.decimals + 1, attnlab::kMaxDecimals);
  };
  Action& fewer = Add(t, "Fewer decimals", nullptr);
  fewer.keys = {Key(GLFW_KEY_COMMA)};
  fewer.scope = KeyScope::Document;
  fewer.run = [](ActionContext& c) {
    c.state.ui.decimals = std::max(c.state.ui.decimals - 1, attnlab::kMinDecimals);
  };
}

// A panel behind another tab comes to the front; one in front closes; a closed one opens.
void PanelItems(ActionContext& c) {
  for (Panel& panel : c.panels.List())
    if (panel.listed && ImGui::MenuItem(panel.name, nullptr, panel.open)) {
      if (c.panels.PanelInFront(panel.name))
        panel.open = false;
      else
        c.panels.ShowPanel(panel.name);
    }
}

// The window's height: what the lecture scale fits (view/ui_scale.h).
float WindowHeight() { return ImGui::GetIO().DisplaySize.y; }

void AddZoom(std::vector<Action>& t) {
  Action& in = Add(t, "Zoom in", "View");
  in.keys = {Ctrl(GLFW_KEY_EQUAL), Ctrl(GLFW_KEY_KP_ADD)};
  in.help = "Zoom in / out / back to 100% (also Ctrl+wheel)";
  in.help_keys = "Ctrl+=  Ctrl+-  Ctrl+0";
  in.run = [](ActionContext& c) { Zoom(c.state.ui, WindowHeight(), +1); };
  Action& out = Add(t, "Zoom out", "View");
  out.keys = {Ctrl(GLFW_KEY_MINUS), Ctrl(GLFW_KEY_KP_SUBTRACT)};
  out.run = [](ActionContext& c) { Zoom(c.state.ui, WindowHeight(), -1); };
  Action& reset = Add(t, "Actual size", "View");
  reset.keys = {Ctrl(GLFW_KEY_0), Ctrl(GLFW_KEY_KP_0)};
  reset.run = [](ActionContext& c) { Zoom(c.state.ui, WindowHeight(), 0); };
}

bool Presenting(const ActionContext& c) {
  return c.state.ui.presenting && !ImGui::IsPopupOpen(nullptr, ImGuiPopupFlags_AnyPopupId);
}

// `to` the step's index (the presenter clamps it to the lesson); a new step starts hidden.
void GoToStep(ActionContext& c, int to) {
  c.state.ui.presenter_step = std::max(0, to);
  c.state.ui.presenter_revealed = false;
  c.state.ui.presenter_hiding = false;
}

// A presenter key: only while presenting, never while typing or a dialog is up.
Action& AddStepKey(std::vector<Action>& t, const char* label, std::vector<KeyChord> keys) {
  Action& a = Add(t, label, nullptr);
  a.keys = std::move(keys);
  a.scope = KeyScope::Document;
  a.enabled = Presenting;
  return a;
}

void AddPresenter(std::vector<Action>& t) {
  Action& present = Add(t, "Present", "View");
  present.keys = {Key(GLFW_KEY_P)};
  present.scope = KeyScope::Document;
  present.help = "Present the lesson step by step";
  present.checked = [](const ActionContext& c) { return c.state.ui.presenting; };
  present.run = [](ActionContext& c) {
    c.state.ui.presenting = !c.state.ui.presenting;
    c.state.ui.presenter_revealed = false;
    // Beside the lesson, the inputs it is computed from: an edit shows in the step at once.
    if (c.state.ui.presenting) c.panels.BringToFront("Inputs");
  };
  Action& next = AddStepKey(t, "Next step", {Key(GLFW_KEY_RIGHT), Key(GLFW_KEY_SPACE), Key(GLFW_KEY_PAGE_DOWN)});
  next.repeat = true;
  next.help = "Presenter: next / previous step";
  next.help_keys = "Right Space PgDn / Left PgUp";
  // A clicker has Next and Back only: on a step still hiding its result, Next reveals it first.
  next.run = [](ActionContext& c) {
    if (c.state.ui.presenter_hiding)
      c.state.ui.presenter_revealed = true, c.state.ui.presenter_hiding = false;
    else
      GoToStep(c, c.state.ui.presenter_step + 1);
  };
  Action& back = AddStepKey(t, "Previous step", {Key(GLFW_KEY_LEFT), Key(GLFW_KEY_PAGE_UP)});
  back.repeat = true;
  back.run = [](ActionContext& c) { GoToStep(c, c.state.ui.presenter_step - 1); };
  Action& first = AddStepKey(t, "First step", {Key(GLFW_KEY_HOME)});
  first.help = "Presenter: first / last step";
  first.help_keys = "Home / End";
  first.run = [](ActionContext& c) { GoToStep(c, 0); };
  AddStepKey(t, "Last step", {Key(GLFW_KEY_END)}).run = [](ActionContext& c) { GoToStep(c, 1 << 20); };
  Action& reveal = AddStepKey(t, "Reveal", {Key(GLFW_KEY_R)});
  reveal.help = "Presenter: reveal a step's hidden result";
  reveal.run = [](ActionContext& c) { c.state.ui.presenter_revealed = true; };
  Action& leave = AddStepKey(t, "Leave the presenter", {Key(GLFW_KEY_ESCAPE)});
  leave.help = "Presenter: leave";
  leave.help_keys = "Esc";
  leave.run = [](ActionContext& c) { c.state.ui.presenting = false; };
}

void AddView(std::vector<Action>& t) {
  Action& lecture = Add(t, "Lecture mode", "View");
  lecture.keys = {Ctrl(GLFW_KEY_L), Key(GLFW_KEY_F11)};
  lecture.help = "Lecture mode";
  lecture.checked = [](const ActionContext& c) { return c.state.ui.lecture_mode; };
  lecture.run = [](ActionContext& c) { ToggleLectureMode(c.state, c.panels); };
  Add(t, "Lecture scale", "View").draw = LectureScaleMenu;
  AddPresenter(t);
  AddZoom(t);
  Add(t, "Colormap", "View").draw = ColormapMenu;
  Add(t, "Precision", "View").draw = PrecisionMenu;
  AddPrecisionKeys(t);
  Action& panels = Add(t, "Panels", "View");
  panels.separator_before = true;
  panels.draw = PanelItems;
  Action& reset = Add(t, "Reset layout", "View");
  reset.separator_before = true;
  reset.run = [](ActionContext& c) { c.panels.ResetLayout(); };
  Action& help = Add(t, "Guide and shortcuts", "Help");
  help.keys = {Key(GLFW_KEY_F1)};
  help.help = "Show this help";
  help.run = [](ActionContext& c) { ShowGuide(c.state, c.panels); };
}

void AddExportQuit(std::vector<Action>& t) {
  Action& export_all = Add(t, "Export all views...", "File");
  export_all.separator_before = true;
  export_all.enabled = HasDialogs;
  export_all.run = [](ActionContext& c) { c.dialogs->ShowExportAll(c.state); };
  for (int scale : {1, 2}) {
    Action& shot = Add(t, scale == 1 ? "Screenshot" : "Screenshot at 2x", "File");
    shot.keys = {scale == 1 ? Key(GLFW_KEY_F12) : Shift(GLFW_KEY_F12)};
    shot.scope = KeyScope::Platform;
    shot.help = scale == 1 ? "Screenshot of the window" : "Screenshot at 2x";
    shot.enabled = HasDialogs;
    shot.run = [scale](ActionContext& c) { c.dialogs->RequestScreenshot(scale); };
  }
  t.back().tooltip = [](ActionContext&) {
    ImGui::SetTooltip("Screenshots go to %s", PicturesDir().c_str());
  };
  // Drawn by the heatmaps' context menu (heatmap_export.h); listed so Help tells of it.
  Action& figure = Add(t, "Export a heatmap", nullptr);
  figure.help = "Export a heatmap (PNG, SVG, CSV, copy)";
  figure.help_keys = "Right-click";
  Action& quit = Add(t, "Quit", "File");
  quit.separator_before = true;
  quit.keys = {Ctrl(GLFW_KEY_Q)};
  quit.help = "Quit";
  quit.run = [](ActionContext& c) {  // asks first when there are unsaved changes
    if (c.state.session) c.state.session->RequestQuit();
  };
}

bool Enabled(const Action& a, const ActionContext& c) { return !a.enabled || a.enabled(c); }

// Printable keys: GLFW numbers them below its first function key.
bool TypesText(int key) { return key < GLFW_KEY_ESCAPE; }

}  // namespace

std::string ChordText(const KeyChord& chord) {
  std::string key;
  if (chord.key >= GLFW_KEY_F1 && chord.key <= GLFW_KEY_F25)
    key = "F" + std::to_string(chord.key - GLFW_KEY_F1 + 1);
  else if (TypesText(chord.key))
    key = std::string(1, static_cast<char>(chord.key));  // GLFW's printable codes are ASCII
  std::string text = chord.ctrl ? "Ctrl+" : "";
  if (chord.shift) text += "Shift+";
  return text + key;
}

ActionTable::ActionTable() {
  // Help lists the shortcuts in this order: files, editing, heads, view, screenshots, quit
  // (README.md lists them too; gui_Actions pins Help's rows).
  AddOpenSave(actions_);
  AddUndoRedo(actions_);
  AddHeadKeys(actions_);
  AddView(actions_);
  AddExportQuit(actions_);
}

bool ActionTable::Pressed(const KeyChord& chord, bool repeat) const {
  const ImGuiIO& io = ImGui::GetIO();
  if (!ImGui::IsKeyPressed(chord.key, repeat)) return false;
  // Ctrl+digit is no head, but function keys never cared about Ctrl.
  if (chord.ctrl ? !io.KeyCtrl : (io.KeyCtrl && TypesText(chord.key))) return false;
  // Shift tells two actions apart only where the table binds the key both ways (Ctrl+S and
  // Ctrl+Shift+S); elsewhere it is ignored.
  for (const Action& a : actions_)
    for (const KeyChord& k : a.keys)
      if (k.key == chord.key && k.ctrl == chord.ctrl && k.shift != chord.shift)
        return io.KeyShift == chord.shift;
  return true;
}

void ActionTable::HandleShortcuts(ActionContext& ctx) const {
  for (const Action& a : actions_) {
    if (a.keys.empty() || !a.run || a.scope == KeyScope::Platform) continue;
    // Asked per action, in table order: an action run this frame may open a dialog.
    if (a.scope == KeyScope::NoDialog && ImGui::IsPopupOpen(nullptr, ImGuiPopupFlags_AnyPopupId))
      continue;
    if (a.scope == KeyScope::Document &&
        (ImGui::GetIO().WantTextInput || (ctx.dialogs && ctx.dialogs->Blocking())))
      continue;
    // Each chord on its own (Ctrl+L and F11 in one frame toggle twice, as two presses would).
    for (const KeyChord& k : a.keys)
      if (Pressed(k, a.repeat) && Enabled(a, ctx)) a.run(ctx);
  }
}

void ActionTable::RunPlatformKey(ActionContext& ctx, const KeyChord& chord) const {
  for (const Action& a : actions_)
    for (const KeyChord& k : a.keys)
      if (a.scope == KeyScope::Platform && k.key == chord.key && k.ctrl == chord.ctrl &&
          k.shift == chord.shift && a.run && Enabled(a, ctx))
        return a.run(ctx);
}

std::vector<panel_help::ShortcutRow> ActionTable::HelpRows() const {
  std::vector<panel_help::ShortcutRow> rows;
  for (const Action& a : actions_) {
    if (!a.help) continue;
    if (a.help_keys) {
      rows.push_back({a.help_keys, a.help});
      continue;
    }
    for (const KeyChord& k : a.keys) rows.push_back({ChordText(k), a.help});
  }
  return rows;
}

}  // namespace attnlab::app
