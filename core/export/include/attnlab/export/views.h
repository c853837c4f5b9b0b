#pragma once
/// Which matrices of a trace can be exported, their titles, axis labels, colour ranges and file
/// names. GUI-free, so the window's "Export all" and attnlab-cli produce the same set of files.
#include <optional>
#include <string>
#include <vector>

#include "attnlab/export/figure.h"
#include "attnlab/scenario.h"
#include "attnlab/stage.h"
#include "attnlab/trace.h"

namespace attnlab::exporter {

/// The stages a figure shows are the rows of stage.h with a caption: exported_stages() in
/// pipeline order, has_stage() for those a trace has, stage_from_name() for the CLI's names.

/// File name without extension: "head2_weights" (heads counted from 1), "concat", "output".
std::string file_stem(StageId stage, int head);

/// Colormaps for weights (sequential, [0, 1]) and for signed matrices (diverging, +-max|x|).
struct Colormaps {
  Colormap sequential = Colormap::Viridis;
  Colormap diverging = Colormap::RdBu;
};
/// From a name: a sequential map pairs with its diverging partner (grayscale with gray-diverging);
/// a diverging name keeps viridis (rdbu) or grayscale (gray-diverging) for the weights.
std::optional<Colormaps> colormaps_from_name(const std::string& name);

/// The figure of `stage` (for head `head`, 0-based; ignored for concat and output), with the
/// scenario's token labels, in the scenario's layout.
HeatmapFigure stage_figure(const Scenario& scenario, const Trace& trace, StageId stage, int head,
                           const Colormaps& maps = {});

}  // namespace attnlab::exporter
