#pragma once
/// `--test-edit`: one edit applied through AppState::ApplyEdit, exactly as the Scenario panel's
/// controls apply it, so that tests can change a document without knowing where a control is.
#include <string>

namespace attnlab::app {

class AppState;

/// `spec`: "layout" (switch rows/columns), "heads=N", "scale=S", "undo" or "redo" (as Ctrl+Z and
/// Ctrl+Y), or several of them separated by commas, applied in order. Returns false with `error`
/// set when a spec is unknown, an edit is refused or there is nothing to undo or redo.
bool ApplyScriptedEdit(AppState& state, const std::string& spec, std::string* error);

}  // namespace attnlab::app
