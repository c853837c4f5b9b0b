#pragma once
/// The note a panel shows while the trace it draws is being recomputed off the UI thread.
#include "attnlab/trace.h"
#include "session/document.h"

namespace attnlab::app {

/// After Document::GetTrace(), if it is stale, a "computing..." note (the heatmaps of `shown`, the
/// previous trace, are drawn dimmed: HeatmapSpec::stale). Returns whether it is stale.
bool ComputingBadge(const Document& document, const attnlab::Trace& shown);
/// What a panel multiplies ImGui's alpha by to dim the numbers of a stale trace it writes out.
constexpr float kStaleAlpha = 0.45f;

}  // namespace attnlab::app
