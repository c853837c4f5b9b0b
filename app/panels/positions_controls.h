#pragma once
/// Setup's controls for what 2017's attention did not have: key/value heads shared by groups of
/// query heads, where the tokens are (positions, sinusoidal encoding, RoPE and its scaling, ALiBi),
/// and QK-norm and the softcap.
#include "panels/app_state.h"

namespace attnlab::app {

/// A positions list while it is typed in (applied on Enter or when it loses focus).
struct PositionsField {
  char text[1024] = {};
  bool editing = false;
};
/// The queries' positions, the keys' in cross-attention, and ALiBi's slopes.
struct PositionsFields {
  PositionsField queries, keys, slopes, short_factors, long_factors;  ///< ..., LongRoPE's factors
};

/// One row of the Setup table: K/V heads G, the divisors of H, and the K/V cache a token costs.
void KvHeadsControl(AppState& state);
/// The Positions section: positions, encoding, RoPE with its style, base and dims, ALiBi with its
/// slopes. Each change is one undoable edit.
void PositionsSection(AppState& state, PositionsFields& fields);
/// The section of what the models after 2023 do to the logits: QK-norm (its scope and Gemma's
/// 1 + w) and the softcap (Gemma 2). Each change is one undoable edit.
void LogitsSection(AppState& state);

}  // namespace attnlab::app
