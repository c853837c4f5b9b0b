#pragma once
/// Tokens (a tab of the Inputs panel): self- or cross-attention, and the tokens of X and of Z:
/// edit labels, add, remove, move up and down, through the core's token edits (attnlab/edits.h).
#include "panels/app_state.h"

namespace attnlab::app::TokensPanel {

void Draw(AppState& state);

}  // namespace attnlab::app::TokensPanel
