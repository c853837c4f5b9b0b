#pragma once
/// Tokens (a tab of the Inputs panel): self- or cross-attention, and the tokens of X and of Z:
/// edit labels, add, remove, move up and down, through the core's token edits (attnlab/edits.h).
#include <imgui.h>

#include "panels/app_state.h"

namespace attnlab::app::inputs_tokens {

/// What the token list keeps between frames (its owner, the Inputs panel, keeps it).
struct State {
  ImGuiID label_editing = 0;  ///< the label being typed: its keystrokes are one undo step
};

void Draw(AppState& state, State& self);

}  // namespace attnlab::app::inputs_tokens
