// The first-run hint and F1 with real keys (xdotool) in a fresh HOME, pixels read back from the
// X server:
//  1. scripted runs: --first-run-hint draws the hint in the menu bar (its colour, from the layout
//     dump, fills a button's worth of the bar); a plain scripted run never draws it;
//  2. the real window's first start shows the hint, but not while presenting (P; Esc: back); F1
//     takes it away for good (the flag file in the config dir) and puts the Help panel in front
//     (--print-view on exit);
//  3. a relaunch in the same HOME shows no hint.
// usage: attnlab_gui_first_run_check APP SCENARIO OUTDIR
#include "gui_check_support.h"  // before X11: it includes nlohmann/json and attnlab
#include "gui_x11_support.h"

#include <stb_image_write.h>  // implementation in Debian's libstb.so

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gui_first_run_check {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using namespace gui_check;

// The hint button's area is ~400 x 20 px at 1280x800; its text and rounding cover some of it.
constexpr int kHintPixels = 2000;

// Where and in which colour to look for the hint: the scripted run's layout dump.
struct HintLook {
  attnlab::Rgb8 rgb;
  int bar_height = 0;
};

// Pixels of the hint's colour in the menu bar (exact: nothing else there is drawn in it).
int HintPixels(const Image& img, const HintLook& look) {
  int n = 0;
  for (int y = 0; y < std::min(look.bar_height, img.height); ++y)
    for (int x = 0; x < img.width; ++x) n += ChannelError(img.At(x, y), look.rgb) == 0;
  return n;
}

bool Fail(const std::string& what) {
  std::printf("FAIL: %s\n", what.c_str());
  return false;
}

// Step 1: the scripted screenshots; fills `look` from the forced one's dump.
bool ScriptedRuns(const std::string& app, const std::string& scenario, const fs::path& out,
                  HintLook* look) {
  const fs::path forced = out / "first-run-forced.png", plain = out / "first-run-plain.png";
  const std::string base = Quote(app) + " " + Quote(scenario) + " --size 1280x800 --screenshot ";
  if (std::system((base + Quote(forced.string()) + " --first-run-hint").c_str()) != 0 ||
      std::system((base + Quote(plain.string())).c_str()) != 0)
    return Fail("a scripted screenshot failed");
  const Json hint = LoadLayout(forced.string())["first_run_hint"];
  const auto rgb = hint["rgb"].get<std::vector<int>>();
  look->rgb = {static_cast<unsigned char>(rgb[0]), static_cast<unsigned char>(rgb[1]),
               static_cast<unsigned char>(rgb[2])};
  look->bar_height = static_cast<int>(hint["menu_bar_height"].get<float>());
  Image shot;
  if (!hint["due"].get<bool>() || !LoadScreenshot(forced.string(), &shot))
    return Fail("--first-run-hint: not due");
  const int forced_px = HintPixels(shot, *look);
  if (!LoadScreenshot(plain.string(), &shot)) return false;
  const int plain_px = HintPixels(shot, *look);
  std::printf("scripted: %d hint pixels with --first-run-hint, %d without\n", forced_px, plain_px);
  if (forced_px < kHintPixels) return Fail("--first-run-hint drew no hint in the menu bar");
  if (plain_px != 0 || LoadLayout(plain.string())["first_run_hint"]["due"].get<bool>())
    return Fail("a scripted run showed the hint: existing screenshots would change");
  return true;
}

// One start of the real window; `act` drives it; Ctrl+Q quits it; returns what --print-view said.
template <class Act>
bool Session(const std::string& app, const std::string& scenario, const fs::path& view_json,
             Act act, Json* view) {
  App running;
  if (!running.Start({app, scenario, "--size", "1280x800", "--print-view"}, view_json.string()))
    return Fail("could not start " + app);
  const std::string wid = running.Window();
  if (wid.empty()) return Fail("the window did not appear");
  Display* dpy = XOpenDisplay(nullptr);
  if (!dpy) return Fail("cannot open the X display");
  const bool acted = act(dpy, std::stoul(wid), wid);
  XCloseDisplay(dpy);
  // Keys go to the focused window as XTEST events, held over a few frames (ImGui 1.86).
  Run("xdotool windowfocus --sync " + wid +
      " keydown ctrl sleep 0.1 keydown q sleep 0.3 keyup q sleep 0.1 keyup ctrl");
  if (!running.WaitExit(10000)) return Fail("Ctrl+Q did not quit the window cleanly");
  std::ifstream in(view_json);
  *view = Json::parse(in, nullptr, false);
  if (view->is_discarded()) return Fail("no --print-view JSON in " + view_json.string());
  std::printf("--print-view: %s\n", view->dump().c_str());
  return acted;
}

bool Contains(const Json& list, const char* name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

}  // namespace

int Main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s APP SCENARIO OUTDIR\n", argv[0]);
    return 2;
  }
  const std::string app = argv[1], scenario = argv[2];
  const fs::path out = argv[3], home = out / "first-run-home";
  fs::remove_all(home);
  fs::create_directories(home);
  setenv("HOME", home.c_str(), 1);
  setenv("XDG_CONFIG_HOME", (home / "config").c_str(), 1);
  setenv("XDG_STATE_HOME", (home / "state").c_str(), 1);
  setenv("XDG_PICTURES_DIR", (home / "pictures").c_str(), 1);
  const fs::path flag = home / "config" / "attnlab" / "first-run-hint-dismissed";

  HintLook look;
  if (!ScriptedRuns(app, scenario, out, &look)) return 1;
  if (fs::exists(flag)) return Fail("showing the hint wrote the flag: only a dismissal may"), 1;

  // 2. First start: the hint is there; F1 takes it away and brings the guide to the front.
  Json view;
  const bool first = Session(
      app, scenario, out / "first-run-1.json",
      [&](Display* dpy, unsigned long win, const std::string& wid) {
        Image img;
        const bool shown = WaitFor(
            dpy, win, &img, [&](const Image& i) { return HintPixels(i, look) >= kHintPixels; });
        stbi_write_png((out / "first-run-1-hint.png").c_str(), img.width, img.height, 3,
                       img.rgb.data(), img.width * 3);
        if (!shown)
          return Fail("the first start shows no hint (" + std::to_string(HintPixels(img, look)) +
                      " pixels)");
        // Presenting (P) hides it from the class; Esc brings it back.
        Run("xdotool windowfocus --sync " + wid + " keydown p sleep 0.3 keyup p");
        const bool hidden =
            WaitFor(dpy, win, &img, [&](const Image& i) { return HintPixels(i, look) == 0; });
        stbi_write_png((out / "first-run-1-presenting.png").c_str(), img.width, img.height, 3,
                       img.rgb.data(), img.width * 3);
        if (!hidden)
          return Fail("the hint stays while presenting (" + std::to_string(HintPixels(img, look)) + " pixels)");
        Run("xdotool windowfocus --sync " + wid + " keydown Escape sleep 0.3 keyup Escape");
        if (!WaitFor(dpy, win, &img, [&](const Image& i) { return HintPixels(i, look) >= kHintPixels; }))
          return Fail("the hint did not come back after presenting");
        Run("xdotool windowfocus --sync " + wid + " keydown F1 sleep 0.3 keyup F1");
        const bool gone =
            WaitFor(dpy, win, &img, [&](const Image& i) { return HintPixels(i, look) == 0; });
        stbi_write_png((out / "first-run-2-after-f1.png").c_str(), img.width, img.height, 3,
                       img.rgb.data(), img.width * 3);
        return gone || Fail("the hint is still drawn after F1");
      },
      &view);
  if (!first) return 1;
  if (view["first_run_hint"].get<bool>()) return Fail("the hint is still due after F1"), 1;
  if (!Contains(view["in_front"], "Help"))
    return Fail("F1 did not bring the Help panel to the front"), 1;
  if (!fs::exists(flag)) return Fail("F1 did not remember the dismissal in " + flag.string()), 1;

  // 3. Relaunch: no hint, frame after frame.
  const bool second = Session(
      app, scenario, out / "first-run-3.json",
      [&](Display* dpy, unsigned long win, const std::string&) {
        Image img;
        for (int i = 0; i < 10; ++i) {
          if (!Capture(dpy, win, &img)) return Fail("cannot read the window back");
          if (HintPixels(img, look) != 0) return Fail("the relaunched window shows the hint again");
          Sleep(150);
        }
        stbi_write_png((out / "first-run-3-relaunch.png").c_str(), img.width, img.height, 3,
                       img.rgb.data(), img.width * 3);
        return true;
      },
      &view);
  if (!second || view["first_run_hint"].get<bool>())
    return Fail("the relaunch has the hint due"), 1;
  std::printf("first run: hint shown, F1 opened the guide and dismissed it; relaunch: no hint\n");
  return 0;
}

}  // namespace gui_first_run_check
