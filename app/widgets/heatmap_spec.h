#pragma once
/// What the heatmap widget (heatmap.h) and its helpers (legend, marks, texture) share: the spec of
/// one heatmap, where it was drawn, and the window's heatmap state. Its own header so that the
/// helpers need not include the widget that includes them.
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <imgui.h>

#include "attnlab/colormap.h"
#include "attnlab/matrix.h"
#include "attnlab/number_format.h"
#include "view/frame_work.h"
#include "view/heatmap_scan.h"
#include "view/label_fit.h"
#include "view/hovered_cell.h"

namespace attnlab::app {

/// The grey of cells whose values are still to be guessed (HeatmapSpec::hidden).
constexpr Rgb8 kHiddenFill{92, 92, 100};

/// Matrices with more cells than this along either side are drawn as a texture.
constexpr int kTextureThreshold = 64;

struct HeatmapSpec {
  const char* id = "heatmap";                    ///< unique within the window
  const char* title = nullptr;                   ///< e.g. "weights"; the shape is appended
  const char* formula = nullptr;                 ///< e.g. "A = softmax(S)", drawn dim under it
  const attnlab::Matrix* values = nullptr;       ///< rows by cols; -inf marks a masked cell
  const std::vector<std::string>* row_labels = nullptr;
  const std::vector<std::string>* col_labels = nullptr;
  const char* row_axis = nullptr;                ///< what the rows are, e.g. "queries"
  const char* col_axis = nullptr;                ///< what the columns are, e.g. "keys"
  ColorScale scale;                              ///< always explicit: weights [0, 1]; with
                                                 ///< symmetric_range only its map is used
  bool symmetric_range = false;                  ///< signed data: the range is -m .. m, m the
                                                 ///< largest |finite value| (scanned once per
                                                 ///< data_version, within the frame's budget)
  const attnlab::BoolArray* allowed = nullptr;   ///< same shape; cells that are false here are
                                                 ///< drawn masked (weights of masked scores)
  int col_band = 0, row_band = 0;                ///< > 0: head boundary every n columns / rows
  float cell = 32.0f;                            ///< cell size in pixels (ChooseCellSize,
                                                 ///< FitCellSize); below 1, pooled
  bool labels = true;
  float label_max = 0;                           ///< longest token label in pixels (0: 7 font
                                                 ///< sizes); longer ones shortened in the middle
  float col_label_max = 0;                       ///< the column labels' own longest (0: label_max);
                                                 ///< the cell's width less 4 keeps them upright
  bool shape_in_title = true;                    ///< "weights  256x256" (small multiples: no)
  bool values_in_cells = true;
  float value_max = 0;  ///< largest (0: the mono font's): larger cells, larger numbers
  int decimals = attnlab::kDefaultDecimals;  ///< wanted in the cells (UiState::decimals); fewer
                                             ///< when they do not fit, integers always 0
  /// false: whole values too at `decimals` (FlashAttention's alpha, all 0 at the first tile,
  /// beside the fractions of m, l and O): "0.00" among "0.74", never a bare "0".
  bool integers_bare = true;
  bool legend = true;
  bool selected = false;                         ///< frame the grid (selected head)
  std::uint64_t data_version = 0;                ///< texture rebuilt when this changes;
                                                 ///< non-zero: whole-matrix scans are cached
  bool stale = false;                            ///< dimmed: a newer trace is being computed
  /// Predict, then reveal: the grid's shape and labels only, every cell a grey "?" (no colour,
  /// value, legend, hover or export gives the numbers away).
  bool hidden = false;
  bool masked_blank = false;  ///< masked cells print no value: they hold nothing (a cache's evicted rows)
  const std::vector<std::pair<int, int>>* outlined = nullptr;  ///< cells (row, col) to outline
  bool cell_tooltip = true;  ///< the hovered cell's value as a tooltip (false: the caller draws its own)
  StageId stage = StageId::none;                     ///< identifies the matrix for hover and dumps
  int head = -1;
};

/// Token labels as drawn: (index, text) of every label shown, shortened where room is short.
struct DrawnLabels {
  std::vector<std::pair<int, std::string>> rows, cols;
  /// Upright column labels: where each may lie (UprightLabelSpans); empty when turned.
  std::vector<UprightSpan> col_spans;
};

/// Where one heatmap drew its cells this frame (HeatmapContext::on_drawn), e.g. so that a pixel
/// test knows where to look.
struct HeatmapPlacement {
  std::string window;  ///< ImGui window the heatmap is in
  std::string id;
  StageId stage = StageId::none;
  int head = -1;
  int rows = 0, cols = 0;
  float x0 = 0, y0 = 0;  ///< top-left of cell (0, 0), in window coordinates (pixels / fb scale)
  float cell = 0;        ///< pitch between cells
  float gap = 0;         ///< background gap at the right/bottom of each cell
  float clip[4] = {0, 0, 0, 0};  ///< visible part: x0, y0, x1, y1
  bool values_drawn = false;     ///< numbers printed over the cells
  int decimals = 0;              ///< decimals of those numbers (when drawn)
  bool texture = false;          ///< drawn as a texture instead of rectangles
  bool hidden = false;           ///< every cell a grey "?" (HeatmapSpec::hidden)
  bool stale = false;            ///< dimmed: older numbers than the document's (HeatmapSpec::stale)
  float formula_right = 0;  ///< right end of the formula on its own line, as drawn; 0: none or on the title's line
  /// "none": every cell has its own pixels. Else (cell < 1) texel x of texels_w covers columns
  /// [x * cols / texels_w, (x + 1) * cols / texels_w), rows likewise, drawn one texel a pixel in
  /// the colour of the block's "max" (or "max_abs": farthest from 0) unmasked value.
  std::string pooling = "none";
  int texels_w = 0, texels_h = 0;
  std::string colormap;
  double lo = 0, hi = 1;
  std::vector<std::pair<int, std::string>> row_labels, col_labels;  ///< as drawn (DrawnLabels)
  std::string row_axis, col_axis;  ///< the axis names drawn ("queries", "keys", "d_k"), or ""
  struct Label {
    std::string text;
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;  ///< window coordinates, as x0, y0 above
  };
  std::vector<Label> band_labels;  ///< the heads' names over their bands of columns, as drawn
  std::vector<std::pair<int, int>> outlined;  ///< cells (row, col) drawn outlined (HeatmapSpec::outlined)
  float value_px = 0;  ///< the numbers' text size in pixels (when drawn)
};

/// One heatmap widget's texture and what it last drew with, kept while the widget is drawn.
struct HeatmapTexture {
  unsigned int id = 0;
  std::uint64_t key = 0;      ///< data, range and texel grid the texture shows
  int last_frame = 0;
  ColorScale scale;           ///< the range last drawn with: kept while a new scan waits
  bool has_scale = false;
  bool has_masked = false;    ///< the legend's masked swatch, likewise
};

/// The window's heatmap state: textures (keyed by widget id), cached scans, the frame's work
/// budget, and who is told where heatmaps were drawn.
struct HeatmapContext {
  std::unordered_map<ImGuiID, HeatmapTexture> textures;
  ScanCache scans;
  FrameWork work;
  /// When set, told where every heatmap drawn (the Mask grid's too) put its cells.
  std::function<void(const HeatmapPlacement&)> on_drawn;
  /// Contents of a heatmap's right-click menu (export, copy; heatmap_export.h), if any.
  std::function<void(const HeatmapSpec&)> context_menu;
  int frame = 0;
  int uploads = 0;             ///< textures uploaded so far (tests: nothing uploads when idle)

  void BeginFrame() {
    ++frame;
    work.BeginFrame();
  }
  /// Some heatmap still shows an older texture or range (the budget ran out): draw another frame.
  bool WorkDeferred() const { return work.Deferred(); }
  /// Frees textures and scans that were not used this frame (closed panel, matrix now small).
  void EndFrame();
  /// Frees everything; call while the GL context is still current.
  void Release();
};

}  // namespace attnlab::app
