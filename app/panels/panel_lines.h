#pragma once
/// Lines panel: the layer's attention as lines (BertViz's head view), every head of the trace in
/// its colour, from each query on the left to each key on the right, opacity by weight
/// (widgets/attention_lines.h): a click on a head's swatch hides it, hovering a token keeps its
/// lines and writes their weights. Any scenario: self- or cross-attention, a model's layer.
#include <memory>

#include "panels/panel_contents.h"

namespace attnlab::app::panel_lines {

/// The panel, with the heads it hides.
std::unique_ptr<PanelContents> Make();

}  // namespace attnlab::app::panel_lines
