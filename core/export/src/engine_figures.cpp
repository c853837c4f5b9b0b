#include "attnlab/export/engine_figures.h"
#include "attnlab/numbering.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace attnlab::exporter {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<std::string> names(const std::vector<std::string>& given, long first, long count, const char* prefix) {
  std::vector<std::string> out;
  for (long i = first; i < first + count; ++i)
    out.push_back(i < long(given.size()) ? given[std::size_t(i)] : prefix + std::to_string(i));
  return out;
}

std::vector<std::string> indices(long n) { return names({}, 0, n, ""); }

// A diverging range over +-max |finite value| (1 when there is none).
ColorScale signed_range(const Matrix& m, const Colormaps& maps) {
  double top = 0;
  for (Eigen::Index k = 0; k < m.size(); ++k)
    if (std::isfinite(m.data()[k])) top = std::max(top, std::fabs(m.data()[k]));
  if (!(top > 0)) top = 1;
  return {maps.diverging, -top, top};
}

HeatmapFigure by_query(const std::string& title, Matrix values, std::vector<std::string> rows,
                       std::vector<std::string> cols, const char* col_axis, const Colormaps& maps) {
  HeatmapFigure f;
  f.title = title;
  f.scale = signed_range(values, maps);
  f.values = std::move(values);
  f.row_labels = std::move(rows);
  f.col_labels = std::move(cols);
  f.row_axis = "queries";
  f.col_axis = col_axis;
  f.corner = f.row_axis;
  return f;
}

// The tile's query block after it: m, l and alpha side by side (-infinity: a row with no visible
// key yet, drawn masked).
HeatmapFigure state_figure(const FlashRun& run, const FlashTile& tile, const std::vector<std::string>& queries,
                           const Colormaps& maps) {
  Matrix state(tile.rows, 3);
  state << tile.m, tile.l, tile.alpha;
  HeatmapFigure f = by_query("After tile " + std::to_string(&tile - run.tiles.data() + 1) + ": m, l, \xCE\xB1",
                             std::move(state), names(queries, tile.row0, tile.rows, "x"),
                             {"m", "l", "\xCE\xB1"}, "", maps);
  f.subtitle = "per query of the block";
  return f;
}

}  // namespace

std::vector<HeatmapFigure> tiles_figures(const Scenario& s, const Trace& t, const lesson::Step& step, int head,
                                         const Colormaps& maps) {
  std::vector<HeatmapFigure> out = {stage_figure(s, t, StageId::masked, head, maps)};
  FlashRun run;
  try {
    run = lesson::tiles_run(step, t, head);
  } catch (const std::invalid_argument&) {
    return out;  // the explanation says why
  }
  const FlashTile& tile = run.tiles[lesson::shown_tile(step, run)];
  out.push_back(state_figure(run, tile, s.tokens, maps));
  out.push_back(by_query("O, not yet divided by l", tile.O, names(s.tokens, tile.row0, tile.rows, "x"),
                         indices(tile.O.cols()), "d_v", maps));
  return out;
}

std::vector<HeatmapFigure> decode_figures(const Scenario& s, const lesson::Step& step, int head,
                                          const Colormaps& maps) {
  Decode d;
  try {
    d = lesson::decode_run(step, s);
  } catch (const ScenarioError&) {
    return {};  // the explanation says why
  }
  const int index = lesson::shown_token(step, d);
  const std::vector<int>& cache = index < 0 ? d.prefill_cache : d.steps[std::size_t(index)].cache;
  const int last = index < 0 ? d.prefill - 1 : d.steps[std::size_t(index)].token;
  if (last < 0) return {};  // no prefill: the cache is still empty, as the explanation says
  const int g = head / std::max(1, s.head_count() / std::max(1, s.kv_head_count()));
  const auto held = [&cache](int j) { return std::binary_search(cache.begin(), cache.end(), j); };
  std::vector<HeatmapFigure> out;
  for (const bool keys : {true, false}) {
    Matrix m = (keys ? d.K : d.V)[std::size_t(g)].topRows(last + 1);
    for (int j = 0; j <= last; ++j)
      if (!held(j)) m.row(j).setConstant(-kInf);  // evicted: drawn masked
    // Short titles: three figures side by side in a presenter beside the Inputs.
    HeatmapFigure f = by_query(std::string(keys ? "K" : "V") + " cache",
                               std::move(m), names(s.tokens, 0, last + 1, "x"), indices((keys ? d.K : d.V)[0].cols()),
                               keys ? "d_k" : "d_v", maps);
    f.subtitle = kv_head_label(int(g)) + "; hatched: evicted, no later query may see it";
    f.hatched_legend = "evicted";  // a cache holds no -inf: those rows are blank
    f.row_axis = "tokens";
    f.corner = f.row_axis;
    out.push_back(std::move(f));
  }
  if (index < 0) return out;
  Matrix w = Matrix::Constant(1, last + 1, -kInf);
  const Vector& weights = d.steps[std::size_t(index)].weights[std::size_t(head)];
  for (std::size_t c = 0; c < cache.size(); ++c) w(0, cache[c]) = weights(Eigen::Index(c));
  HeatmapFigure f = by_query("Weights", std::move(w),
                             names(s.tokens, last, 1, "x"), names(s.tokens, 0, last + 1, "x"), "keys", maps);
  f.subtitle = head_label(head) + "; hatched: keys the cache no longer holds";
  f.hatched_legend = "evicted";
  f.scale = {maps.sequential, 0, 1};
  out.push_back(std::move(f));
  return out;
}

}  // namespace attnlab::exporter
