#pragma once
/// The presenter's steps of attention as engines run it (lesson.h): a `tiles` step draws the masked
/// scores with FlashAttention's tile grid over them (the step's tile framed, skipped tiles hatched)
/// and, beside them, m, l, alpha and the unnormalised O of the tile's query block after it; a
/// `decode` step draws the K and V caches after the token (evicted tokens greyed) and the new
/// query's weights over the cache. The runs are core's (flash.h, decode.h), made once per trace
/// version, step and head.
#include <cstdint>
#include <vector>

#include "attnlab/export/figure.h"
#include "attnlab/lesson.h"
#include "panels/app_state.h"
#include "widgets/heatmap.h"

namespace attnlab::app {

class PresenterEngines {
 public:
  /// Draws step `index` (a tiles or decode step) for query head `head` (0-based) in the room left;
  /// `hidden`: a prediction is pending (m, l, alpha and O, or the cache and weights, are "?").
  void Draw(AppState& state, const attnlab::lesson::Step& step, int index, int head, bool hidden);

 private:
  struct Run {
    std::uint64_t version = ~std::uint64_t{0};
    int index = -1, head = -1;
    /// exporter's figures of the step (export --lesson draws the same): tiles [scores, m l alpha,
    /// O], decode [K cache, V cache, weights]
    std::vector<attnlab::exporter::HeatmapFigure> figures;
    std::vector<attnlab::lesson::TileBox> boxes;  ///< a tiles step's tiling
    std::size_t tile = 0;                         ///< its tile among them
  };
  const Run& Update(AppState& state, const attnlab::lesson::Step& step, int index, int head);
  HeatmapSpec Spec(AppState& state, std::size_t i, float cell, bool hidden) const;
  /// The largest cell at which the figures fit `room`: `rows` of them stacked, each row's side by
  /// side `gap` apart.
  float Fit(AppState& state, const std::vector<std::vector<std::size_t>>& rows, ImVec2 room, float gap) const;
  void DrawFigure(AppState& state, std::size_t i, float cell, bool hidden);

  Run run_;
};

}  // namespace attnlab::app
