// The Model panel's grid against the model itself: every map of a capture's layout dump whose id is
// "model/LAYER/HEAD" must show, cell by cell, the colormap colour of that layer's and head's weight as
// `attnlab-cli model DIR --text T --attention` computes it (masked, later keys and keys beyond a local
// layer's window, in the masked colour; none for an encoder's, whose JSON has "masked" for "next"),
// and every layer and head must be on screen, entirely. A map drawn smaller than a pixel a cell is
// pooled: each pixel must be the largest unmasked weight of its block (the masked colour when the
// whole block is masked). With --tooltip, only the hovered map's tooltip ("model/tooltip/LAYER/HEAD",
// over some of the grid) is checked: on screen, at full resolution (a pixel a cell at least), cell by
// cell but for its outlined hovered cell.
//
// usage: attnlab_gui_model_check SHOT.png ATTENTION.json [--tooltip]
#include <algorithm>
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
  int maps = 0, pooled = 0, tooltips = 0, checked = 0, failures = 0, max_error = 0;
};

// window < 0: an encoder's layer, where every token sees every other.
bool IsMasked(long r, long c, long window) { return window >= 0 && (c > r || (window > 0 && r - c >= window)); }

void Count(const std::string& id, const std::string& what, attnlab::Rgb8 expected, attnlab::Rgb8 actual,
           Totals* t) {
  const int err = ChannelError(actual, expected);
  t->max_error = std::max(t->max_error, err);
  ++t->checked;
  if (err <= kTolerance) return;
  if (++t->failures <= 20)
    std::printf("FAIL %s %s: expects rgb(%d, %d, %d), screen has rgb(%d, %d, %d) (error %d)\n", id.c_str(),
                what.c_str(), expected.r, expected.g, expected.b, actual.r, actual.g, actual.b, err);
}

// A pooled map: texel (x, y) shows the largest unmasked weight of its block of cells.
void CheckPooledMap(const nlohmann::json& hm, const nlohmann::json& weights, long window, const Image& img,
                    float fb_scale, attnlab::Colormap map, attnlab::Rgb8 masked, Totals* t) {
  const std::string id = hm["id"];
  if (hm["pooling"] != "max") {
    std::printf("FAIL %s: weights pooled as %s, expected max\n", id.c_str(), hm["pooling"].dump().c_str());
    ++t->failures;
    return;
  }
  ++t->pooled;
  const PooledGrid g = PooledGridOf(hm);
  for (long y = 0; y < g.texels_h; ++y)
    for (long x = 0; x < g.texels_w; ++x) {
      double best = -1.0;
      for (long r = FirstCellOfTexel(y, g.rows, g.texels_h); r < FirstCellOfTexel(y + 1, g.rows, g.texels_h); ++r)
        for (long c = FirstCellOfTexel(x, g.cols, g.texels_w); c < FirstCellOfTexel(x + 1, g.cols, g.texels_w); ++c)
          if (!IsMasked(r, c, window)) best = std::max(best, weights[std::size_t(r)][std::size_t(c)].get<double>());
      int px = 0, py = 0;
      const std::string what = "texel (" + std::to_string(x) + ", " + std::to_string(y) + ")";
      if (!TexelPixel(g, x, y, fb_scale, img, &px, &py)) {
        std::printf("FAIL %s %s is not in view\n", id.c_str(), what.c_str());
        ++t->failures;
        continue;
      }
      const attnlab::Rgb8 expected = best < 0 ? masked : attnlab::MapValue({map, 0.0, 1.0}, best);
      Count(id, what, expected, img.At(px, py), t);
    }
}

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
  if (IsPooled(hm)) return CheckPooledMap(hm, weights, window, img, fb_scale, map, masked, t);
  const Grid grid = GridOf(hm);
  // An outlined cell (the tooltip's hovered one) has the outline over its colour: not compared.
  const auto outlined = hm.value("outlined", std::vector<std::pair<long, long>>{});
  for (long r = 0; r < n; ++r)
    for (long c = 0; c < n; ++c) {
      if (std::find(outlined.begin(), outlined.end(), std::make_pair(r, c)) != outlined.end()) continue;
      const CellRect rect = CellAt(grid, r, c);
      if (!InClip(grid, rect)) {
        std::printf("FAIL %s cell (%ld, %ld) is not in view\n", id.c_str(), r, c);
        ++t->failures;
        continue;
      }
      const double w = weights[std::size_t(r)][std::size_t(c)].get<double>();
      const bool is_masked = IsMasked(r, c, window);  // a later key, or beyond the window
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
  const bool tooltip = argc == 4 && std::string(argv[3]) == "--tooltip";
  if (argc != 3 && !tooltip) {
    std::fprintf(stderr, "usage: %s SHOT.png ATTENTION.json [--tooltip]\n", argv[0]);
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
  nlohmann::json layers = attention["layers"];
  // An encoder (its JSON has "masked" words in place of "next"): no key is masked.
  if (attention.contains("masked"))
    for (nlohmann::json& layer : layers) layer["window"] = -1;
  for (const nlohmann::json& hm : dump["heatmaps"]) {
    int layer = -1, head = -1;
    const std::string id = hm["id"];
    const bool is_tooltip = std::sscanf(id.c_str(), "model/tooltip/%d/%d", &layer, &head) == 2;
    if (!is_tooltip && std::sscanf(id.c_str(), "model/%d/%d", &layer, &head) != 2) continue;
    if (layer < 0 || layer >= int(layers.size()) || head < 0 || head >= int(layers[layer]["heads"].size())) {
      std::printf("FAIL %s: the model has no such layer and head\n", hm["id"].get<std::string>().c_str());
      ++totals.failures;
      continue;
    }
    if (tooltip != is_tooltip) continue;  // the tooltip covers some of the grid's maps
    if (is_tooltip) {
      ++totals.tooltips;
      if (IsPooled(hm) || hm["cell"].get<float>() < 1.0f) {
        std::printf("FAIL %s: the tooltip's map is not at full resolution (cell %g)\n", id.c_str(),
                    hm["cell"].get<double>());
        ++totals.failures;
      }
      CheckMap(hm, layers[layer], head, img, fb_scale, map, MaskedRgb(dump), &totals);
      continue;
    }
    seen.insert({layer, head});
    CheckMap(hm, layers[layer], head, img, fb_scale, map, MaskedRgb(dump), &totals);
  }
  const int expected_maps = int(layers.size() * layers[0]["heads"].size());
  std::printf("%d of %d maps (%d pooled, %d tooltips), %d cells or texels checked, %d failures, max channel error %d\n",
              totals.maps - totals.tooltips, expected_maps, totals.pooled, totals.tooltips, totals.checked,
              totals.failures, totals.max_error);
  if (tooltip && totals.tooltips != 1) {
    std::printf("FAIL: %d tooltip maps drawn, expected the hovered map's\n", totals.tooltips);
    return 1;
  }
  if (!tooltip && int(seen.size()) != expected_maps) {
    std::printf("FAIL: %d maps drawn, the model has %d layers x heads\n", int(seen.size()), expected_maps);
    return 1;
  }
  return totals.failures == 0 && totals.checked > 0 ? 0 : 1;
}

}  // namespace gui_model_check
