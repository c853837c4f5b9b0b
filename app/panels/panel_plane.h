#pragma once
/// Plane panel: the selected head's queries and keys as arrows in a plane (d_k = 2: the vectors
/// themselves; otherwise their projection onto the two principal axes, view/plane.h). Hovering a
/// query drops every key onto its direction, coloured by the pair's weight, and lists q . k and
/// the weights. When the queries and keys are the embeddings themselves (identity W_q and W_k,
/// d_model = 2), dragging a point moves its token's embedding, one drag one undo step.
#include <memory>

#include "panels/panel_contents.h"

namespace attnlab::app::panel_plane {

/// The panel, with what it keeps between frames.
std::unique_ptr<PanelContents> Make();

}  // namespace attnlab::app::panel_plane
