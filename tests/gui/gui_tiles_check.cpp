// The Tiles panel's pixels against `attnlab-cli flash` (tests/gui/tiles.sh): in a capture of the
// window at step STEP, the accent outline frames exactly the CLI's tile STEP on the scores, and
// every cell of the m, l, alpha and O heatmaps has the colour of the CLI's number after that tile
// on the range the panel drew with, their rows lined up with each other.
// usage: gui_tiles_check CAPTURE.png RUN.json STEP
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "attnlab/colormap.h"
#include "gui_check_support.h"

namespace gui_tiles_check {

namespace {

using gui_check::Image;
using nlohmann::json;

constexpr int kTolerance = 6;  // per 8-bit channel

const json* FindHeatmap(const json& dump, const std::string& id) {
  for (const json& hm : dump["heatmaps"])
    if (hm["id"] == id) return &hm;
  std::printf("FAIL: no heatmap %s in the capture's dump\n", id.c_str());
  return nullptr;
}

attnlab::Rgb8 Accent(const json& dump) {
  const auto c = dump["first_run_hint"]["rgb"].get<std::vector<int>>();
  return {static_cast<unsigned char>(c[0]), static_cast<unsigned char>(c[1]), static_cast<unsigned char>(c[2])};
}

/// Tile k's cells: [r0, r0 + rows) x [c0, c0 + cols) of the scores (rows layout).
struct TileCells {
  long r0, rows, c0, cols;
};

TileCells CellsOf(const json& run, std::size_t k, long n_z) {
  const json& t = run["tiles"][k];
  const long br = run["block"][0], bc = run["block"][1];
  const long c0 = t["k_block"].get<long>() * bc;
  return {t["q_block"].get<long>() * br, long(t["m"].size()), c0, std::min(bc, n_z - c0)};
}

/// Whether the accent colour crosses the middle of each of the tile's four edges, within a few
/// pixels across the edge (the frame's stroke lies just outside the tile).
bool Framed(const Image& img, const gui_check::Grid& g, float fb, const TileCells& t, attnlab::Rgb8 accent) {
  const float x0 = g.x0 + t.c0 * g.cell, y0 = g.y0 + t.r0 * g.cell;
  const float x1 = x0 + t.cols * g.cell, y1 = y0 + t.rows * g.cell;
  const float xm = (x0 + x1) / 2, ym = (y0 + y1) / 2;
  // (x, y, along x): the edge's midpoint and the direction to search across it.
  const float edges[4][3] = {{xm, y0, 0}, {xm, y1, 0}, {x0, ym, 1}, {x1, ym, 1}};
  for (const auto& e : edges) {
    bool found = false;
    for (int d = -6; d <= 6 && !found; ++d) {
      const int x = int(e[0] * fb) + (e[2] > 0 ? d : 0), y = int(e[1] * fb) + (e[2] > 0 ? 0 : d);
      found = x >= 0 && y >= 0 && x < img.width && y < img.height && gui_check::ChannelError(img.At(x, y), accent) <= 40;
    }
    if (!found) return false;
  }
  return true;
}

int CheckOutline(const Image& img, const json& dump, const json& run, std::size_t step, float fb) {
  const json* hm = FindHeatmap(dump, "tiles_masked/0");
  if (!hm) return 1;
  const gui_check::Grid g = gui_check::GridOf(*hm);
  int failures = 0;
  for (std::size_t k = 0; k < run["tiles"].size(); ++k) {
    const bool framed = Framed(img, g, fb, CellsOf(run, k, (*hm)["cols"]), Accent(dump));
    if (framed != (k == step)) {
      std::printf("FAIL: tile %zu %s\n", k, framed ? "is outlined, not the current one" : "(the current one) is not outlined");
      ++failures;
    }
  }
  if (!failures) std::printf("outline: tile %zu of %zu, as the CLI's loop order\n", step, run["tiles"].size());
  return failures;
}

/// The heatmap `id` against `values` (one number per query of the block, or the block's O rows).
int CheckCells(const Image& img, const json& dump, const std::string& id, const json& values, float fb) {
  const json* hm = FindHeatmap(dump, id);
  if (!hm) return 1;
  attnlab::Colormap map;
  if (!gui_check::ColormapOf(*hm, &map)) return 1;
  const attnlab::ColorScale scale{map, (*hm)["lo"].get<double>(), (*hm)["hi"].get<double>()};
  const gui_check::Grid g = gui_check::GridOf(*hm);
  int failures = 0, checked = 0, worst = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const json row = values[i].is_array() ? values[i] : json::array({values[i]});
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (row[c].is_null()) continue;  // -infinity: hatched
      double share = 0;
      const attnlab::Rgb8 got = gui_check::InteriorColor(img, gui_check::CellAt(g, long(i), long(c)), fb, 2, &share);
      const attnlab::Rgb8 want = attnlab::MapValue(scale, row[c].get<double>());
      const int err = gui_check::ChannelError(got, want);
      worst = std::max(worst, err);
      ++checked;
      if (err > kTolerance || share < 0.4) {
        std::printf("FAIL %s cell (%zu, %zu): %.6f expects rgb(%d, %d, %d), screen rgb(%d, %d, %d) (share %.2f)\n",
                    id.c_str(), i, c, row[c].get<double>(), want.r, want.g, want.b, got.r, got.g, got.b, share);
        ++failures;
      }
    }
  }
  std::printf("%s: %d cells, max channel error %d\n", id.c_str(), checked, worst);
  return failures + (checked == 0);
}

/// m, l, alpha and O side by side (the rows layout) have their rows at the same height: each
/// vector lines up with its query rows.
int CheckAligned(const json& dump) {
  const json* m = FindHeatmap(dump, "tiles_m");
  if (!m) return 1;
  int failures = 0;
  for (const char* id : {"tiles_l", "tiles_alpha", "tiles_O"}) {
    const json* hm = FindHeatmap(dump, id);
    if (!hm) return failures + 1;
    const double dy = (*hm)["y0"].get<double>() - (*m)["y0"].get<double>();
    const double dcell = (*hm)["cell"].get<double>() - (*m)["cell"].get<double>();
    if (std::abs(dy) > 0.5 || std::abs(dcell) > 0.01) {
      std::printf("FAIL: %s's rows are %.1f px below m's (cells %.1f against %.1f)\n", id, dy,
                  (*hm)["cell"].get<double>(), (*m)["cell"].get<double>());
      ++failures;
    }
  }
  if (!failures) std::printf("m, l, alpha and O: rows aligned\n");
  return failures;
}

}  // namespace

int Main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s CAPTURE.png RUN.json STEP\n", argv[0]);
    return 2;
  }
  Image img;
  if (!gui_check::LoadScreenshot(argv[1], &img)) return 1;
  const json dump = gui_check::LoadLayout(argv[1]);
  const json run = json::parse(std::ifstream(argv[2]));
  const std::size_t step = std::stoul(argv[3]);
  const float fb = dump["framebuffer_scale"].get<float>();
  const json& tile = run["tiles"][step];
  int failures = CheckOutline(img, dump, run, step, fb);
  failures += CheckCells(img, dump, "tiles_m", tile["m"], fb);
  failures += CheckCells(img, dump, "tiles_l", tile["l"], fb);
  failures += CheckCells(img, dump, "tiles_alpha", tile["alpha"], fb);
  failures += CheckCells(img, dump, "tiles_O", tile["O"], fb);
  failures += CheckAligned(dump);
  std::printf(failures ? "FAIL: %d mismatches\n" : "PASS\n", failures);
  return failures ? 1 : 0;
}

}  // namespace gui_tiles_check
