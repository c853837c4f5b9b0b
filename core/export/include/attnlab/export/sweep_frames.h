#pragma once
/// The figures of a parameter sweep (attnlab/sweep.h): one per frame and selected view, all of one
/// view the same size and in one colour range, so that they animate (a GIF) or line up (numbered
/// PNG or SVG frames).
#include <functional>
#include <string>
#include <vector>

#include "attnlab/export/figure.h"
#include "attnlab/export/views.h"
#include "attnlab/sweep.h"

namespace attnlab::exporter {

/// One animated figure: a stage and, for the per-head stages, a 0-based head.
struct SweepView {
  StageId stage = StageId::weights;
  int head = 0;
};

/// A GIF frame's delay, in hundredths of a second: 10 frames a second.
constexpr int kSweepFrameDelayCs = 10;

/// Frame by frame, in order: each frame's scenario (sweep_scenario) and its trace, computed once.
/// Throws ScenarioError when a frame's scenario does not compute.
void for_each_sweep_frame(const Scenario& scenario, const Sweep& sweep,
                          const std::function<void(int k, const Scenario& frame, const Trace& trace)>& on_frame);

/// What every frame of one view shares.
struct SweepPlan {
  /// Weights: [0, 1] as always. Signed stages: +-(the largest |finite value| over every frame),
  /// the union of the frames' own ranges, so a colour means the same value in every frame.
  ColorScale scale;
  /// The caller's style with min_cell, min_width and min_height set to the largest over the
  /// frames (titles carry the value and differ in width; values in cells may widen the cells).
  FigureStyle style;
};

/// Computes every frame's trace twice (colour ranges, then sizes) and returns one plan per view,
/// in the order of `views`. Each view must exist in the scenario (has_stage) for every frame.
/// Throws ScenarioError when a frame's scenario does not compute.
std::vector<SweepPlan> plan_sweep(const Scenario& scenario, const Sweep& sweep, const std::vector<SweepView>& views,
                                  const Colormaps& maps, const FigureStyle& style);

/// Frame k's figure of `view`: stage_figure of the frame's scenario and trace (sweep_scenario),
/// in the plan's colour range, the title followed by the value, e.g.
/// "Head 1 – attention weights (rows: queries) — scale = 0.354".
HeatmapFigure sweep_figure(const Scenario& frame_scenario, const Trace& frame_trace, const Sweep& sweep, int k,
                           const SweepView& view, const SweepPlan& plan, const Colormaps& maps);

/// One animated GIF per view, in the order of `views` (the file's bytes, looping, 10 frames a
/// second): every frame computed once and drawn for each view at `scale` (1 to 4) with its plan.
std::vector<std::string> sweep_gifs(const Scenario& scenario, const Sweep& sweep, const std::vector<SweepView>& views,
                                    const std::vector<SweepPlan>& plans, const Colormaps& maps, int scale);

/// " — scale = 0.354": what sweep_figure appends to frame k's title.
std::string sweep_title_suffix(const Sweep& sweep, int k);

/// File name of frame k without extension: "head1_weights_007" (three digits: up to 1000 frames).
std::string sweep_frame_stem(const SweepView& view, int k);

}  // namespace attnlab::exporter
