#pragma once
/// Patching: activation patching between two prompts of the open model (session/patching_run.h).
/// A clean prompt (the Model text unless typed over) and a corrupt one of as many tokens, the answer
/// and the wrong token; their token counts, or the one line that refuses them. Run patches every
/// head and every layer x position with a progress bar and Cancel; then the logit differences of
/// both runs and two grids of the normalised effect, diverging from 0: layer x head (each head's
/// output z from the clean run) and layer x position (the residual stream entering the layer).
/// Hovering a cell says what was patched and its logit difference; clicking a head opens its layer
/// as the document with that head selected.
#include <memory>

#include "panels/panel_contents.h"

namespace attnlab::app::panel_patching {

std::unique_ptr<PanelContents> Make();

}  // namespace attnlab::app::panel_patching
