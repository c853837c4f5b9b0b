#pragma once
/// Which matrices of a trace can be exported, their titles, axis labels, colour ranges and file
/// names. GUI-free, so the window's "Export all" and attnlab-cli produce the same set of files.
#include <optional>
#include <string>
#include <vector>

#include "attnlab/export/figure.h"
#include "attnlab/scenario.h"
#include "attnlab/trace.h"

namespace attnlab::exporter {

enum class Stage { X_pos, Q, K, V, Q_rot, K_rot, scores, scaled, bias, masked, weights, head_output, concat, output };

/// Every stage in pipeline order (some exist only with a positional feature: has_stage()).
const std::vector<Stage>& all_stages();
/// The stages `trace` has: X_pos with a positional encoding, Q_rot and K_rot with RoPE, bias with ALiBi.
bool has_stage(const Trace& trace, Stage stage);
/// CLI names: "X_pos", "Q", "K", "V", "Q_rot", "K_rot", "scores", "scaled", "bias", "masked", "weights",
/// "head_output", "concat", "output" ("output" is the final output; "head_output" each head's Y_h).
const char* stage_name(Stage stage);
std::optional<Stage> stage_from_name(const std::string& name);
/// True for the stages that exist once per head (all but X_pos, concat and output).
bool per_head(Stage stage);

/// File name without extension: "head2_weights" (heads counted from 1), "concat", "output".
std::string file_stem(Stage stage, int head);

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
HeatmapFigure stage_figure(const Scenario& scenario, const Trace& trace, Stage stage, int head,
                           const Colormaps& maps = {});

}  // namespace attnlab::exporter
