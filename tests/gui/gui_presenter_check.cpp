// One presenter screenshot against the core (issue 13): every heatmap the Presenter window drew
// (from attnlab-harness --layout-log, where the cells are) shows the colormap colour of the value
// the core computes for that stage and cell; a hidden (predict) heatmap shows only the grey of
// "?" cells and no cell in the colour of its value.
//
// usage: attnlab_gui_presenter_check SCENARIO SHOT.png LOG.json [hidden|revealed]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "attnlab/attention.h"
#include "attnlab/colormap.h"
#include "attnlab/scenario_io.h"
#include "gui_check_support.h"

namespace gui_presenter_check {

namespace {

using namespace gui_check;

constexpr int kTolerance = 2;

struct Totals {
  int heatmaps = 0, hidden = 0, checked = 0, failures = 0;
};

// The matrix a presenter heatmap shows, straight from the core.
attnlab::Matrix Expected(const nlohmann::json& hm, const attnlab::Scenario& s, const attnlab::Trace& t) {
  const std::string m = hm["matrix"], id = hm["id"];
  const std::size_t h = std::size_t(std::max(0, hm["head"].get<int>()));
  if (m == "none") return id.find("/Z/") != std::string::npos ? *s.Z : s.X;  // the inputs
  if (m == "Q") return t.heads[h].Q;
  if (m == "K") return t.heads[h].K;
  if (m == "V") return t.heads[h].V;
  if (m == "scores") return t.heads[h].scores;
  if (m == "scaled") return t.scaled(h);
  if (m == "masked") return t.masked(h);
  if (m == "weights") return t.heads[h].weights;
  if (m == "head_output") return t.heads[h].output;
  if (m == "concat") return t.concat;
  if (m == "W_o") return *s.W_o;
  if (m == "output") return t.output;
  std::printf("FAIL %s: a presenter heatmap of an unknown matrix %s\n", id.c_str(), m.c_str());
  return attnlab::Matrix();
}

struct Fills {
  attnlab::Rgb8 masked, hidden;  // the log's: the window's own greys
};

void CheckHeatmap(const nlohmann::json& hm, const attnlab::Matrix& want, const Image& img,
                  const Fills& fills, float fb_scale, bool weights_mask, const attnlab::Trace& t,
                  Totals* totals) {
  const std::string id = hm["id"];
  if (hm["rows"] != want.rows() || hm["cols"] != want.cols()) {
    std::printf("FAIL %s: drawn %dx%d, the core's is %dx%d\n", id.c_str(), hm["rows"].get<int>(),
                hm["cols"].get<int>(), int(want.rows()), int(want.cols()));
    ++totals->failures;
    return;
  }
  attnlab::Colormap map;
  if (!ColormapOf(hm, &map)) return;
  const attnlab::ColorScale scale{map, hm["lo"].get<double>(), hm["hi"].get<double>()};
  const bool hidden = hm["hidden"];
  ++(hidden ? totals->hidden : totals->heatmaps);
  const Grid grid = GridOf(hm);
  for (long r = 0; r < want.rows(); ++r)
    for (long c = 0; c < want.cols(); ++c) {
      const CellRect rect = CellAt(grid, r, c);
      if (!InClip(grid, rect) || !HasInterior(rect, fb_scale, 2)) continue;
      double share = 0;
      const attnlab::Rgb8 actual = InteriorColor(img, rect, fb_scale, 2, &share);
      const bool masked = !std::isfinite(want(r, c)) || (weights_mask && t.is_masked(r, c));
      const attnlab::Rgb8 value_rgb = masked ? fills.masked : attnlab::MapValue(scale, want(r, c));
      ++totals->checked;
      // Hidden: the "?" grey, and not the value's colour (unless the two happen to coincide).
      const bool ok = hidden ? ChannelError(actual, fills.hidden) <= kTolerance &&
                                   (ChannelError(value_rgb, fills.hidden) <= kTolerance ||
                                    ChannelError(actual, value_rgb) > kTolerance)
                             : ChannelError(actual, value_rgb) <= kTolerance && share >= 0.4;
      if (ok) continue;
      ++totals->failures;
      std::printf("FAIL %s cell (%ld, %ld): value %.6f%s expects rgb(%d, %d, %d), screen has "
                  "rgb(%d, %d, %d)\n", id.c_str(), r, c, want(r, c), hidden ? " hidden" : "",
                  hidden ? fills.hidden.r : value_rgb.r, hidden ? fills.hidden.g : value_rgb.g,
                  hidden ? fills.hidden.b : value_rgb.b, actual.r, actual.g, actual.b);
    }
}

}  // namespace

int Main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s SCENARIO SHOT.png LOG.json [hidden|revealed]\n", argv[0]);
    return 2;
  }
  const std::string expect = argc > 4 ? argv[4] : "";
  Image img;
  if (!LoadScreenshot(argv[2], &img)) return 1;
  const nlohmann::json log = nlohmann::json::parse(std::ifstream(argv[3]));
  const attnlab::Scenario s = attnlab::load_scenario(argv[1]);
  const attnlab::Trace t = attnlab::compute(s);
  nlohmann::json hidden = log["hidden_rgb"];
  const Fills fills{MaskedRgb(log), {hidden[0].get<unsigned char>(), hidden[1].get<unsigned char>(),
                                     hidden[2].get<unsigned char>()}};
  const float fb_scale = float(img.width) / log["display"][0].get<float>();
  Totals totals;
  for (const nlohmann::json& hm : log["heatmaps"])
    if (hm["window"] == "Presenter")
      CheckHeatmap(hm, Expected(hm, s, t), img, fills, fb_scale, hm["matrix"] == "weights", t, &totals);
  std::printf("step %d: %d heatmaps shown, %d hidden, %d cells checked, %d failures\n",
              log["presenter_step"].get<int>(), totals.heatmaps, totals.hidden, totals.checked,
              totals.failures);
  if (totals.checked < 4) {
    std::printf("FAIL: fewer than 4 presenter cells checked\n");
    return 1;
  }
  if (expect == "hidden" && (totals.hidden == 0 || totals.heatmaps > 0)) {
    std::printf("FAIL: a predict step must show its result hidden, and only hidden\n");
    return 1;
  }
  if (expect == "revealed" && totals.hidden > 0) {
    std::printf("FAIL: the step is still hidden\n");
    return 1;
  }
  return totals.failures == 0 ? 0 : 1;
}

}  // namespace gui_presenter_check
