#pragma once
/// The GL side of the heatmap widget (heatmap.cpp): large matrices drawn as one texture, rebuilt
/// only when their data, colour range or texel grid change.
#include <imgui.h>

#include "view/heatmap_pooling.h"
#include "widgets/heatmap_spec.h"

namespace attnlab::app {

/// Draws `spec`'s texture over [grid, end], first (re)building it when what it shows changed and
/// the frame's budget allows (never while `pending`: its range is not known yet). Returns false
/// when what it drew is an older texture (or nothing yet).
bool DrawHeatmapTexture(HeatmapContext& ctx, HeatmapTexture& tex, ImDrawList* dl, ImVec2 grid,
                        ImVec2 end, const HeatmapSpec& spec, const TexelGrid& texels,
                        const ColorScale& scale, bool pending);

}  // namespace attnlab::app
