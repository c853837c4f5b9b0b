#pragma once
/// Tokens (a tab of the Inputs panel): self- or cross-attention, and the tokens of X and of Z:
/// edit labels, add, remove, move up and down. The token operations are plain functions on a
/// Scenario (the smoke test drives them too): embeddings, labels, explicit mask cells and padding
/// indices follow the tokens.
#include <string>
#include <vector>

#include <imgui.h>

#include "panels/app_state.h"

namespace attnlab::app::TokensPanel {

enum class Sequence { X, Z };  ///< queries' tokens, or the context's (cross-attention only)

/// Rebuilds the token axis of `seq`: new token i is old token order[i], or a new token (zero
/// embedding, label `new_label`, allowed by an explicit mask) where order[i] is -1. Tokens left
/// out are removed. Throws ScenarioError when no token would remain.
void ReorderTokens(attnlab::Scenario& s, Sequence seq, const std::vector<int>& order,
                   const std::string& new_label = "new");
void InsertToken(attnlab::Scenario& s, Sequence seq, int at);
void RemoveToken(attnlab::Scenario& s, Sequence seq, int index);
void MoveToken(attnlab::Scenario& s, Sequence seq, int index, int delta);
/// Cross: Z starts as a copy of X (labels too). Self: Z is dropped; refused when Z's width
/// differs from X's (W_k and W_v would not fit X).
void SetCrossAttention(attnlab::Scenario& s, bool cross);

/// What the token list keeps between frames (its owner, the Inputs panel, keeps it).
struct State {
  ImGuiID label_editing = 0;  ///< the label being typed: its keystrokes are one undo step
};

void Draw(AppState& state, State& self);

}  // namespace attnlab::app::TokensPanel
