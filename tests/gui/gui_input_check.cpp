// End-to-end test with real input events: starts the real window under Xvfb, clicks a cell of the
// Mask panel's grid with xdotool (a real X pointer event), then presses Ctrl+Z, and checks after
// each step that the attention weights on screen are the colours the core computes: after the
// click, query 0 may no longer attend key 2, so weights[0, 2] is drawn masked and row 0 is
// renormalised over the remaining keys; after the undo, the original weights are back.
//
// Where to click comes from a first run with --screenshot (its OUT.png.json layout dump); the
// interactive run uses the same window size, so the layout is the same.
//
// usage: attnlab_gui_input_check APP SCENARIO OUTDIR [--size WxH]
// Eigen (via attnlab) first: X11's headers #define Success, which Eigen uses as a name.
#include "attnlab/attention.h"
#include "attnlab/colormap.h"
#include "attnlab/scenario_io.h"
#include "gui_check_support.h"  // before X11 too: it includes nlohmann/json and attnlab
#include "gui_x11_support.h"

#include <stb_image_write.h>  // implementation in Debian's libstb.so

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace gui_input_check {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using namespace gui_check;

constexpr int kTolerance = 2;  // per 8-bit channel
constexpr int kQuery = 0, kKey = 2;  // the mask cell clicked (rows layout: query row, key column)

void Save(const Image& img, const fs::path& path) {
  stbi_write_png(path.c_str(), img.width, img.height, 3, img.rgb.data(), img.width * 3);
}

// The most frequent colour in a cell's interior: its fill, even with digits printed over it.
attnlab::Rgb8 CellColor(const Image& img, const Json& hm, int r, int c) {
  const double cell = hm["cell"], gap = hm["gap"];
  const int inset = std::max(1, int(cell / 8));
  const int x0 = int(double(hm["x0"]) + c * cell) + inset, y0 = int(double(hm["y0"]) + r * cell) + inset;
  const int x1 = int(double(hm["x0"]) + (c + 1) * cell - gap) - inset;
  const int y1 = int(double(hm["y0"]) + (r + 1) * cell - gap) - inset;
  double share = 0;  // not checked here: the colour alone decides
  return DominantColor(img, x0, y0, x1, y1, &share);
}

bool CellVisible(const Json& hm, int r, int c, const Image& img) {
  const double cell = hm["cell"];
  const double x0 = double(hm["x0"]) + c * cell, y0 = double(hm["y0"]) + r * cell;
  const Json& clip = hm["clip"];
  return x0 >= double(clip[0]) && y0 >= double(clip[1]) && x0 + cell <= double(clip[2]) &&
         y0 + cell <= double(clip[3]) && x0 + cell <= img.width && y0 + cell <= img.height;
}

// Every visible weights cell of head 0 against the core's weights; masked cells in masked_rgb.
// `step` null: a silent probe (the wait loop), only counting failures.
int CheckWeights(const Image& img, const Json& dump, const attnlab::Trace& trace, const char* step,
                 int* checked) {
  const attnlab::Rgb8 masked = MaskedRgb(dump);
  const attnlab::HeadTrace& h = trace.heads.front();
  int failures = 0;
  for (const Json& hm : dump["heatmaps"]) {
    if (hm["matrix"] != "weights" || hm["head"] != 0 || hm["texture"]) continue;
    attnlab::Colormap map = attnlab::Colormap::Viridis;
    ColormapOf(hm, &map);
    const attnlab::ColorScale scale{map, hm["lo"], hm["hi"]};
    for (int r = 0; r < h.weights.rows(); ++r)
      for (int c = 0; c < h.weights.cols(); ++c) {
        if (!CellVisible(hm, r, c, img)) continue;
        const bool is_masked = trace.is_masked(r, c);
        const attnlab::Rgb8 want = is_masked ? masked : attnlab::MapValue(scale, h.weights(r, c));
        const attnlab::Rgb8 got = CellColor(img, hm, r, c);
        ++*checked;
        if (ChannelError(want, got) > kTolerance) {
          ++failures;
          if (!step) continue;
          std::printf("FAIL %s %s[%d,%d]: weight %.4f%s, want rgb(%d,%d,%d), screen rgb(%d,%d,%d)\n",
                      step, hm["id"].get<std::string>().c_str(), r, c, h.weights(r, c),
                      is_masked ? " (masked)" : "", want.r, want.g, want.b, got.r, got.g, got.b);
        }
      }
  }
  return failures;
}

const Json* FindHeatmap(const Json& dump, const std::string& id) {
  for (const Json& hm : dump["heatmaps"])
    if (hm["id"] == id) return &hm;
  return nullptr;
}

}  // namespace

int Main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s APP SCENARIO OUTDIR [--size WxH]\n", argv[0]);
    return 2;
  }
  const std::string app = argv[1], scenario_path = argv[2];
  const fs::path out = argv[3];
  const std::string size = argc >= 6 ? argv[5] : "1280x800";
  // A fresh home: no saved window layout, recent files or autosave (a recovery prompt after the
  // last run's SIGTERM) changes what is drawn.
  fs::remove_all(out / "home");
  fs::create_directories(out / "home");
  setenv("HOME", (out / "home").c_str(), 1);
  setenv("XDG_CONFIG_HOME", (out / "home" / "config").c_str(), 1);
  setenv("XDG_DATA_HOME", (out / "home" / "data").c_str(), 1);
  setenv("XDG_STATE_HOME", (out / "home" / "state").c_str(), 1);
  setenv("XDG_CACHE_HOME", (out / "home" / "cache").c_str(), 1);

  // 1. Where things are: a scripted run of the same size writes the layout dump.
  const fs::path shot = out / "input-layout.png";
  const std::string cmd =
      Quote(app) + " " + Quote(scenario_path) + " --size " + size + " --screenshot " + Quote(shot.string());
  if (std::system(cmd.c_str()) != 0) {
    std::printf("FAIL: %s\n", cmd.c_str());
    return 1;
  }
  const Json dump = LoadLayout(shot.string());
  const Json* mask = FindHeatmap(dump, "mask");
  if (!mask || int((*mask)["cols"]) <= kKey) {
    std::printf("FAIL: no mask grid with %d+ keys in the layout dump\n", kKey + 1);
    return 1;
  }

  // The core's predictions: before (as loaded) and after forbidding query 0 -> key 2.
  attnlab::Scenario before = attnlab::load_scenario(scenario_path);
  if (before.layout != attnlab::Layout::rows || before.mask.cells) {
    std::printf("FAIL: the test scenario must be rows layout without custom mask cells\n");
    return 1;
  }
  attnlab::Scenario after = before;
  after.mask.cells = attnlab::Matrix::Ones(before.n_x(), before.n_z());
  (*after.mask.cells)(kQuery, kKey) = 0.0;
  const attnlab::Trace trace_before = attnlab::compute(before), trace_after = attnlab::compute(after);
  if (trace_before.is_masked(kQuery, kKey)) {
    std::printf("FAIL: weights[%d,%d] must be allowed before the click\n", kQuery, kKey);
    return 1;
  }

  // 2. The real window, driven by real X input events.
  App running;
  if (!running.Start({app, scenario_path, "--size", size})) {
    std::printf("FAIL: could not start %s\n", app.c_str());
    return 1;
  }
  const std::string win_text = running.Window();
  if (win_text.empty()) {
    std::printf("FAIL: the window did not appear\n");
    return 1;
  }
  const unsigned long win = std::stoul(win_text);
  Display* dpy = XOpenDisplay(nullptr);
  if (!dpy) {
    std::printf("FAIL: cannot open the X display\n");
    return 1;
  }
  int checked = 0, failures = 0;
  Image img;
  const Json* w = FindHeatmap(dump, "weights/0");
  if (!w) w = FindHeatmap(dump, "overview/0");
  if (!w) {
    std::printf("FAIL: no weights heatmap of head 0 in the layout dump\n");
    return 1;
  }
  auto matches = [&dump](const attnlab::Trace& t) {
    return [&dump, &t](const Image& im) {
      int n = 0;
      return CheckWeights(im, dump, t, nullptr, &n) == 0 && n > 0;
    };
  };
  WaitFor(dpy, win, &img, matches(trace_before));
  failures += CheckWeights(img, dump, trace_before, "before", &checked);
  Save(img, out / "input-0-before.png");

  // Click the mask cell (query 0, key 2), then move the pointer away (no hover frame or tooltip).
  const double cell = (*mask)["cell"];
  const int cx = int(double((*mask)["x0"]) + (kKey + 0.5) * cell);
  const int cy = int(double((*mask)["y0"]) + (kQuery + 0.5) * cell);
  const std::string wid = std::to_string(win);
  // Focus first: without a window manager nothing focuses the window, and ImGui 1.86's GLFW
  // backend reads the pointer only while the window has the focus.
  Run("xdotool windowfocus --sync " + wid + " mousemove --window " + wid + " " +
      std::to_string(cx) + " " + std::to_string(cy) + " sleep 0.3 click 1 sleep 0.3" +
      " mousemove --window " + wid + " 2 2");
  WaitFor(dpy, win, &img, matches(trace_after));
  Save(img, out / "input-1-clicked.png");
  const int after_failures = CheckWeights(img, dump, trace_after, "after click", &checked);
  if (after_failures) std::printf("FAIL: the click on mask cell (%d, %d) did not mask weights[%d,%d]\n",
                                  kQuery, kKey, kQuery, kKey);
  failures += after_failures;

  // Ctrl+Z: the keyboard undoes the click; the loaded weights are back.
  // XTEST events to the focused window (--window would send synthetic events GLFW ignores); the
  // key is held across a few frames, as a person would, so ImGui 1.86 sees it down.
  Run("xdotool windowfocus --sync " + wid +
      " keydown ctrl sleep 0.1 keydown z sleep 0.3 keyup z sleep 0.1 keyup ctrl");
  WaitFor(dpy, win, &img, matches(trace_before));
  Save(img, out / "input-2-undone.png");
  failures += CheckWeights(img, dump, trace_before, "after undo", &checked);
  XCloseDisplay(dpy);

  std::printf("%d weights cells checked over 3 steps, %d failures\n", checked, failures);
  if (checked < 3 * 3) {
    std::printf("FAIL: too few cells checked (is the weights heatmap on screen?)\n");
    return 1;
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace gui_input_check
