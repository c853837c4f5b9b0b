#pragma once
/// `--test-edit`: one edit applied through AppState::ApplyEdit, exactly as the Scenario panel's
/// controls apply it, so that tests can change a document without knowing where a control is.
#include <string>

namespace attnlab::app {

class AppState;

/// `spec`: "layout" (switch rows/columns), "heads=N" or "scale=S". Returns false with `error`
/// set when the spec is unknown or the edit is refused.
bool ApplyScriptedEdit(AppState& state, const std::string& spec, std::string* error);

}  // namespace attnlab::app
