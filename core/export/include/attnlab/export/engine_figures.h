#pragma once
/// The figures of the lesson steps that show attention as engines run it (lesson.h): a tiles
/// step's masked scores (the slide draws the tiling over them), the state of the tile's query
/// block after it (m, l and alpha per query) and its unnormalised O; a decode step's K and V
/// caches after the token and the new query's weights over the cache.
#include <vector>

#include "attnlab/export/figure.h"
#include "attnlab/export/views.h"
#include "attnlab/lesson.h"

namespace attnlab::exporter {

/// [masked scores, state (queries of the block by m, l, alpha), O (queries by d_v)], the last two
/// queries as rows whatever the layout; only the scores when the step's run cannot be made
/// (lesson::tiles_run). `head` 0-based.
std::vector<HeatmapFigure> tiles_figures(const Scenario& s, const Trace& t, const lesson::Step& step, int head,
                                         const Colormaps& maps);
/// [K cache, V cache (tokens 0 .. t as rows, evicted ones hatched and blank, legend "evicted"),
/// weights (one row over the same tokens, evicted ones likewise)] for `head`'s key/value head; no weights for the prefill; none for
/// a scenario that cannot be decoded.
std::vector<HeatmapFigure> decode_figures(const Scenario& s, const lesson::Step& step, int head, const Colormaps& maps);

}  // namespace attnlab::exporter
