// A sweep's figures (sweep_frames.h): one colour range and one size per view over all frames.
#include "attnlab/export/sweep_frames.h"

#include <algorithm>
#include <cstdio>
#include <memory>

#include "attnlab/attention.h"
#include "attnlab/export/gif.h"

namespace attnlab::exporter {

void for_each_sweep_frame(const Scenario& scenario, const Sweep& sweep,
                          const std::function<void(int k, const Scenario& frame, const Trace& trace)>& on_frame) {
  for (int k = 0; k < sweep.frames; ++k) {
    const Scenario s = sweep_scenario(scenario, sweep, k);
    on_frame(k, s, compute(s));
  }
}

std::vector<SweepPlan> plan_sweep(const Scenario& scenario, const Sweep& sweep, const std::vector<SweepView>& views,
                                  const Colormaps& maps, const FigureStyle& style) {
  std::vector<SweepPlan> plans(views.size(), SweepPlan{{}, style});
  std::vector<double> max_abs(views.size(), 0.0);
  // Pass 1: each frame's own range (stage_figure's +-max|x|) and its natural cell side.
  for_each_sweep_frame(scenario, sweep, [&](int k, const Scenario& s, const Trace& trace) {
    for (std::size_t v = 0; v < views.size(); ++v) {
      const HeatmapFigure f = stage_figure(s, trace, views[v].stage, views[v].head, maps);
      if (k == 0) plans[v].scale = f.scale;  // weights keep [0, 1]; the map is the stage's
      max_abs[v] = std::max(max_abs[v], f.scale.hi);
      plans[v].style.min_cell = std::max(plans[v].style.min_cell, figure_layout(f, style).cell);
    }
  });
  for (std::size_t v = 0; v < views.size(); ++v)
    if (views[v].stage != StageId::weights) plans[v].scale = {plans[v].scale.map, -max_abs[v], max_abs[v]};
  // Pass 2: with the shared range and cell side, only the titles' widths still differ.
  std::vector<SweepPlan> sized = plans;
  for_each_sweep_frame(scenario, sweep, [&](int k, const Scenario& s, const Trace& trace) {
    for (std::size_t v = 0; v < views.size(); ++v) {
      const FigureLayout l = figure_layout(sweep_figure(s, trace, sweep, k, views[v], plans[v], maps), plans[v].style);
      sized[v].style.min_width = std::max(sized[v].style.min_width, l.width);
      sized[v].style.min_height = std::max(sized[v].style.min_height, l.height);
    }
  });
  return sized;
}

std::vector<std::string> sweep_gifs(const Scenario& scenario, const Sweep& sweep, const std::vector<SweepView>& views,
                                    const std::vector<SweepPlan>& plans, const Colormaps& maps, int scale) {
  std::vector<std::unique_ptr<GifEncoder>> gifs;
  for (const SweepPlan& plan : plans)
    gifs.push_back(std::make_unique<GifEncoder>(plan.style.min_width * scale, plan.style.min_height * scale,
                                                gif_palette(plan.scale.map, plan.style.transparent), kSweepFrameDelayCs,
                                                plan.style.transparent));
  for_each_sweep_frame(scenario, sweep, [&](int k, const Scenario& s, const Trace& trace) {
    for (std::size_t v = 0; v < views.size(); ++v)
      gifs[v]->add_frame(render_figure(sweep_figure(s, trace, sweep, k, views[v], plans[v], maps), plans[v].style, scale));
  });
  std::vector<std::string> bytes;
  for (auto& gif : gifs) bytes.push_back(gif->finish());
  return bytes;
}

std::string sweep_title_suffix(const Sweep& sweep, int k) {
  return " \xE2\x80\x94 " + sweep.param.text() + " = " + sweep_value_text(sweep, k);  // " — "
}

HeatmapFigure sweep_figure(const Scenario& frame_scenario, const Trace& frame_trace, const Sweep& sweep, int k,
                           const SweepView& view, const SweepPlan& plan, const Colormaps& maps) {
  HeatmapFigure f = stage_figure(frame_scenario, frame_trace, view.stage, view.head, maps);
  f.scale = plan.scale;
  f.title += sweep_title_suffix(sweep, k);
  return f;
}

std::string sweep_frame_stem(const SweepView& view, int k) {
  char digits[8];
  std::snprintf(digits, sizeof digits, "_%03d", k);
  return file_stem(view.stage, view.head) + digits;
}

}  // namespace attnlab::exporter
