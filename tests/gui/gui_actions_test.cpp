// The action table (app/shell/actions.h), without a window: what Help lists and what the keys are.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "shell/actions.h"

namespace attnlab::app {
namespace {

TEST(Actions, HelpListsEveryShortcutInItsOrder) {
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"Ctrl+O", "Open a scenario file"},
      {"Ctrl+Shift+O", "Open a model folder (GPT-2, Llama, Qwen2; or drop it on the window)"},
      {"Ctrl+S", "Save (a preset asks where to keep a copy)"},
      {"Ctrl+Shift+S", "Save as"},
      {"Ctrl+Z", "Undo"},
      {"Ctrl+Shift+Z", "Redo"},
      {"Ctrl+Y", "Redo"},
      {"0 ... 9", "Select head"},
      {"[  ]", "Previous / next head"},
      {"Ctrl+L", "Lecture mode"},
      {"F11", "Lecture mode"},
      {"P", "Present the lesson step by step"},
      {"Right Space PgDn / Left PgUp", "Presenter: next / previous step"},
      {"Home / End", "Presenter: first / last step"},
      {"R", "Presenter: reveal a step's hidden result"},
      {"Esc", "Presenter: leave"},
      {"Ctrl+=  Ctrl+-  Ctrl+0", "Zoom in / out / back to 100% (also Ctrl+wheel)"},
      {".  ,", "More / fewer decimals (View > Precision)"},
      {"F1", "Show this help"},
      {"F12", "Screenshot of the window"},
      {"Shift+F12", "Screenshot at 2x"},
      {"Right-click", "Export a heatmap (PNG, SVG, CSV, copy)"},
      {"Ctrl+Q", "Quit"},
  };
  const ActionTable table;
  std::vector<std::pair<std::string, std::string>> rows;
  for (const panel_help::ShortcutRow& r : table.HelpRows()) rows.emplace_back(r.keys, r.action);
  EXPECT_EQ(rows, expected);
}

TEST(Actions, NoTwoActionsShareAChord) {
  const ActionTable table;
  std::set<std::tuple<int, bool, bool>> seen;
  for (const Action& a : table.List())
    for (const KeyChord& k : a.keys)
      EXPECT_TRUE(seen.insert({k.key, k.ctrl, k.shift}).second) << a.label << ": " << ChordText(k);
}

TEST(Actions, MenusShowTheirFirstChord) {
  const ActionTable table;
  std::vector<std::pair<std::string, std::string>> shown;
  for (const Action& a : table.List())
    if (a.menu && !a.keys.empty()) shown.emplace_back(a.label, ChordText(a.keys.front()));
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"Open...", "Ctrl+O"},          {"Open model...", "Ctrl+Shift+O"},  {"Save", "Ctrl+S"},  {"Save as...", "Ctrl+Shift+S"},
      {"Undo", "Ctrl+Z"},             {"Redo", "Ctrl+Shift+Z"},
      {"Lecture mode", "Ctrl+L"},     {"Present", "P"},
      {"Zoom in", "Ctrl+="},
      {"Zoom out", "Ctrl+-"},         {"Actual size", "Ctrl+0"},
      {"Guide and shortcuts", "F1"},
      {"Screenshot", "F12"},          {"Screenshot at 2x", "Shift+F12"},
      {"Quit", "Ctrl+Q"},
  };
  EXPECT_EQ(shown, expected);
}

}  // namespace
}  // namespace attnlab::app
