// Every head in view at 256 tokens x 8 heads (issue 5): in the default 1280 x 800 window the
// Heads panel shows all 8 heads' weights at once, which takes fewer pixels than cells, so each
// pixel pools a block of cells. Checked under Xvfb on a generated causal scenario:
//  1. the Heads panel draws one weights heatmap per head, each entirely inside the panel;
//  2. every pixel of a pooled heatmap is the colour of the largest unmasked weight of its block
//     (the masked colour where the whole block is masked), computed here from the core's trace;
//     heatmaps drawn a pixel or more a cell are checked cell by cell (their own colour).
//
// usage: attnlab_gui_pooled_check APP MAKE_SCENARIO OUT_DIR
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "attnlab/attention.h"
#include "attnlab/colormap.h"
#include "attnlab/scenario_io.h"
#include "gui_check_support.h"

namespace gui_pooled_check {

namespace {

using namespace gui_check;

constexpr int kTolerance = 2;  // per 8-bit channel, as gui_pixel_check
constexpr const char* kShape = "256x256x8";

struct Totals {
  int heatmaps = 0, pooled = 0, checked = 0, failures = 0, max_error = 0;
};

void Compare(const std::string& id, long x, long y, int px, int py, const Image& img,
             attnlab::Rgb8 expected, Totals* t) {
  const attnlab::Rgb8 actual = img.At(px, py);
  const int err = ChannelError(actual, expected);
  t->max_error = std::max(t->max_error, err);
  ++t->checked;
  if (err <= kTolerance) return;
  if (++t->failures <= 10)
    std::printf(
        "FAIL %s texel (%ld, %ld) at (%d, %d): expects rgb(%d, %d, %d), screen rgb(%d, %d, %d)\n",
        id.c_str(), x, y, px, py, expected.r, expected.g, expected.b, actual.r, actual.g, actual.b);
}

// Whether the whole grid is inside the panel's clip rectangle and the screenshot.
bool WholeGridInView(const nlohmann::json& hm, const Image& img, float fb) {
  const float x0 = hm["x0"], y0 = hm["y0"], cell = hm["cell"];
  const float w = IsPooled(hm) ? hm["texels"][0].get<float>() : cell * hm["cols"].get<float>();
  const float h = IsPooled(hm) ? hm["texels"][1].get<float>() : cell * hm["rows"].get<float>();
  const auto clip = hm["clip"].get<std::vector<float>>();
  return x0 >= clip[0] && y0 >= clip[1] && x0 + w <= clip[2] && y0 + h <= clip[3] &&
         (x0 + w) * fb <= float(img.width) && (y0 + h) * fb <= float(img.height);
}

void CheckPooled(const nlohmann::json& hm, const attnlab::Trace& trace, const Image& img, float fb,
                 attnlab::Colormap map, attnlab::Rgb8 masked_rgb, Totals* t) {
  const std::string id = hm["id"];
  if (hm["pooling"] != "max") {
    std::printf("FAIL %s: weights pooled as %s, expected max\n", id.c_str(),
                hm["pooling"].dump().c_str());
    ++t->failures;
    return;
  }
  ++t->pooled;
  const PooledGrid g = PooledGridOf(hm);
  const int head = hm["head"];
  for (long y = 0; y < g.texels_h; ++y)
    for (long x = 0; x < g.texels_w; ++x) {
      int px = 0, py = 0;
      if (TexelPixel(g, x, y, fb, img, &px, &py))
        Compare(id, x, y, px, py, img, PooledWeightColor(trace, head, g, x, y, map, masked_rgb), t);
    }
}

void CheckExact(const nlohmann::json& hm, const attnlab::Trace& trace, const Image& img, float fb,
                attnlab::Colormap map, attnlab::Rgb8 masked_rgb, Totals* t) {
  const int head = hm["head"];
  const long rows = hm["rows"], cols = hm["cols"];
  const long stride = std::max(1L, rows * cols / 4096);
  for (long k = 0; k < rows * cols; k += stride) {
    int px = 0, py = 0;
    attnlab::Rgb8 expected;
    if (WeightProbe(hm, img, fb, trace, head, k / cols, k % cols, map, masked_rgb, &px, &py,
                    &expected))
      Compare(hm["id"], k % cols, k / cols, px, py, img, expected, t);
  }
}

}  // namespace

int Main(int argc, char** argv) {
  CheckerArgs args;
  if (!ParseCheckerArgs(argc, argv, &args)) return 2;
  const std::string &app = args.app, &dir = args.dir;
  const std::string scenario = dir + "/pooled-" + kShape + ".json", png = dir + "/pooled-heads.png";
  PrepareOutput(png);
  if (!MakeCausalScenario(args, kShape, scenario, 3)) return 1;
  if (!RunEchoed(ScreenshotCommand(app, scenario, png))) {
    std::printf("FAIL: cannot run the window\n");
    return 1;
  }
  Image img;
  if (!LoadScreenshot(png, &img)) return 1;
  const nlohmann::json dump = LoadLayout(png);
  attnlab::Colormap map;
  if (!ColormapOf(dump, &map)) return 1;
  const float fb = dump["framebuffer_scale"];
  const attnlab::Trace trace = attnlab::compute(attnlab::load_scenario(scenario));
  Totals t;
  std::set<int> heads_in_view;
  for (const nlohmann::json& hm : dump["heatmaps"]) {
    // The Heads panel shares a window with Head stats: its heatmaps are in "Heads/<tab child>".
    if (hm["window"].get<std::string>().rfind("Heads", 0) != 0 || hm["matrix"] != "weights") continue;
    ++t.heatmaps;
    if (WholeGridInView(hm, img, fb))
      heads_in_view.insert(hm["head"].get<int>());
    else
      std::printf("head %d: not entirely in view\n", hm["head"].get<int>() + 1);
    if (IsPooled(hm))
      CheckPooled(hm, trace, img, fb, map, MaskedRgb(dump), &t);
    else
      CheckExact(hm, trace, img, fb, map, MaskedRgb(dump), &t);
  }
  const int heads = int(trace.heads.size());
  std::printf(
      "Heads panel: %d of %d heads entirely in view, %d pooled; %d pixels checked, %d failures, "
      "max channel error %d\n",
      int(heads_in_view.size()), heads, t.pooled, t.checked, t.failures, t.max_error);
  bool ok = t.failures == 0 && int(heads_in_view.size()) == heads && t.heatmaps == heads;
  if (t.pooled == 0) {
    std::printf("FAIL: no pooled heatmap: this test no longer covers pooling (layout changed?)\n");
    ok = false;
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}

}  // namespace gui_pooled_check
