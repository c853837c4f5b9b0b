// The Head finder's and Logit lens's grids against the CLI (issue 39). With --heads, every score's
// grid of a capture's layout dump ("heads/<score>", layers down, heads across) must show, cell by
// cell, the colormap colour of that head's score as `attnlab-cli heads ... --json` prints it (null,
// an undefined score, in the masked colour), on [0, 1] but for the local span's [0, n - 1], n the
// tokens read; all five grids, whole, in view. With --lens, "lens/top" must show each layer's and
// position's top-token probability and "lens/chosen" (when the JSON has a chosen token) its
// probability, as `attnlab-cli lens ... --json` prints them, on [0, 1]. With --finder SCORE, the
// presenter's finder step ("presenter_finder") must show that score's grid as --heads checks it.
//
// usage: attnlab_gui_instruments_check SHOT.png CLI.json --heads|--lens
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/colormap.h"
#include "gui_check_support.h"

namespace gui_instruments_check {

namespace {

using namespace gui_check;
using nlohmann::json;

constexpr int kTolerance = 2;  // per 8-bit channel: the colours are exact, allow rounding

struct Totals {
  int grids = 0, checked = 0, failures = 0, max_error = 0;
};

const json* FindHeatmap(const json& dump, const std::string& id) {
  for (const json& hm : dump["heatmaps"])
    if (hm["id"] == id) return &hm;
  return nullptr;
}

// One grid: `values[r][c]` (null: undefined, drawn masked) against the screen over [lo, hi].
void CheckGrid(const json& dump, const std::string& id, const json& values, double hi, const Image& img,
               Totals* t) {
  const json* hm = FindHeatmap(dump, id);
  const long rows = long(values.size()), cols = rows ? long(values[0].size()) : 0;
  if (!hm) {
    std::printf("FAIL %s: not drawn\n", id.c_str());
    ++t->failures;
    return;
  }
  if ((*hm)["rows"] != rows || (*hm)["cols"] != cols || (*hm)["lo"] != 0.0 || std::abs((*hm)["hi"].get<double>() - hi) > 1e-9) {
    std::printf("FAIL %s: drawn %dx%d on [%g, %g], the CLI's is %ldx%ld on [0, %g]\n", id.c_str(),
                (*hm)["rows"].get<int>(), (*hm)["cols"].get<int>(), (*hm)["lo"].get<double>(),
                (*hm)["hi"].get<double>(), rows, cols, hi);
    ++t->failures;
    return;
  }
  attnlab::Colormap map;
  if (!ColormapOf(*hm, &map)) ++t->failures;
  ++t->grids;
  const float fb_scale = dump["framebuffer_scale"];
  const Grid grid = GridOf(*hm);
  const auto outlined = hm->value("outlined", std::vector<std::pair<long, long>>{});
  for (long r = 0; r < rows; ++r)
    for (long c = 0; c < cols; ++c) {
      if (std::find(outlined.begin(), outlined.end(), std::make_pair(r, c)) != outlined.end()) continue;
      const CellRect rect = CellAt(grid, r, c);
      if (!InClip(grid, rect) || !HasInterior(rect, fb_scale, 1)) {
        std::printf("FAIL %s cell (%ld, %ld) is not in view, or too small to read\n", id.c_str(), r, c);
        ++t->failures;
        continue;
      }
      const json& v = values[std::size_t(r)][std::size_t(c)];
      const attnlab::Rgb8 expected = v.is_null() ? MaskedRgb(dump) : attnlab::MapValue({map, 0.0, hi}, v.get<double>());
      double share = 0;
      const attnlab::Rgb8 actual = InteriorColor(img, rect, fb_scale, 1, &share);
      const int err = ChannelError(actual, expected);
      t->max_error = std::max(t->max_error, err);
      ++t->checked;
      if (err > kTolerance || share < 0.3) {  // hatching, a number or a token covers part of a cell
        ++t->failures;
        std::printf("FAIL %s cell (%ld, %ld): %s expects rgb(%d, %d, %d), screen has rgb(%d, %d, %d) (error %d, "
                    "share %.2f)\n",
                    id.c_str(), r, c, v.dump().c_str(), expected.r, expected.g, expected.b, actual.r, actual.g,
                    actual.b, err, share);
      }
    }
}

void CheckHeads(const json& dump, const json& cli, const Image& img, Totals* t) {
  const double span = std::max(1.0, double(cli["ids"].size()) - 1.0);  // the local span's range, in tokens
  for (const char* score : {"previous_token", "first_token", "duplicate_token", "induction", "local_span"})
    CheckGrid(dump, std::string("heads/") + score, cli["scores"][score], std::string(score) == "local_span" ? span : 1.0,
              img, t);
}

void CheckLens(const json& dump, const json& cli, const Image& img, Totals* t) {
  json top = json::array(), chosen = json::array();
  for (const json& layer : cli["layers"]) {
    json row = json::array();
    for (const json& p : layer["top"]) row.push_back(p["p"]);
    top.push_back(row);
    if (layer.contains("chosen_p")) chosen.push_back(layer["chosen_p"]);
  }
  CheckGrid(dump, "lens/top", top, 1.0, img, t);
  if (!chosen.empty()) CheckGrid(dump, "lens/chosen", chosen, 1.0, img, t);
}

}  // namespace

int Main(int argc, char** argv) {
  const std::string mode = argc >= 4 ? argv[3] : "";
  if (!((argc == 4 && (mode == "--heads" || mode == "--lens")) || (argc == 5 && mode == "--finder"))) {
    std::fprintf(stderr, "usage: %s SHOT.png CLI.json --heads|--lens|--finder SCORE\n", argv[0]);
    return 2;
  }
  Image img;
  if (!LoadScreenshot(argv[1], &img)) return 1;
  const json dump = LoadLayout(argv[1]);
  const json cli = json::parse(std::ifstream(argv[2]));
  Totals totals;
  if (mode == "--heads") CheckHeads(dump, cli, img, &totals);
  else if (mode == "--finder") CheckGrid(dump, "presenter_finder", cli["scores"][argv[4]], 1.0, img, &totals);
  else CheckLens(dump, cli, img, &totals);
  std::printf("%d grids, %d cells checked, %d failures, max channel error %d\n", totals.grids, totals.checked,
              totals.failures, totals.max_error);
  return totals.failures == 0 && totals.checked > 0 ? 0 : 1;
}

}  // namespace gui_instruments_check
