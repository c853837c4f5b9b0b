#include "instruments/scripted_edit.h"

#include <cstdlib>

#include "panels/app_state.h"
#include "attnlab/edits.h"
#include "attnlab/model.h"

namespace attnlab::app {

namespace {

bool UndoOrRedo(AppState& state, const std::string& name, std::string* error) {
  const bool undo = name == "undo";
  if (undo ? !state.document.CanUndo() : !state.document.CanRedo()) {
    *error = "--test-edit " + name + ": nothing to " + name;
    return false;
  }
  if (undo)
    state.document.Undo();
  else
    state.document.Redo();
  return true;
}

bool ApplyOne(AppState& state, const std::string& spec, std::string* error) {
  if (spec == "undo" || spec == "redo") return UndoOrRedo(state, spec, error);
  const std::size_t eq = spec.find('=');
  const std::string name = spec.substr(0, eq);
  const std::string value = eq == std::string::npos ? std::string() : spec.substr(eq + 1);
  bool applied = false;
  if (name == "layout") {
    const attnlab::Layout other = state.document.GetScenario().layout == attnlab::Layout::rows
                                      ? attnlab::Layout::columns : attnlab::Layout::rows;
    applied = state.document.ApplyEdit("layout", [other](attnlab::Scenario& s) { attnlab::set_layout(s, other); });
  } else if (name == "heads" && !value.empty()) {
    const int heads = std::atoi(value.c_str());
    applied = state.document.ApplyEdit("heads", [heads](attnlab::Scenario& s) { attnlab::set_head_count(s, heads); });
  } else if (name == "scale" && !value.empty()) {
    const double scale = std::atof(value.c_str());
    applied = state.document.ApplyEdit("scale", [scale](attnlab::Scenario& s) { attnlab::set_scale(s, scale); });
  } else if (name == "x" && !value.empty()) {
    // X[0][0] as the Inputs panel's cell editor sets it (the one cell-edit path).
    const attnlab::CellEdit edit = attnlab::cell_edit_of("X", 0, 0, value);
    applied = state.document.ApplyEdit("X", [&edit](attnlab::Scenario& s) { attnlab::set_cell(s, edit); });
  } else if (name == "mask" && !value.empty()) {
    // Flips the explicit mask's cell (row VALUE, key 0), as a click in the Mask panel does.
    const int row = std::atoi(value.c_str());
    applied = state.document.ApplyEdit("mask", [row](attnlab::Scenario& s) { attnlab::toggle_mask_cell(s, row, 0); });
  } else if (name == "lesson" && value == "broken") {
    // A view.lesson the loader would refuse (no file can bring one in): the presenter's fallback.
    applied = state.document.ApplyEdit("view.lesson", [](attnlab::Scenario& s) {
      s.view["lesson"] = {{"steps", "broken"}};
    });
  } else {
    *error = "--test-edit: unknown edit '" + spec +
             "' (layout, heads=N, scale=S, x=V, mask=ROW, lesson=broken, undo, redo)";
    return false;
  }
  if (!applied) *error = "--test-edit " + spec + " refused: " + state.document.LastEditError().message;
  return applied;
}

}  // namespace

bool ApplyScriptedEdit(AppState& state, const std::string& spec, std::string* error) {
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = spec.find(',', start);
    if (!ApplyOne(state, spec.substr(start, comma - start), error)) return false;
    if (comma == std::string::npos) return true;
    start = comma + 1;
  }
}

}  // namespace attnlab::app
