#include "app.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "app_state.h"
#include "commands.h"
#include "heatmap.h"
#include "layout_dump.h"
#include "main_menu.h"
#include "panels.h"
#include "platform.h"
#include "screenshot.h"
#include "smoke.h"
#include "theme.h"

namespace attnlab::app {
namespace {

using Clock = std::chrono::steady_clock;

// ImGui's window layout lives in the user's config directory, never the working directory.
std::string ConfigIniPath() {
  namespace fs = std::filesystem;
  fs::path dir;
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg)
    dir = fs::path(xdg) / "attnlab";
  else if (const char* home = std::getenv("HOME"); home && *home)
    dir = fs::path(home) / ".config" / "attnlab";
  else
    return {};
  std::error_code ec;
  fs::create_directories(dir, ec);
  return ec ? std::string() : (dir / "imgui.ini").string();
}

void OpenInitialDocument(AppState& state, const Options& options) {
  state.presets = ListPresets(FindPresetDir());
  state.Open(BuiltInExample(state.presets));
  if (!options.file.empty() && !OpenDocument(state, options.file))
    std::fprintf(stderr, "attnlab: showing the built-in example instead\n");
  state.ui.selected_head = std::clamp(options.head, 0, state.HeadCount() - 1);
  SetLectureMode(state, options.lecture);
}

// Applies lecture mode changes between frames: a new font atlas at the lecture scale (crisp) and
// the matching style.
class ThemeSync {
 public:
  void Apply(const AppState& state, Platform& platform) {
    const float scale = state.ui.lecture_mode ? state.ui.lecture_scale : 1.0f;
    if (applied_ && scale == scale_ && state.ui.lecture_mode == lecture_) return;
    if (!applied_ || scale != scale_) platform.RebuildFonts(scale);
    ApplyStyle(state.ui.lecture_mode, scale);
    scale_ = scale;
    lecture_ = state.ui.lecture_mode;
    applied_ = true;
  }

 private:
  bool applied_ = false, lecture_ = false;
  float scale_ = 1.0f;
};

std::string WindowTitle(const AppState& state) {
  std::string title = "attnlab \xE2\x80\x94 " + state.document_name;
  if (state.IsDirty()) title += " *";
  return title;
}

void DrawFrame(AppState& state) {
  state.ui.hovered = {};
  HandleShortcuts(state);
  DrawMainMenuBar(state);
  DrawStatusBar(state);
  DrawPanels(state);
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t i = static_cast<std::size_t>(std::clamp(p * (v.size() - 1) + 0.5, 0.0, v.size() - 1.0));
  return v[i];
}

bool WriteScreenshot(const Options& options, const Capture& capture, const LayoutDump& dump,
                     const AppState& state, float fb_scale) {
  std::string error;
  if (!WritePng(options.screenshot_path, capture, &error) ||
      !dump.Write(options.screenshot_path + ".json", capture.width, capture.height, fb_scale, state,
                  &error)) {
    std::fprintf(stderr, "attnlab: %s\n", error.c_str());
    return false;
  }
  return true;
}

struct RunMode {
  bool screenshot, bench, smoke;
  bool Scripted() const { return screenshot || bench || smoke; }
};

}  // namespace

int RunApp(const Options& options) {
  const RunMode mode{!options.screenshot_path.empty(), options.bench_frames > 0, options.smoke};
  AppState state;
  OpenInitialDocument(state, options);

  PlatformConfig config;
  config.width = options.width;
  config.height = options.height;
  config.vsync = !mode.Scripted();
  config.ini_path = mode.Scripted() ? std::string() : ConfigIniPath();  // scripted runs: reproducible
  config.park_cursor = mode.Scripted();
  Platform platform;
  std::string error;
  if (!platform.Init(config, &error)) {
    std::fprintf(stderr, "attnlab: %s\n", error.c_str());
    return 1;
  }
  HeatmapContext heatmaps;
  state.heatmaps = &heatmaps;
  ThemeSync theme;
  LayoutDump dump;
  SmokeReport smoke;
  std::vector<double> frame_ms;
  std::string title;
  int exit_code = 0;
  const int last_frame = mode.bench ? options.bench_frames : options.frames;

  for (int frame = 0; !platform.ShouldClose(); ++frame) {
    platform.WaitForEvents(mode.Scripted());
    for (const std::string& path : platform.TakeDroppedPaths()) OpenDocument(state, path);
    theme.Apply(state, platform);
    const Clock::time_point start = Clock::now();
    const bool capture_now = mode.screenshot && frame == last_frame - 1;
    heatmaps.BeginFrame();
    heatmaps.dump = capture_now ? &dump : nullptr;
    const std::uint64_t version_before = state.Version();
    platform.NewFrame();
    DrawFrame(state);
    if (mode.smoke) SmokeStep(state, frame, &smoke);
    Capture capture;
    platform.Render(capture_now ? &capture : nullptr);
    heatmaps.EndFrame();
    frame_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    if (WindowTitle(state) != title) platform.SetTitle(title = WindowTitle(state));
    // An edit made during this frame is drawn in the next one: ask for it even when idle.
    if (state.Version() != version_before) platform.RequestFrames(2);
    if (capture_now && !WriteScreenshot(options, capture, dump, state, platform.FramebufferScale()))
      exit_code = 1;
    if (mode.Scripted() && frame + 1 >= last_frame) break;
    if (state.ui.quit_requested) platform.SetShouldClose();
  }

  if (mode.bench)
    std::printf("{\"frames\":%d,\"p50_ms\":%.3f,\"p95_ms\":%.3f}\n", int(frame_ms.size()),
                Percentile(frame_ms, 0.50), Percentile(frame_ms, 0.95));
  if (mode.smoke) {
    std::printf("{\"frames\":%d,\"actions\":%d,\"versions\":%d,\"computes\":%d,\"uploads\":%d}\n",
                int(frame_ms.size()), smoke.actions, smoke.versions, state.ComputeCount(),
                heatmaps.uploads);
    // Recompute only on change: never more computes than scenario versions seen.
    if (state.ComputeCount() > smoke.versions + 1) {
      smoke.ok = false;
      smoke.failure = "the trace was recomputed without a change";
    }
    if (!smoke.ok) {
      std::fprintf(stderr, "attnlab: smoke run failed: %s\n", smoke.failure.c_str());
      exit_code = 1;
    }
  }
  heatmaps.Release();
  platform.Shutdown();
  return exit_code;
}

}  // namespace attnlab::app
