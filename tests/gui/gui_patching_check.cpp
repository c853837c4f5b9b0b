// The Patching panel's grids against `attnlab-cli patch DIR ... --json`: in a capture's layout dump,
// heatmap "patching/heads" must be layers x heads and "patching/positions" layers x tokens, both
// current (not dimmed), on one diverging range -m .. m with m the largest |effect| and 1 at least
// (0 white), and every cell must show, on screen, the colour of the CLI's normalised effect there.
//
// With --heads ID, only heatmap ID, the heads' grid (the presenter's patching step, on the same range).
//
// usage: attnlab_gui_patching_check SHOT.png PATCH.json [--heads ID]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "attnlab/colormap.h"
#include "gui_check_support.h"

namespace gui_patching_check {

namespace {

using namespace gui_check;

constexpr int kTolerance = 2;  // per 8-bit channel: the colours are exact, allow rounding

struct Totals {
  int checked = 0, failures = 0, max_error = 0;
};

// The colour the cell shows: its interior's dominant colour (the number printed in it aside).
attnlab::Rgb8 CellColor(const Image& img, const CellRect& rect, float fb_scale, double* share) {
  if (HasInterior(rect, fb_scale, 1)) return InteriorColor(img, rect, fb_scale, 1, share);
  int cx = 0, cy = 0;
  *share = CentrePixel(rect, fb_scale, img, &cx, &cy) ? 1.0 : 0.0;
  return *share > 0 ? img.At(cx, cy) : attnlab::Rgb8{};
}

void CheckGrid(const nlohmann::json& hm, const nlohmann::json& values, double range, const Image& img,
               float fb_scale, Totals* t) {
  const std::string id = hm["id"];
  const long rows = long(values.size()), cols = long(values[0].size());
  attnlab::Colormap map;
  if (hm["rows"] != rows || hm["cols"] != cols || !ColormapOf(hm, &map)) {
    std::printf("FAIL %s: drawn %dx%d, the CLI's is %ldx%ld\n", id.c_str(), hm["rows"].get<int>(),
                hm["cols"].get<int>(), rows, cols);
    ++t->failures;
    return;
  }
  const double lo = hm["lo"], hi = hm["hi"];
  if (std::abs(hi - range) > 1e-6 || std::abs(lo + range) > 1e-6 || hm["stale"].get<bool>() || IsPooled(hm)) {
    std::printf("FAIL %s: range [%g, %g] (expected +-%g), stale %d, pooling %s\n", id.c_str(), lo, hi, range,
                int(hm["stale"].get<bool>()), hm["pooling"].dump().c_str());
    ++t->failures;
    return;
  }
  const Grid grid = GridOf(hm);
  for (long r = 0; r < rows; ++r)
    for (long c = 0; c < cols; ++c) {
      const CellRect rect = CellAt(grid, r, c);
      if (!InClip(grid, rect)) {
        std::printf("FAIL %s cell (%ld, %ld) is not in view\n", id.c_str(), r, c);
        ++t->failures;
        continue;
      }
      const double v = values[std::size_t(r)][std::size_t(c)];
      const attnlab::Rgb8 expected = attnlab::MapValue({map, lo, hi}, v);
      double share = 0;
      const attnlab::Rgb8 actual = CellColor(img, rect, fb_scale, &share);
      const int err = ChannelError(actual, expected);
      t->max_error = std::max(t->max_error, err);
      ++t->checked;
      if (err > kTolerance || share < 0.5) {
        ++t->failures;
        std::printf("FAIL %s cell (%ld, %ld): effect %.6f expects rgb(%d, %d, %d), screen has rgb(%d, %d, %d) "
                    "(error %d, share %.2f)\n",
                    id.c_str(), r, c, v, expected.r, expected.g, expected.b, actual.r, actual.g, actual.b, err, share);
      }
    }
}

}  // namespace

int Main(int argc, char** argv) {
  if (argc != 3 && !(argc == 5 && std::string(argv[3]) == "--heads")) {
    std::fprintf(stderr, "usage: %s SHOT.png PATCH.json [--heads ID]\n", argv[0]);
    return 2;
  }
  const std::string heads_id = argc == 5 ? argv[4] : "patching/heads";
  const bool heads_only = argc == 5;
  Image img;
  if (!LoadScreenshot(argv[1], &img)) return 1;
  const nlohmann::json dump = LoadLayout(argv[1]);
  const nlohmann::json patch = nlohmann::json::parse(std::ifstream(argv[2]));
  const float fb_scale = dump["framebuffer_scale"];
  double range = 1.0;  // one range for both grids: the largest |effect|, 1 at least
  for (const char* key : {"heads", "positions"})
    for (const nlohmann::json& row : patch[key])
      for (const nlohmann::json& v : row) range = std::max(range, std::abs(v.get<double>()));
  Totals totals;
  int grids = 0;
  for (const nlohmann::json& hm : dump["heatmaps"]) {
    const std::string id = hm["id"];
    if (id != heads_id && (heads_only || id != "patching/positions")) continue;
    ++grids;
    CheckGrid(hm, patch[id == heads_id ? "heads" : "positions"], range, img, fb_scale, &totals);
  }
  std::printf("%d grids, %d cells checked, %d failures, max channel error %d\n", grids, totals.checked,
              totals.failures, totals.max_error);
  if (grids != (heads_only ? 1 : 2)) {
    std::printf("FAIL: %d patching grids drawn, expected %s\n", grids, heads_only ? heads_id.c_str() : "heads and positions");
    return 1;
  }
  return totals.failures == 0 && totals.checked > 0 ? 0 : 1;
}

}  // namespace gui_patching_check
