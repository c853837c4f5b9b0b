// Editing one cell of a matrix changes the scores, weights and output heatmaps IN THE SAME FRAME.
//
// Runs the real window with `--edit-cell SPEC` (e.g. W_q[0][1]=0.5): the Inputs panel types the
// value into that cell, through the same code as a double-click, while drawing the frame that the
// screenshot captures. This program then applies the same edit to the scenario itself, computes
// the trace with the core, and checks that every visible cell of the scores, weights and output
// heatmaps in that screenshot has the colour of the EDITED trace (colour range included). So that
// the check cannot pass when nothing changed, it also requires that, for each of the three stages,
// some checked cell's expected colour differs between the original and the edited scenario.
//
// usage: attnlab_gui_edit_check APP SCENARIO OUT.png EDIT [app arguments...]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "attnlab/attention.h"
#include "attnlab/colormap.h"
#include "attnlab/edits.h"
#include "attnlab/scenario_io.h"
#include "gui_check_support.h"

namespace gui_edit_check {

namespace {

using namespace gui_check;

constexpr int kTolerance = 2;  // per 8-bit channel
constexpr int kMaxCellsPerHeatmap = 64;

// The edit, applied the way the window stores it, by the core's own parser and setter (the
// window's Inputs panel uses the same): "W_q[0][1]=0.5" sets stored W_q(0, 1);
// "heads[1].W_q[0][1]=0.5" the same cell of head 1's own W_q.
bool ApplyEdit(attnlab::Scenario& s, const std::string& spec) {
  try {
    attnlab::set_cell(s, attnlab::parse_cell_edit(spec));
    return true;
  } catch (const attnlab::ScenarioError& e) {
    std::printf("edit %s: %s\n", spec.c_str(), e.what());
    return false;
  }
}

const attnlab::Matrix* StageMatrix(const attnlab::Trace& t, const std::string& stage, int head) {
  if (stage == "output") return &t.output;
  if (head < 0 || head >= int(t.heads.size())) return nullptr;
  const attnlab::HeadTrace& h = t.heads[static_cast<std::size_t>(head)];
  if (stage == "scores") return &h.scores;
  if (stage == "weights") return &h.weights;
  return nullptr;
}

// The range the window must use for this stage: [0, 1] for weights, +-max|v| otherwise.
void ExpectedRange(const std::string& stage, const attnlab::Matrix& m, double* lo, double* hi) {
  if (stage == "weights") {
    *lo = 0;
    *hi = 1;
    return;
  }
  double max_abs = 0;
  for (Eigen::Index i = 0; i < m.size(); ++i)
    if (std::isfinite(m.data()[i])) max_abs = std::max(max_abs, std::fabs(m.data()[i]));
  if (max_abs == 0) max_abs = 1;
  *lo = -max_abs;
  *hi = max_abs;
}

struct StageTotals {
  int checked = 0, changed = 0, failures = 0;
};

void CheckHeatmap(const nlohmann::json& hm, const attnlab::Trace& before, const attnlab::Trace& after,
                  const Image& img, float fb_scale, StageTotals* t) {
  const std::string stage = hm["matrix"], id = hm["id"];
  const int head = hm["head"];
  const attnlab::Matrix* now = StageMatrix(after, stage, head);
  const attnlab::Matrix* old = StageMatrix(before, stage, head);
  if (!now || !old || hm["rows"] != now->rows() || hm["cols"] != now->cols()) {
    std::printf("FAIL %s: drawn as %dx%d, not a %s matrix of the edited trace\n", id.c_str(),
                hm["rows"].get<int>(), hm["cols"].get<int>(), stage.c_str());
    ++t->failures;
    return;
  }
  attnlab::Colormap map;
  if (!ColormapOf(hm, &map)) {
    ++t->failures;
    return;
  }
  double lo = 0, hi = 1, old_lo = 0, old_hi = 1;
  ExpectedRange(stage, *now, &lo, &hi);
  ExpectedRange(stage, *old, &old_lo, &old_hi);
  if (std::fabs(hm["lo"].get<double>() - lo) > 1e-9 * std::max(1.0, std::fabs(lo)) ||
      std::fabs(hm["hi"].get<double>() - hi) > 1e-9 * std::max(1.0, std::fabs(hi))) {
    std::printf("FAIL %s: colour range [%g, %g], the edited trace needs [%g, %g]\n", id.c_str(),
                hm["lo"].get<double>(), hm["hi"].get<double>(), lo, hi);
    ++t->failures;
  }
  const Grid grid = GridOf(hm);
  const long cells = now->size();
  const long stride = std::max(1L, cells / kMaxCellsPerHeatmap);
  for (long k = 0; k < cells; k += stride) {
    const int r = int(k / now->cols()), c = int(k % now->cols());
    if (!std::isfinite((*now)(r, c))) continue;  // masked cells: the mask tests cover them
    if (stage == "weights" && after.is_masked(r, c)) continue;
    const CellRect rect = CellAt(grid, r, c);
    if (!InClip(grid, rect)) continue;
    const int inset = 2;
    if (!HasInterior(rect, fb_scale, inset)) continue;
    double share = 0;
    const attnlab::Rgb8 actual = InteriorColor(img, rect, fb_scale, inset, &share);
    const attnlab::Rgb8 expected = attnlab::MapValue({map, lo, hi}, (*now)(r, c));
    const attnlab::Rgb8 unedited = attnlab::MapValue({map, old_lo, old_hi}, (*old)(r, c));
    ++t->checked;
    if (ChannelError(expected, unedited) > kTolerance) ++t->changed;
    const int err = ChannelError(actual, expected);
    if (err > kTolerance || share < 0.4) {
      ++t->failures;
      std::printf("FAIL %s cell (%d, %d): edited value %.6f expects rgb(%d, %d, %d), screen has "
                  "rgb(%d, %d, %d) (error %d, share %.2f; unedited would be rgb(%d, %d, %d))\n",
                  id.c_str(), r, c, (*now)(r, c), expected.r, expected.g, expected.b, actual.r,
                  actual.g, actual.b, err, share, unedited.r, unedited.g, unedited.b);
    }
  }
}

}  // namespace

int Main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s APP SCENARIO OUT.png EDIT [app arguments...]\n", argv[0]);
    return 2;
  }
  const std::string app = argv[1], scenario_path = argv[2], out = argv[3], edit = argv[4];
  PrepareOutput(out);
  std::string command = ScreenshotCommand(app, scenario_path, out) + " --edit-cell " + Quote(edit);
  AppendArgs(&command, argc, argv, 5);
  if (!RunEchoed(command)) {
    std::printf("FAIL: the window exited with an error (edit refused or not applied?)\n");
    return 1;
  }
  Image img;
  if (!LoadScreenshot(out, &img)) return 1;
  const nlohmann::json dump = LoadLayout(out);
  const attnlab::Scenario original = attnlab::load_scenario(scenario_path);
  attnlab::Scenario edited = original;
  if (!ApplyEdit(edited, edit)) {
    std::printf("FAIL: cannot apply %s to %s here\n", edit.c_str(), scenario_path.c_str());
    return 1;
  }
  const attnlab::Trace before = attnlab::compute(original), after = attnlab::compute(edited);
  std::map<std::string, StageTotals> totals{{"scores", {}}, {"weights", {}}, {"output", {}}};
  for (const nlohmann::json& hm : dump["heatmaps"]) {
    const std::string stage = hm["matrix"];
    if (totals.count(stage) && !hm["texture"].get<bool>())
      CheckHeatmap(hm, before, after, img, dump["framebuffer_scale"], &totals[stage]);
  }
  bool ok = true;
  for (const auto& [stage, t] : totals) {
    std::printf("%-8s %3d cells checked, %3d show the edit, %d failures\n", stage.c_str(), t.checked,
                t.changed, t.failures);
    if (t.failures > 0) ok = false;
    if (t.checked == 0 || t.changed == 0) {
      std::printf("FAIL %s: %s\n", stage.c_str(),
                  t.checked == 0 ? "no visible cell was checked" : "the edit changes no checked cell");
      ok = false;
    }
  }
  return ok ? 0 : 1;
}

}  // namespace gui_edit_check
