#include "panels/panel_tiles.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <tuple>
#include <vector>

#include "attnlab/flash.h"
#include "attnlab/lesson.h"
#include "attnlab/number_format.h"
#include "panels/stage_heatmap.h"
#include "view/inspector_math.h"
#include "view/stage_labels.h"
#include "widgets/computing_badge.h"
#include "widgets/heatmap.h"
#include "widgets/heatmap_marks.h"
#include "widgets/heatmap_text.h"
#include "widgets/theme.h"
#include "widgets/tile_grid.h"
#include "widgets/timeline.h"

namespace attnlab::app::panel_tiles {
namespace {

using attnlab::FlashRun;
using attnlab::Matrix;

/// The panel shows heads up to this many scores (the run keeps every tile's state).
constexpr long kMaxCells = 128 * 128;

/// Colour ranges shared by every tile, so that a colour means the same number at every step:
/// m and O on a diverging map over +-max |finite value|, l over [0, max l].
struct Ranges {
  double m = 1, l = 1, O = 1;
};

Ranges RangesOf(const FlashRun& run) {
  Ranges r{0, 0, 0};
  for (const attnlab::FlashTile& t : run.tiles) {
    for (Eigen::Index i = 0; i < t.m.size(); ++i)
      if (std::isfinite(t.m(i))) r.m = std::max(r.m, std::abs(t.m(i)));
    r.l = std::max(r.l, t.l.maxCoeff());
    if (t.O.size()) r.O = std::max(r.O, t.O.cwiseAbs().maxCoeff());
  }
  for (double* x : {&r.m, &r.l, &r.O})
    if (!(*x > 0) || !std::isfinite(*x)) *x = 1;
  return r;
}

/// A cell size for a rows x cols grid in max_w x max_h that keeps the numbers in the cells of a
/// small matrix (up to 16 x 16: a class reads them; the panel scrolls rather than drop them).
float ReadableCell(int rows, int cols, float max_w, float max_h, int decimals) {
  const float cell = ChooseCellSize(rows, cols, max_w, max_h, decimals);
  return rows <= 16 && cols <= 16 ? std::max(cell, SmallestCellWithValues(decimals)) : cell;
}

/// The run of one (trace version, head, blocks), and the matrices drawn from it in the trace's
/// layout: recomputed only when one of those changes.
struct TilesView {
  FlashRun run;
  std::vector<attnlab::lesson::TileBox> boxes;  ///< the run's tiles on the scores, drawn every frame
  Matrix scores;    ///< the masked stage, as the trace lays it out
  std::string scores_title;  ///< what the scores are: "scores S″ (scaled, + ALiBi, masked)"
  Matrix finished;  ///< O / l, in the layout
  double max_difference = 0;  ///< max |finished - head output|
  Ranges ranges;
  std::vector<std::string> queries, keys;
};

class RunCache {
 public:
  /// Changes whenever the run is recomputed: the heatmaps' data versions derive from it.
  std::uint64_t Serial() const { return serial_; }

  const TilesView* Get(AppState& state, int head, int block_rows, int block_cols, std::string& why) {
    const std::uint64_t version = state.document.TraceVersion();
    if (version != version_ || head != head_ || block_rows != rows_ || block_cols != cols_) {
      version_ = version;
      head_ = head;
      rows_ = block_rows;
      cols_ = block_cols;
      ok_ = Compute(state, why_);
      ++serial_;
    }
    why = why_;
    return ok_ ? &view_ : nullptr;
  }

 private:
  bool Compute(AppState& state, std::string& why) {
    const attnlab::Trace& t = state.document.GetTrace();
    const attnlab::Scenario* s = state.document.TraceScenario();
    why.clear();
    if (!s || t.heads.empty()) return false;
    const attnlab::HeadTrace& h = t.heads[std::size_t(head_)];
    if (long(h.scores.size()) > kMaxCells) {
      why = "The Tiles view steps through heads of up to " + std::to_string(kMaxCells) + " scores; this one has " +
            std::to_string(h.scores.rows()) + " x " + std::to_string(h.scores.cols()) + ".";
      return false;
    }
    try {
      view_.run = attnlab::flash_attention(t, head_, rows_, cols_);
    } catch (const std::exception& e) {
      why = e.what();
      return false;
    }
    view_.boxes = attnlab::lesson::tile_boxes(view_.run);
    t.masked_into(std::size_t(head_), view_.scores);
    view_.scores_title = std::string("scores S\xE2\x80\xB3 (scaled") + (t.has_bias() ? ", + ALiBi" : "") +
                         (s->mask.empty() ? ")" : ", masked)");
    view_.ranges = RangesOf(view_.run);
    const bool rows = t.layout == attnlab::Layout::rows;
    view_.finished = rows ? view_.run.output : Matrix(view_.run.output.transpose());
    view_.max_difference = (view_.finished - h.output).cwiseAbs().maxCoeff();
    view_.queries = QueryTokenLabels(*s);
    view_.keys = KeyTokenLabels(*s);
    return true;
  }

  std::uint64_t version_ = ~std::uint64_t{0}, serial_ = 0;
  int head_ = -1, rows_ = 0, cols_ = 0;
  bool ok_ = false;
  std::string why_;
  TilesView view_;
};

bool RowsLayout(const FlashRun& run) { return run.layout == attnlab::Layout::rows; }

/// The state of the current tile's query block as matrices in the layout: m, l, alpha along the
/// queries (a column in the rows layout, a row in the columns layout) and O.
struct BlockMatrices {
  Matrix m, l, alpha, O;
  std::vector<std::string> queries, width, blank;  ///< blank: an empty label per query
  bool o_below = false;  ///< O under m, l and alpha (narrow room) rather than beside them
};

BlockMatrices Block(const TilesView& v, const attnlab::FlashTile& t) {
  const bool rows = RowsLayout(v.run);
  const auto along = [rows](const attnlab::Vector& x) { return rows ? Matrix(x) : Matrix(x.transpose()); };
  BlockMatrices b{along(t.m), along(t.l), along(t.alpha), rows ? t.O : Matrix(t.O.transpose()), {}, {}, {}};
  for (Eigen::Index i = 0; i < t.rows; ++i)
    b.queries.push_back(std::size_t(t.row0 + i) < v.queries.size() ? v.queries[std::size_t(t.row0 + i)]
                                                                    : std::to_string(t.row0 + i));
  b.width = IndexLabels(int(t.O.cols()));
  b.blank.assign(b.queries.size(), "");
  return b;
}

/// The query (0-based, whole sequence) and O's column a hovered cell of a block matrix names.
struct BlockCell {
  Eigen::Index query = -1, col = 0;
};

BlockCell Hovered(const FlashRun& run, const attnlab::FlashTile& t, const HeatmapResult& r) {
  if (!r.hovered) return {};
  const bool rows = RowsLayout(run);
  return {t.row0 + (rows ? r.row : r.col), rows ? r.col : r.row};
}

/// What the Inspector explains for a cell of the loop's state after tile `step`.
HoveredCell TileHover(const FlashRun& run, int step, TileValue what, Eigen::Index query, Eigen::Index col) {
  HoveredCell cell;
  cell.head = run.head;
  cell.tile = {what, step, run.block_rows, run.block_cols, int(query), int(col)};
  return cell;
}

/// One small heatmap of the block's state (m, l, alpha or O).
HeatmapSpec StateSpec(AppState& state, const TilesView& v, const char* id, const char* title,
                      const Matrix& m, const BlockMatrices& b, TileValue what, ColorScale scale,
                      float cell, std::uint64_t version) {
  const bool rows = RowsLayout(v.run);
  static const std::vector<std::string> kNone{""};
  const std::vector<std::string>& along = what == TileValue::O ? b.width : kNone;
  HeatmapSpec spec;
  spec.id = id;
  spec.title = title;
  spec.values = &m;
  spec.row_labels = rows ? &b.queries : &along;
  spec.col_labels = rows ? &along : &b.queries;
  spec.scale = scale;
  spec.cell = cell;
  spec.value_max = GrowingValueMax(cell);
  spec.decimals = state.ui.decimals;
  spec.integers_bare = false;  // a block's state at one format, whatever its values
  spec.legend = false;
  // Every one with a row of column labels (m, l and alpha an empty one), so that their rows line up
  // with m's and O's; the query labels once, left of m.
  spec.labels = true;
  if (rows && what != TileValue::m && !(what == TileValue::O && b.o_below)) spec.row_labels = &b.blank;
  spec.shape_in_title = false;
  spec.cell_tooltip = false;
  spec.data_version = version;
  return spec;
}

/// m, l, alpha and O of the current tile's query block (pointing into `b`), in drawing order.
std::vector<std::pair<HeatmapSpec, TileValue>> StateSpecs(AppState& state, const TilesView& v,
                                                          const BlockMatrices& b, float cell,
                                                          std::uint64_t version) {
  const Ranges& range = v.ranges;
  const Colormap cm = state.ui.colormap, diverging = attnlab::DivergingFor(cm);
  return {
      {StateSpec(state, v, "tiles_m", "m", b.m, b, TileValue::m, {diverging, -range.m, range.m},
                 cell, version),
       TileValue::m},
      {StateSpec(state, v, "tiles_l", "l", b.l, b, TileValue::l, {cm, 0.0, range.l}, cell, version),
       TileValue::l},
      {StateSpec(state, v, "tiles_alpha", "\xCE\xB1", b.alpha, b, TileValue::alpha,
                 WeightsScale(cm), cell, version),
       TileValue::alpha},
      {StateSpec(state, v, "tiles_O", "O (unnormalised)", b.O, b, TileValue::O,
                 {diverging, -range.O, range.O}, cell, version),
       TileValue::O}};
}

BlockMatrices BlockOf(const TilesView& v, int step, bool o_below) {
  BlockMatrices b = Block(v, v.run.tiles[std::size_t(step)]);
  b.o_below = RowsLayout(v.run) && o_below;
  return b;
}

/// The block's cell in max_w x max_h: room for m, l, alpha and O side by side (or O under them),
/// and the columns of token labels.
float StateCell(const TilesView& v, int step, bool o_below, float max_w, float max_h,
                int decimals) {
  const BlockMatrices b = BlockOf(v, step, o_below);
  const bool rows = RowsLayout(v.run);
  const int across =
      b.o_below ? std::max(3, int(b.O.cols())) + 2 : int(b.O.cols()) + (rows ? 6 : 2);
  return ReadableCell(int(b.O.rows()), across, max_w, max_h, decimals);
}

/// The whole size of the block's state, side by side, at `cell`.
ImVec2 BlockSize(AppState& state, const TilesView& v, int step, float cell) {
  const BlockMatrices b = BlockOf(v, step, false);
  ImVec2 size(-ImGui::GetStyle().ItemSpacing.x, 0.0f);
  for (const auto& [spec, what] : StateSpecs(state, v, b, cell, 0)) {
    const ImVec2 s = HeatmapSize(*state.heatmaps, spec);
    size = ImVec2(size.x + s.x + ImGui::GetStyle().ItemSpacing.x, std::max(size.y, s.y));
  }
  return size;
}

/// m, l and alpha of the current tile's query block, then its unnormalised O, side by side (or O
/// under them); a hovered cell has the Inspector write its rescale out.
void BlockState(AppState& state, const TilesView& v, int step, std::uint64_t version, float cell,
                bool o_below) {
  const BlockMatrices b = BlockOf(v, step, o_below);
  const bool rows = RowsLayout(v.run);
  ImGui::BeginGroup();
  for (const auto& [spec, what] : StateSpecs(state, v, b, cell, version)) {
    if (what != TileValue::m && rows && !(what == TileValue::O && b.o_below)) ImGui::SameLine();
    const HeatmapResult r = Heatmap(*state.heatmaps, spec);
    const BlockCell c = Hovered(v.run, v.run.tiles[std::size_t(step)], r);
    if (c.query >= 0) state.ui.hover.Report(TileHover(v.run, step, what, c.query, c.col));
  }
  ImGui::EndGroup();
}

/// One of the panel's matrices as a stage heatmap of head `head`, without a colour legend; its
/// numbers grow with its cells.
struct PanelMatrix {
  StageId stage;
  const char* title;
  const Matrix& m;
  const char* id;
};

HeatmapResult DrawMatrix(AppState& state, const PanelMatrix& pm, int head, std::uint64_t version,
                         float cell, bool measure_only = false, ImVec2* size = nullptr) {
  StageMatrix mv;
  mv.stage = pm.stage;
  mv.title = pm.title;
  mv.m = &pm.m;
  mv.version = version;
  mv.head = head;
  StageHeatmap heatmap(state, mv, cell, pm.id);
  heatmap.Spec().legend = false;
  heatmap.Spec().value_max = GrowingValueMax(cell);
  if (size) *size = heatmap.Size();
  return measure_only ? HeatmapResult{} : heatmap.Draw();
}

ImVec2 MatrixSize(AppState& state, const PanelMatrix& pm, int head, float cell) {
  ImVec2 size;
  DrawMatrix(state, pm, head, 0, cell, true, &size);
  return size;
}

PanelMatrix Scores(const TilesView& v) {
  return {StageId::masked, v.scores_title.c_str(), v.scores, "tiles_"};
}
PanelMatrix FinishedO(const TilesView& v) {
  return {StageId::head_output, "O / l after the last tile", v.finished, "tiles_finished_"};
}

/// The masked scores of the head with the tile grid over them.
void ScoresWithGrid(AppState& state, const TilesView& v, int head, int step, std::uint64_t version,
                    float cell) {
  const HeatmapResult r = DrawMatrix(state, Scores(v), head, version, cell);
  DrawTileGrid(v.boxes, std::size_t(step), r.grid, cell);
  if (!r.hovered) return;
  // A score of the current tile: the Inspector writes out what it adds in this step.
  const attnlab::FlashTile& t = v.run.tiles[std::size_t(step)];
  const bool rows = RowsLayout(v.run);
  const Eigen::Index query = rows ? r.row : r.col, key = rows ? r.col : r.row;
  if (query < t.row0 || query >= t.row0 + t.rows || key < t.col0 || key >= t.col0 + t.cols) return;
  HoveredCell hovered = TileHover(v.run, step, TileValue::score, query, key);
  hovered.stage = StageId::masked;
  hovered.row = r.row;
  hovered.col = r.col;
  state.ui.hover.Report(hovered);
}

/// The finished O / l beside the Pipeline's head output, and whether they are equal.
void Finished(AppState& state, const TilesView& v, int head, std::uint64_t version, float cell) {
  const attnlab::Trace& t = state.document.GetTrace();
  const Matrix& Y = t.heads[std::size_t(head)].output;
  DrawMatrix(state, FinishedO(v), head, version, cell);
  ImGui::SameLine(0.0f, ImGui::GetFontSize() * 1.5f);
  DrawMatrix(state, {StageId::head_output, "head output (Pipeline)", Y, "tiles_pipeline_"}, head,
             version, cell);
  const bool equal = v.max_difference <= 1e-12 * std::max(1.0, Y.cwiseAbs().maxCoeff());
  char difference[32];
  std::snprintf(difference, sizeof difference, "%.2g", v.max_difference);
  const std::string line =
      std::string(equal ? "Equal" : "Different") + ": max |O/l \xE2\x88\x92 head output| = " + difference;
  ImGui::TextUnformatted(line.c_str());
  MarkLastItem(state.on_control, ("text:" + line).c_str());
}

/// Room to spare beside the scores (a large window, a projector): the scores at the left, the
/// block's state and the finished O / l with the head output under it at the right, at one cell,
/// the largest at which both sides fit in `room` (up to GrowingCellMax), or 0 when not even the
/// smallest cell with numbers does.
float FilledCell(AppState& state, const TilesView& v, int head, int step, ImVec2 room) {
  const float fs = ImGui::GetFontSize(), line = ImGui::GetTextLineHeightWithSpacing();
  const auto fits = [&](float cell) {
    const ImVec2 scores = MatrixSize(state, Scores(v), head, cell),
                 block = BlockSize(state, v, step, cell);
    const ImVec2 finished = MatrixSize(state, FinishedO(v), head, cell);
    const float right_w = std::max(block.x, finished.x * 2.0f + fs * 1.5f);
    const float right_h = block.y + ImGui::GetStyle().ItemSpacing.y + finished.y + line;
    return scores.x + fs + right_w <= room.x && scores.y <= room.y && right_h <= room.y;
  };
  float lo = SmallestCellWithValues(state.ui.decimals), hi = GrowingCellMax();
  if (!fits(lo)) return 0.0f;
  while (hi - lo > 1.0f) {
    const float mid = std::floor((lo + hi) * 0.5f);
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

/// Block sizes, the selected head, and the timeline of tiles.
struct Stepper {
  int block_rows = 2, block_cols = 2;

  void Blocks(AppState& state) {
    const float fs = ImGui::GetFontSize();
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Block Br");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(fs * 5.5f);
    if (ImGui::InputInt("##br", &block_rows, 1, 1)) block_rows = std::clamp(block_rows, 1, 4096);
    MarkLastItem(state.on_control, "tiles_br");
    ImGui::SameLine();
    ImGui::TextUnformatted("\xC3\x97 Bc");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(fs * 5.5f);
    if (ImGui::InputInt("##bc", &block_cols, 1, 1)) block_cols = std::clamp(block_cols, 1, 4096);
    MarkLastItem(state.on_control, "tiles_bc");
    const int heads = state.document.HeadCount();
    if (heads <= 1) return;
    ImGui::SameLine();
    ImGui::TextUnformatted("Head");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(fs * 5.5f);
    int head = state.ui.selected_head;  // the Pipeline's selection, counted from 0
    if (ImGui::InputInt("##head", &head, 1, 1)) state.SelectHead(std::clamp(head, 0, heads - 1));
  }

  /// The timeline over the run's tiles, 1-based as the slider shows them; returns the 0-based step.
  int Steps(AppState& state, int count) {
    TimelineSpec spec;
    spec.id = "tiles";
    spec.first = 1;
    spec.last = count;
    spec.format = "tile %d of " + std::to_string(count);
    spec.marks = "tiles_";
    spec.keys = !state.ui.presenting;  // while presenting, the keys step the lesson
    if (timeline.Draw(spec, state.on_control)) state.ui.animating = true;  // the shell draws frames while set
    return timeline.Step() - 1;
  }

  Timeline timeline;
};

/// "Tile 3 of 16: (1, 0), queries 2-3, keys 0-1. Skipped 6 of 16 tiles."
std::string StatusLine(const FlashRun& run, int step) {
  const attnlab::FlashTile& t = run.tiles[std::size_t(step)];
  const auto range = [](Eigen::Index a, Eigen::Index n) {
    return n == 1 ? std::to_string(a) : std::to_string(a) + "\xE2\x80\x93" + std::to_string(a + n - 1);
  };
  return "Tile " + std::to_string(step + 1) + " of " + std::to_string(run.tiles.size()) + ": (" +
         std::to_string(t.q_block) + ", " + std::to_string(t.k_block) + "), queries " + range(t.row0, t.rows) +
         ", keys " + range(t.col0, t.cols) + (t.skipped ? ", skipped (all masked)" : "") + ".  Skipped " +
         std::to_string(run.skipped) + " of " + std::to_string(run.tiles.size()) + " tiles.";
}

void Text(const AppState& state, const std::string& text) {
  ImGui::TextWrapped("%s", text.c_str());
  MarkLastItem(state.on_control, ("text:" + text).c_str());
}

/// The width of a column of query labels (the axis name "queries" over it included).
float LabelsWidth(const std::vector<std::string>& labels) {
  float w = ImGui::CalcTextSize("queries").x;
  for (const std::string& l : labels) w = std::max(w, ImGui::CalcTextSize(l.c_str()).x);
  return w + ImGui::GetFontSize() * 0.5f;
}

class TilesPanel final : public PanelContents {
 public:
  void Draw(AppState& state) override;

 private:
  float Filled(AppState& state, const TilesView& v, int head, int step, ImVec2 room);

  Stepper stepper_;
  RunCache cache_;
  // FilledCell's answer (a search laying every figure out a dozen times), searched again only
  // when what it depends on changes: the run (trace, head, blocks), the step, the room, the font
  // and the decimals.
  std::tuple<std::uint64_t, int, float, float, float, int> filled_key_{~std::uint64_t{0}, 0, 0, 0, 0, 0};
  float filled_ = 0;
};

}  // namespace

float TilesPanel::Filled(AppState& state, const TilesView& v, int head, int step, ImVec2 room) {
  const auto key = std::make_tuple(cache_.Serial(), step, room.x, room.y, ImGui::GetFontSize(), state.ui.decimals);
  if (key == filled_key_) return filled_;
  filled_key_ = key;
  filled_ = FilledCell(state, v, head, step, room);
  return filled_;
}

void TilesPanel::Draw(AppState& state) {
  const attnlab::Trace& trace = state.document.GetTrace();
  if (trace.heads.empty()) return;
  stepper_.Blocks(state);
  const int head = std::clamp(state.ui.selected_head, 0, int(trace.heads.size()) - 1);
  std::string why;
  const TilesView* view = cache_.Get(state, head, stepper_.block_rows, stepper_.block_cols, why);
  const bool stale = ComputingBadge(state.document, trace);
  if (!view) {
    if (!why.empty()) Text(state, why);
    return;
  }
  const int step = stepper_.Steps(state, int(view->run.tiles.size()));
  if (stale) ImGui::PushStyleVar(ImGuiStyleVar_Alpha, ImGui::GetStyle().Alpha * kStaleAlpha);
  Text(state, StatusLine(view->run, step));
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float fs = ImGui::GetFontSize();
  const std::uint64_t run_version = cache_.Serial() << 20;  // the run's heatmaps; + the step for its state
  // m, l, alpha and O beside the scores when both show their numbers side by side; else O under
  // m, l and alpha beside the scores (a projector: the class sees the tile and its state at once);
  // else all of them under the scores.
  const float smallest = SmallestCellWithValues(state.ui.decimals), gap = fs;
  const long d_v = view->run.output.cols();
  const float labels_w = LabelsWidth(view->queries);
  const float state_w = float(d_v + 3) * smallest + labels_w + fs * 4.0f;
  const float stacked_w = float(std::max(3L, d_v)) * smallest + labels_w + fs * 0.5f;
  const float scores_w = float(view->scores.cols()) * smallest + labels_w + fs * 0.5f;
  const bool beside = scores_w + state_w + gap <= avail.x;
  const bool stacked = !beside && RowsLayout(view->run) && scores_w + stacked_w + gap <= avail.x;
  const float right_w = beside ? state_w : stacked ? stacked_w : 0.0f;
  const std::uint64_t state_version = run_version + std::uint64_t(step) + 1;
  const int d = state.ui.decimals;
  const float scores_cell = ReadableCell(int(view->scores.rows()), int(view->scores.cols()),
                                         right_w > 0 ? avail.x - right_w - gap : avail.x,
                                         std::max(fs * 6.0f, avail.y * 0.5f), d);
  const Matrix& Y = trace.heads[std::size_t(head)].output;
  const float finished_cell =
      ReadableCell(int(Y.rows()), int(Y.cols()) * 2, avail.x, avail.y * 0.3f, d);
  // Where the panel has the room (a large window, a projector): the state and the finished output
  // beside the scores, every figure at the one cell that fills the panel above the memory line,
  // none smaller than the stacked layout's smallest, none out of view.
  const ImVec2 room(avail.x, avail.y - ImGui::GetTextLineHeightWithSpacing() * 2.0f);
  const float filled = RowsLayout(view->run) ? Filled(state, *view, head, step, room) : 0.0f;
  if (filled >= std::min(scores_cell, finished_cell)) {
    ScoresWithGrid(state, *view, head, step, run_version, filled);
    ImGui::SameLine(0.0f, gap);
    ImGui::BeginGroup();
    BlockState(state, *view, step, state_version, filled, false);
    Finished(state, *view, head, run_version, filled);
    ImGui::EndGroup();
  } else {
    ScoresWithGrid(state, *view, head, step, run_version, scores_cell);
    if (right_w > 0) ImGui::SameLine(0.0f, gap);
    BlockState(state, *view, step, state_version,
               StateCell(*view, step, stacked,
                         std::max(fs * 6.0f, ImGui::GetContentRegionAvail().x), avail.y * 0.4f, d),
               stacked);
    Finished(state, *view, head, run_version, finished_cell);
  }
  Text(state, "Memory: " + attnlab::flash_memory_line(view->run.memory));
  if (stale) ImGui::PopStyleVar();
}

std::unique_ptr<PanelContents> Make() { return std::make_unique<TilesPanel>(); }

}  // namespace attnlab::app::panel_tiles
