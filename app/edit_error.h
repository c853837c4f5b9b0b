#pragma once
/// The refusal message of an edit, shown beside the control that made it (issue 3).
#include "app_state.h"

namespace attnlab::app {

/// Draws AppState::EditErrorFor(source) in the error colour, wrapped; nothing when there is none.
void ShowEditError(const AppState& state, const char* source);

}  // namespace attnlab::app
