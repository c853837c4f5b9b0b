#include "instruments/cell_edit.h"

#include <cstdio>

#include "panels/app_state.h"
#include "panels/panel_requests.h"
#include "panels/panels.h"
#include "widgets/matrix_editor.h"

namespace attnlab::app {

bool ScriptedCellEdit::Parse(const std::string& spec, std::string* error) {
  try {
    edit_ = attnlab::parse_cell_edit(spec);
    return true;
  } catch (const attnlab::ScenarioError& e) {
    *error = e.what();
    return false;
  }
}

void ScriptedCellEdit::Attach(AppState& state, PanelRegistry& panels) {
  panels_ = &panels;
  state.before_matrix_editor = [this, &state](const MatrixEditorSpec& spec) { Offer(state.document, spec); };
}

void ScriptedCellEdit::BeforeFrame(AppState& state, bool now) {
  if (applied_) return;
  panels_->Request(state, EditorRequest{edit_.source()});
  now_ = now;
}

void ScriptedCellEdit::Offer(Document& document, const MatrixEditorSpec& spec) {
  if (!now_ || applied_ || spec.source != edit_.source()) return;
  now_ = false;
  // As a double-click and typing would.
  applied_ = CommitTypedCell(document, spec, edit_.row, edit_.col, edit_.value_text);
  if (!applied_)
    std::fprintf(stderr, "attnlab: --edit-cell refused: %s\n", document.LastEditError().message.c_str());
}

}  // namespace attnlab::app
