#pragma once
/// One matrix of the computation as a heatmap, with its stage's token labels, axis names, formula
/// in the layout's notation, colour range and hover, as the Pipeline and the presenter show it.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "panels/app_state.h"
#include "view/hovered_cell.h"
#include "view/stage_labels.h"
#include "widgets/heatmap.h"

namespace attnlab::app {

struct StageMatrix {
  StageId stage = StageId::none;
  const char* title = "";
  const attnlab::Matrix* m = nullptr;
  std::uint64_t version = 0;  ///< of m's contents: textures and scans are cached on it
  bool weights = false;       ///< attention weights: [0, 1]; else signed, diverging over -m .. m
  const attnlab::BoolArray* allowed = nullptr;
  int col_band = 0, row_band = 0;
  bool stale = false;  ///< older than the trace (derived stages still to compute)
  int head = 0;        ///< 0-based; ignored by concat, W_o and output
};

/// Builds the widget's spec once so that its size can be asked before it is drawn (flow layout).
class StageHeatmap {
 public:
  /// `id_prefix` keeps two views of one matrix apart (their textures and scans).
  StageHeatmap(AppState& state, const StageMatrix& matrix, float cell, const char* id_prefix = "");
  StageHeatmap(const StageHeatmap&) = delete;
  StageHeatmap& operator=(const StageHeatmap&) = delete;

  HeatmapSpec& Spec() { return spec_; }
  ImVec2 Size() { return HeatmapSize(*state_.heatmaps, spec_); }
  /// Draws at the cursor; a hovered cell becomes the window's hovered cell (the Inspector's).
  HeatmapResult Draw();

 private:
  AppState& state_;
  AxisLabels labels_;
  std::string formula_, id_;
  HeatmapSpec spec_;
};

/// The d_k of `head` (the Q matrix's width in the rows layout, its height in the columns one).
int HeadDk(const attnlab::Scenario& s, const attnlab::HeadTrace& head);

}  // namespace attnlab::app
