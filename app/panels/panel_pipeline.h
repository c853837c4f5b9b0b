#pragma once
/// Pipeline panel: the selected head's computation in order (Q, K, V; scores; scaled; masked;
/// weights; head output), then the concatenation of the heads, W_o and the final output.
#include <memory>

#include "panels/panel_contents.h"

namespace attnlab::app::panel_pipeline {

/// The panel, with what it keeps between frames.
std::unique_ptr<PanelContents> Make();

}  // namespace attnlab::app::panel_pipeline
