// Opens a scenario in the real window under Xvfb, takes a screenshot, and checks that heatmap cells
// of the attention weights show the colormap colour of the weight the core computes for that cell.
// The window's layout dump (OUT.png.json) only says where the cells are; the expected colours come
// from attnlab::compute + attnlab::MapValue here.
//
// usage: attnlab_gui_pixel_check APP SCENARIO OUT.png [extra app arguments...]
//        attnlab_gui_pixel_check --shot SCENARIO SHOT.png   (a capture the window already wrote, with
//        its SHOT.png.json: checked against SCENARIO, e.g. the file the window saved after a click)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "attnlab/attention.h"
#include "attnlab/colormap.h"
#include "attnlab/scenario_io.h"
#include "gui_check_support.h"

namespace gui_pixel_check {

namespace {

using namespace gui_check;

constexpr int kTolerance = 2;          // per channel, 8-bit: rasterisation is exact, allow rounding
constexpr int kMinCheckedCells = 4;    // a test that checks nothing must not pass (fewer only when
                                       // a head's weights have fewer cells, e.g. one query)
constexpr int kMaxCellsPerHeatmap = 64;

struct Totals {
  int heatmaps = 0, checked = 0, failures = 0, max_error = 0;
};

void CheckHeatmap(const nlohmann::json& hm, const attnlab::Trace& trace, const Image& img,
                  attnlab::Colormap map, attnlab::Rgb8 masked_rgb, float fb_scale, Totals* t) {
  const int head = hm["head"];
  if (head < 0 || head >= int(trace.heads.size())) {
    std::printf("FAIL %s: head %d out of range\n", hm["id"].get<std::string>().c_str(), head);
    ++t->failures;
    return;
  }
  const attnlab::HeadTrace& h = trace.heads[static_cast<std::size_t>(head)];
  const attnlab::Matrix& w = h.weights;
  const std::string id = hm["id"];
  if (hm["rows"] != w.rows() || hm["cols"] != w.cols() || hm["lo"] != 0.0 || hm["hi"] != 1.0 ||
      hm["colormap"] != attnlab::ColormapName(map)) {
    std::printf("FAIL %s: drawn as %dx%d [%g, %g] %s, core weights are %dx%d on [0, 1] %s\n",
                id.c_str(), hm["rows"].get<int>(), hm["cols"].get<int>(), hm["lo"].get<double>(),
                hm["hi"].get<double>(), hm["colormap"].get<std::string>().c_str(), int(w.rows()),
                int(w.cols()), attnlab::ColormapName(map));
    ++t->failures;
    return;
  }
  ++t->heatmaps;
  const Grid grid = GridOf(hm);
  const bool values = hm["values_drawn"];
  const long cells = w.rows() * w.cols();
  const long stride = std::max(1L, cells / kMaxCellsPerHeatmap);
  for (long k = 0; k < cells; k += stride) {
    const int r = int(k / w.cols()), c = int(k % w.cols());
    const CellRect rect = CellAt(grid, r, c);
    if (!InClip(grid, rect)) continue;
    int cx = 0, cy = 0;
    if (!CentrePixel(rect, fb_scale, img, &cx, &cy)) continue;
    const bool is_masked = trace.is_masked(r, c);
    const attnlab::Rgb8 expected = WeightColor(trace, head, r, c, map, masked_rgb);
    attnlab::Rgb8 actual = img.At(cx, cy);
    double share = 1.0;
    const int inset = 2;
    if ((values || is_masked) && HasInterior(rect, fb_scale, inset)) {
      // Digits or hatching cover the centre: use the cell's dominant colour instead.
      actual = InteriorColor(img, rect, fb_scale, inset, &share);
    }
    const int err = ChannelError(actual, expected);
    t->max_error = std::max(t->max_error, err);
    ++t->checked;
    if (err > kTolerance || share < 0.4) {
      ++t->failures;
      std::printf("FAIL %s cell (%d, %d) at (%d, %d): weight %.6f%s expects rgb(%d, %d, %d), "
                  "screen has rgb(%d, %d, %d) (error %d, share %.2f)\n",
                  id.c_str(), r, c, cx, cy, w(r, c), is_masked ? " masked" : "", expected.r,
                  expected.g, expected.b, actual.r, actual.g, actual.b, err, share);
    }
  }
}

}  // namespace

int Main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s APP SCENARIO OUT.png [app arguments...]\n", argv[0]);
    return 2;
  }
  const std::string app = argv[1], scenario_path = argv[2], out = argv[3];
  if (app != "--shot") {
    PrepareOutput(out);
    std::string command = ScreenshotCommand(app, scenario_path, out);
    AppendArgs(&command, argc, argv, 4);
    if (!RunEchoed(command)) {
      std::printf("FAIL: the window exited with an error\n");
      return 1;
    }
  }
  Image img;
  if (!LoadScreenshot(out, &img)) return 1;
  const nlohmann::json dump = LoadLayout(out);
  if (dump["framebuffer"][0] != img.width || dump["framebuffer"][1] != img.height) {
    std::printf("FAIL: PNG is %dx%d, the framebuffer was %s\n", img.width, img.height,
                dump["framebuffer"].dump().c_str());
    return 1;
  }
  attnlab::Colormap map;
  if (!ColormapOf(dump, &map)) return 1;
  const attnlab::Rgb8 masked_rgb = MaskedRgb(dump);
  const attnlab::Trace trace = attnlab::compute(attnlab::load_scenario(scenario_path));
  Totals totals;
  for (const nlohmann::json& hm : dump["heatmaps"])
    if (hm["matrix"] == "weights")
      CheckHeatmap(hm, trace, img, map, masked_rgb, dump["framebuffer_scale"], &totals);
  std::printf("%d weights heatmaps, %d cells checked, %d failures, max channel error %d\n",
              totals.heatmaps, totals.checked, totals.failures, totals.max_error);
  // Every character drawn had a glyph in its font (a missing one draws as "?": app/instruments/glyph_check.h).
  if (!dump.value("fallback_glyphs", nlohmann::json::object()).empty()) {
    std::printf("FAIL: characters drawn without a glyph (as \"?\"), by window: %s\n", dump["fallback_glyphs"].dump().c_str());
    return 1;
  }
  const int required = int(std::min<long>(kMinCheckedCells, trace.heads.front().weights.size()));
  if (totals.checked < required) {
    std::printf("FAIL: fewer than %d visible weight cells were checked\n", required);
    return 1;
  }
  return totals.failures == 0 ? 0 : 1;
}

}  // namespace gui_pixel_check
