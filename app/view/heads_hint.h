#pragma once
/// The Heads panel's one-line reading guide (GUI-free): the shape of every head's weights, which
/// axis runs down, and with grouped-query attention which heads share a K/V head.
#include <string>

#include "attnlab/trace.h"
#include "view/stage_labels.h"

namespace attnlab::app {

/// "Attention weights of every head, 6×6 each, queries down, keys across. Click one to select
/// it; ..." then " Heads 1–2 share K/V head 1, heads 3–4 K/V head 2." with two K/V heads, or
/// " All 4 heads share one K/V head (multi-query)." with one.
std::string HeadsHint(const attnlab::Trace& trace, const AxisLabels& labels);

}  // namespace attnlab::app
