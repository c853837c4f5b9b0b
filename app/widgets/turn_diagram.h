#pragma once
/// RoPE's turn of one coordinate pair, drawn: the pair before and after on a circle of its length,
/// the arc of the turn, and the numbers beside it (the Inspector, the Pipeline).
#include "view/inspector_math.h"

namespace attnlab::app {

/// Draws `t` (shown) as a diagram about seven lines of text tall, numbers with `decimals`.
void TurnDiagram(const RopeTurn& t, int decimals);

}  // namespace attnlab::app
