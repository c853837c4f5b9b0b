// The window computes large traces off the UI thread (app/trace_worker.h). Under Xvfb, on a
// generated scenario too large to compute synchronously:
//  1. a screenshot taken at once (--capture-stale) may show the "computing" state, and the UI
//     thread computed nothing itself;
//  2. a screenshot that waits for the worker shows the core's weights, pixel for pixel;
//  3. two edits in consecutive frames (the first superseded while it is pending or computing):
//     the screen shows the trace of the last edit, never the first, and still no trace was
//     computed on the UI thread.
// No wall-clock assertion anywhere: the window's own counters (--trace-stats) say who computed.
//
// usage: attnlab_gui_worker_check APP MAKE_SCENARIO OUT_DIR
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "attnlab/attention.h"
#include "attnlab/colormap.h"
#include "attnlab/scenario_io.h"
#include "gui_check_support.h"

namespace gui_worker_check {

namespace {

using namespace gui_check;

constexpr int kTolerance = 2;  // per 8-bit channel, as gui_pixel_check
constexpr int kMaxCellsPerHeatmap = 64;
constexpr const char* kShape = "1024x64x4";  // 4M weight cells: off the UI thread

// Runs `command` (echoed for the log), returns its exit status and its standard output.
int Run(const std::string& command, std::string* out) {
  std::printf("running: %s\n", command.c_str());
  int status = 0;
  if (!RunCapture(command, out, &status)) return -1;
  return ExitCode(status);
}

// The last line of the output that parses as a JSON object holding `key`.
nlohmann::json JsonLine(const std::string& out, const char* key) {
  nlohmann::json found;
  std::size_t start = 0;
  while (start < out.size()) {
    std::size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    const std::string line = out.substr(start, end - start);
    if (!line.empty() && line[0] == '{') {
      nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
      if (!j.is_discarded() && j.contains(key)) found = j;
    }
    start = end + 1;
  }
  return found;
}

// Weight cells on screen against `trace`; returns the number of failures, counts cells checked.
int CheckWeights(const std::string& png, const attnlab::Trace& trace, int* checked) {
  Image img;
  if (!LoadScreenshot(png, &img)) return 1;
  const nlohmann::json dump = LoadLayout(png);
  attnlab::Colormap map;
  if (!ColormapOf(dump, &map)) return 1;
  const attnlab::Rgb8 masked_rgb = MaskedRgb(dump);
  const float fb = dump["framebuffer_scale"];
  int failures = 0;
  for (const nlohmann::json& hm : dump["heatmaps"]) {
    if (hm["matrix"] != "weights") continue;
    const int head = hm["head"];
    if (head < 0 || head >= int(trace.heads.size())) return failures + 1;
    const attnlab::HeadTrace& h = trace.heads[static_cast<std::size_t>(head)];
    const attnlab::Matrix& w = h.weights;
    if (hm["rows"] != w.rows() || hm["cols"] != w.cols()) {
      std::printf("FAIL %s: drawn %dx%d, core %dx%d\n", hm["id"].get<std::string>().c_str(),
                  hm["rows"].get<int>(), hm["cols"].get<int>(), int(w.rows()), int(w.cols()));
      ++failures;
      continue;
    }
    // Sample along the diagonal band, where causal weights are far from 0 and differ by edit.
    const long step = std::max(1L, static_cast<long>(w.rows()) / (8 * kMaxCellsPerHeatmap));
    for (long r = 0; r < w.rows(); r += step) {
      for (long c : {r, r / 2, std::max(0L, r - 1)}) {
        int cx = 0, cy = 0;
        attnlab::Rgb8 expected;  // pooled heatmaps: the colour of the block holding (r, c)
        if (!WeightProbe(hm, img, fb, trace, head, r, c, map, masked_rgb, &cx, &cy, &expected)) continue;
        const attnlab::Rgb8 actual = img.At(cx, cy);
        const int err = ChannelError(actual, expected);
        ++*checked;
        if (err > kTolerance) {
          ++failures;
          if (failures <= 10)
            std::printf("FAIL %s (%ld, %ld): weight %.6f expects rgb(%d, %d, %d), screen rgb(%d, %d, %d)\n",
                        hm["id"].get<std::string>().c_str(), r, c, w(r, c), expected.r, expected.g,
                        expected.b, actual.r, actual.g, actual.b);
        }
      }
    }
  }
  return failures;
}

// Runs the window, parses --trace-stats, checks that the UI thread computed nothing.
bool RunWindow(const std::string& command, nlohmann::json* stats) {
  std::string out;
  const int status = Run(command + " --trace-stats", &out);
  *stats = JsonLine(out, "sync_computes");
  std::printf("  exit %d, stats %s\n", status, stats->dump().c_str());
  if (status != 0 || stats->is_null()) {
    std::printf("FAIL: the window failed or printed no --trace-stats\n");
    return false;
  }
  if ((*stats)["sync_computes"] != 0) {
    std::printf("FAIL: a %s trace was computed on the UI thread\n", kShape);
    return false;
  }
  return true;
}

bool ExpectShown(const nlohmann::json& stats, const std::string& png, const attnlab::Trace& trace,
                 const char* what) {
  if (stats["trace_version"] != stats["version"]) {
    std::printf("FAIL %s: the screenshot shows trace version %s of document version %s\n", what,
                stats["trace_version"].dump().c_str(), stats["version"].dump().c_str());
    return false;
  }
  int checked = 0;
  const int failures = CheckWeights(png, trace, &checked);
  std::printf("  %s: %d weight cells checked, %d failures\n", what, checked, failures);
  if (checked < 16) std::printf("FAIL %s: too few weight cells on screen\n", what);
  return failures == 0 && checked >= 16;
}

}  // namespace

int Main(int argc, char** argv) {
  CheckerArgs args;
  if (!ParseCheckerArgs(argc, argv, &args)) return 2;
  const std::string &app = args.app, &dir = args.dir;
  const std::string scenario = dir + "/worker-" + kShape + ".json";
  if (!MakeCausalScenario(args, kShape, scenario, 5)) return 1;
  const std::string window = Quote(app) + " " + Quote(scenario) + " --screenshot ";
  bool ok = true;
  nlohmann::json stats;

  // 1. At once: stale or computing is allowed, computing on the UI thread is not.
  ok = RunWindow(window + Quote(dir + "/worker-first.png") + " --frames 2 --capture-stale", &stats) && ok;

  // 2. Waiting for the worker: the core's weights.
  const attnlab::Scenario loaded = attnlab::load_scenario(scenario);
  if (RunWindow(window + Quote(dir + "/worker-done.png") + " --frames 3", &stats))
    ok = ExpectShown(stats, dir + "/worker-done.png", attnlab::compute(loaded), "loaded") && ok;
  else
    ok = false;

  // 3. Two edits one frame apart: only the second may ever be drawn.
  if (RunWindow(window + Quote(dir + "/worker-edits.png") +
                    " --frames 6 --test-edit scale=0.5 --test-edit-next scale=0.03",
                &stats)) {
    attnlab::Scenario last = loaded;
    last.scale.kind = attnlab::Scale::Kind::value;
    last.scale.value = 0.03;
    ok = ExpectShown(stats, dir + "/worker-edits.png", attnlab::compute(last), "after two edits") && ok;
    std::printf("  superseded before starting: %s, discarded after computing: %s\n",
                stats["superseded"].dump().c_str(), stats["discarded"].dump().c_str());
  } else {
    ok = false;
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}

}  // namespace gui_worker_check
