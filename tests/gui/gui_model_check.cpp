// The Model panel's grid against the model itself: every map of a capture's layout dump whose id is
// "model/LAYER/HEAD" must show, cell by cell, the colormap colour of that layer's and head's weight as
// `attnlab-cli model DIR --text T --attention` computes it (masked, later keys and keys beyond a local
// layer's window, in the masked colour),
// and every layer and head must be on screen.
//
// usage: attnlab_gui_model_check SHOT.png ATTENTION.json
#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/colormap.h"
#include "gui_check_support.h"

namespace gui_model_check {

namespace {

using namespace gui_check;

constexpr int kTolerance = 2;  // per 8-bit channel: the colours are exact, allow rounding

struct Totals {
  int maps = 0, checked = 0, failures = 0, max_error = 0;
};

// The colour the cell shows: its interior's dominant colour when it has one, else its centre pixel.
attnlab::Rgb8 CellColor(const Image& img, const CellRect& rect, float fb_scale, double* share) {
  if (HasInterior(rect, fb_scale, 1)) return InteriorColor(img, rect, fb_scale, 1, share);
  int cx = 0, cy = 0;
  *share = CentrePixel(rect, fb_scale, img, &cx, &cy) ? 1.0 : 0.0;
  return *share > 0 ? img.At(cx, cy) : attnlab::Rgb8{};
}

/// `layer` is the CLI's entry for the map's layer: its heads' weights, and its window when it is local.
void CheckMap(const nlohmann::json& hm, const nlohmann::json& layer, int head, const Image& img, float fb_scale,
              attnlab::Colormap map, attnlab::Rgb8 masked, Totals* t) {
  const nlohmann::json& weights = layer["heads"][std::size_t(head)]["weights"];
  const long window = layer.value("window", 0L);
  const std::string id = hm["id"];
  const long n = long(weights.size());
  if (hm["rows"] != n || hm["cols"] != n || hm["lo"] != 0.0 || hm["hi"] != 1.0) {
    std::printf("FAIL %s: drawn %dx%d on [%g, %g], the model's weights are %ldx%ld on [0, 1]\n", id.c_str(),
                hm["rows"].get<int>(), hm["cols"].get<int>(), hm["lo"].get<double>(), hm["hi"].get<double>(), n, n);
    ++t->failures;
    return;
  }
  ++t->maps;
  const Grid grid = GridOf(hm);
  for (long r = 0; r < n; ++r)
    for (long c = 0; c < n; ++c) {
      const CellRect rect = CellAt(grid, r, c);
      if (!InClip(grid, rect)) {
        std::printf("FAIL %s cell (%ld, %ld) is not in view\n", id.c_str(), r, c);
        ++t->failures;
        continue;
      }
      const double w = weights[std::size_t(r)][std::size_t(c)].get<double>();
      const bool is_masked = c > r || (window > 0 && r - c >= window);  // a later key, or beyond the window
      const attnlab::Rgb8 expected = is_masked ? masked : attnlab::MapValue({map, 0.0, 1.0}, w);
      double share = 0;
      const attnlab::Rgb8 actual = CellColor(img, rect, fb_scale, &share);
      const int err = ChannelError(actual, expected);
      t->max_error = std::max(t->max_error, err);
      ++t->checked;
      if (err > kTolerance || share < (is_masked ? 0.3 : 0.5)) {  // hatching covers part of a masked cell
        ++t->failures;
        std::printf("FAIL %s cell (%ld, %ld): weight %.6f%s expects rgb(%d, %d, %d), screen has rgb(%d, %d, %d) "
                    "(error %d, share %.2f)\n",
                    id.c_str(), r, c, w, is_masked ? " masked" : "", expected.r, expected.g, expected.b, actual.r,
                    actual.g, actual.b, err, share);
      }
    }
}

}  // namespace

int Main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s SHOT.png ATTENTION.json\n", argv[0]);
    return 2;
  }
  Image img;
  if (!LoadScreenshot(argv[1], &img)) return 1;
  const nlohmann::json dump = LoadLayout(argv[1]);
  const nlohmann::json attention = nlohmann::json::parse(std::ifstream(argv[2]));
  attnlab::Colormap map;
  if (!ColormapOf(dump, &map)) return 1;
  const float fb_scale = dump["framebuffer_scale"];
  Totals totals;
  std::set<std::pair<int, int>> seen;
  const nlohmann::json& layers = attention["layers"];
  for (const nlohmann::json& hm : dump["heatmaps"]) {
    int layer = -1, head = -1;
    if (std::sscanf(hm["id"].get<std::string>().c_str(), "model/%d/%d", &layer, &head) != 2) continue;
    if (layer < 0 || layer >= int(layers.size()) || head < 0 || head >= int(layers[layer]["heads"].size())) {
      std::printf("FAIL %s: the model has no such layer and head\n", hm["id"].get<std::string>().c_str());
      ++totals.failures;
      continue;
    }
    seen.insert({layer, head});
    CheckMap(hm, layers[layer], head, img, fb_scale, map, MaskedRgb(dump), &totals);
  }
  const int expected_maps = int(layers.size() * layers[0]["heads"].size());
  std::printf("%d of %d maps, %d cells checked, %d failures, max channel error %d\n", totals.maps, expected_maps,
              totals.checked, totals.failures, totals.max_error);
  if (int(seen.size()) != expected_maps) {
    std::printf("FAIL: %d maps drawn, the model has %d layers x heads\n", int(seen.size()), expected_maps);
    return 1;
  }
  return totals.failures == 0 && totals.checked > 0 ? 0 : 1;
}

}  // namespace gui_model_check
