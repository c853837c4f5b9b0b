#pragma once
/// The colour legend under a heatmap (heatmap.cpp) and the hatching of masked cells, which the
/// grid and the legend's "masked" swatch share.
#include <imgui.h>

#include "view/heatmap_pooling.h"
#include "widgets/heatmap_spec.h"

namespace attnlab::app {

/// A stand-alone colour legend (bar, range ticks, optional masked swatch) at the cursor.
void HeatmapLegend(const ColorScale& scale, float width, bool show_masked, int decimals);
/// Height of the legend: the colour bar, its ticks, and the masked swatch when `has_masked`.
float HeatmapLegendHeight(bool has_masked);
/// Draws the legend with its top-left at `at`, `width` wide, the range to `decimals` decimals.
void DrawHeatmapLegend(ImDrawList* dl, ImVec2 at, const ColorScale& scale, float width,
                       bool has_masked, int decimals);
/// Diagonal hatching of a masked cell [a, b].
void AddHatch(ImDrawList* dl, ImVec2 a, ImVec2 b);

}  // namespace attnlab::app
