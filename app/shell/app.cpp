#include "shell/app.h"

#include <imgui.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "panels/app_state.h"
#include "attnlab/scenario_io.h"
#include "shell/commands.h"
#include "shell/dialogs.h"
#include "session/document_io.h"
#include "instruments/cell_edit.h"
#include "instruments/frame_bench.h"
#include "widgets/heatmap.h"
#include "instruments/io_bench.h"
#include "instruments/layout_dump.h"
#include "shell/main_menu.h"
#include "instruments/open_check.h"
#include "panels/panels.h"
#include "shell/platform.h"
#include "instruments/scripted_edit.h"
#include "shell/screenshot.h"
#include "instruments/smoke.h"
#include "widgets/theme.h"
#include "session/trace_worker.h"
#include "session/user_dirs.h"
#include "shell/window_capture.h"

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

// Returns false when the file given on the command line could not be opened. `load_later`: the
// file is large and the window reads it off the UI thread (DocumentDialogs::OpenInitialFile).
bool OpenInitialDocument(AppState& state, const Options& options, bool load_later) {
  state.presets = ListPresets(FindPresetDir());
  state.document.Open(BuiltInExample(state.presets));
  const bool opened = options.file.empty() || load_later || OpenDocument(state, options.file);
  if (!opened) std::fprintf(stderr, "attnlab: showing the built-in example instead\n");
  state.ui.selected_head = std::clamp(options.head, 0, state.document.HeadCount() - 1);
  if (!options.show_panel.empty()) ShowPanel(state, options.show_panel.c_str());
  SetLectureMode(state, options.lecture);
  return opened;
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
  std::string title = "attnlab \xE2\x80\x94 " + state.document.name;
  if (state.document.IsDirty()) title += " *";
  return title;
}

void DrawFrame(AppState& state) {
  state.ui.hovered_last_frame = state.ui.hovered;
  state.ui.hovered = {};
  HandleShortcuts(state);
  DrawMainMenuBar(state);
  DrawStatusBar(state);
  DrawPanels(state);
  if (state.dialogs) state.dialogs->DrawDialogs(state);
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
  bool screenshot, bench, smoke, bench_edit, startup, check_open, bench_io;
  bool Scripted() const {
    return screenshot || bench || smoke || bench_edit || startup || check_open || bench_io;
  }
};

// Scripted screenshots wait (bounded) for a trace still computing off the UI thread.
constexpr int kMaxTraceWaitFrames = 20000;

bool WaitForTrace(AppState& state, const Options& options) {
  if (options.capture_stale) return false;
  state.document.GetTrace();  // a small trace computes now; a large one is requested
  if (!state.document.TraceStale()) return false;
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // leave the cores to the worker
  return true;
}

}  // namespace

int RunApp(const Options& options) {
  const RunMode mode{!options.screenshot_path.empty(), options.bench_frames > 0, options.smoke,
                     options.bench_edit > 0, options.bench_startup, !options.check_open.empty(),
                     !options.bench_open.empty() || options.bench_save};
  AppState state;
  // Scripted runs and --test-edit read the file before the first frame, so that their frame
  // numbers (--test-edit at frame 2, ...) refer to it; the window shows "Opening..." instead.
  const bool load_later = !mode.Scripted() && options.test_edit.empty() && !options.file.empty() &&
                          LoadsOffThread(options.file);
  const bool file_opened = OpenInitialDocument(state, options, load_later);
  CellEdit cell_edit;
  if (!options.edit_cell.empty()) {
    if (!cell_edit.Parse(options.edit_cell)) {
      std::fprintf(stderr, "attnlab: --edit-cell %s: expected M[r][c]=V\n", options.edit_cell.c_str());
      return 1;
    }
    cell_edit.Attach(state);
  }

  std::unique_ptr<OpenCheck> open_check;
  if (mode.check_open) {
    open_check = std::make_unique<OpenCheck>();
    std::string list_error;
    if (!open_check->Load(options.check_open, &list_error)) {
      std::fprintf(stderr, "attnlab: --check-open %s\n", list_error.c_str());
      return 1;
    }
  }

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
  heatmaps.work.SetUnlimited(mode.screenshot && !options.capture_stale);  // a finished picture
  state.heatmaps = &heatmaps;
  heatmaps.context_menu = [&state](const HeatmapSpec& spec) { HeatmapContextMenu(state, spec); };
  // Recent files and the autosave live in the user's directories; scripted runs (tests) leave
  // them alone unless told what to do with a crashed run's work (--restore-autosave).
  DocumentDialogs dialogs;
  dialogs.Init(mode.Scripted() ? std::string() : ConfigDir(),
               mode.Scripted() ? std::string() : StateDir());
  state.dialogs = &dialogs;
  // Large traces compute here; a finished one wakes the event loop (issue 5).
  auto trace_worker = std::make_unique<TraceWorker>([] { Platform::Wake(); });
  state.document.trace_worker = trace_worker.get();
  std::unique_ptr<EditBench> edit_bench;
  if (mode.bench_edit) edit_bench = std::make_unique<EditBench>(options.bench_edit, options.edit_every, options.edit_what);
  std::unique_ptr<IoBench> io_bench;
  if (mode.bench_io) io_bench = std::make_unique<IoBench>(options.bench_open, options.bench_save);
  if (load_later) dialogs.OpenInitialFile(state, options.file, options.head);
  if (!mode.Scripted()) {
    if (!state.document.path.empty()) dialogs.recent.Add(state.document.path);
    if (!file_opened)
      dialogs.ShowError(state, "Cannot open " + options.file, state.document.status);
  }
  if (!mode.Scripted() || !options.restore_autosave.empty())
    dialogs.OfferRecovery(state, options.restore_autosave);
  platform.SetCloseGuard(!mode.Scripted());  // the close button asks about unsaved changes
  WindowCapture window_capture;
  ThemeSync theme;
  LayoutDump dump;
  SmokeReport smoke;
  std::vector<double> frame_ms;
  std::string title;
  int exit_code = 0;
  int last_frame = mode.bench ? options.bench_frames : mode.startup ? 1 : options.frames;
  ProcessCpuTimer bench_cpu;  // started after start-up: frames only
  if (mode.bench_edit || mode.bench_io) last_frame = 1 << 30;  // ends when its work is drawn
  if (open_check) last_frame = open_check->FrameCount();

  for (int frame = 0; !platform.ShouldClose(); ++frame) {
    platform.WaitForEvents(mode.Scripted());
    for (const std::string& path : platform.TakeDroppedPaths()) dialogs.RequestOpenFile(state, path);
    theme.Apply(state, platform);
    window_capture.BeforeFrame(state, platform);
    const Clock::time_point start = Clock::now();
    const std::uint64_t trace_before = state.document.TraceVersion();
    state.document.PollTrace();  // before any panel holds the trace: a finished one is swapped in
    if (edit_bench && !edit_bench->BeforeFrame(state)) exit_code = 1;
    if (io_bench) io_bench->BeforeFrame(state, dialogs);
    if (mode.screenshot && frame == last_frame - 1 && frame < kMaxTraceWaitFrames &&
        WaitForTrace(state, options))
      ++last_frame;
    const bool capture_now = mode.screenshot && frame == last_frame - 1;
    heatmaps.BeginFrame();
    heatmaps.on_drawn = capture_now ? [&dump](const HeatmapPlacement& p) { dump.Add(p); }
                                 : std::function<void(const HeatmapPlacement&)>();
    const std::uint64_t version_before = state.document.Version();
    // --edit-cell: the Inputs panel types the value while drawing the captured frame.
    if (!options.edit_cell.empty()) cell_edit.BeforeFrame(state, capture_now || (!mode.screenshot && frame == 2));
    platform.NewFrame();
    if (open_check) open_check->BeforeDraw(state, dialogs, frame);
    DrawFrame(state);
    if (open_check) open_check->AfterDraw(state, dialogs, frame);
    if (open_check) last_frame = open_check->FrameCount();  // grows while large files load
    if (mode.smoke) SmokeStep(state, frame, &smoke);
    if (!options.test_edit.empty() && frame == 2 && !ApplyScriptedEdit(state, options.test_edit, &error)) {
      std::fprintf(stderr, "attnlab: %s\n", error.c_str());
      exit_code = 1;
    }
    if (!options.test_edit_next.empty() && frame == 3 &&
        !ApplyScriptedEdit(state, options.test_edit_next, &error)) {
      std::fprintf(stderr, "attnlab: %s\n", error.c_str());
      exit_code = 1;
    }
    Capture capture;
    platform.Render(capture_now ? &capture : window_capture.Target());
    window_capture.AfterFrame(state, platform);
    if (const int key = platform.TakeScreenshotKey()) dialogs.RequestScreenshot(key);
    if (const int scale = dialogs.TakeScreenshotRequest())
      window_capture.Request(scale, NextScreenshotPath(scale));
    dialogs.autosave.Tick(state.document);
    heatmaps.EndFrame();
    frame_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    if (mode.startup && frame == 0) std::printf("{\"first_frame_ms\":%.1f}\n", MillisecondsSinceLaunch());
    if (edit_bench) edit_bench->AfterFrame(state);
    if (io_bench) io_bench->AfterFrame(state, dialogs);
    if (WindowTitle(state) != title) platform.SetTitle(title = WindowTitle(state));
    // An edit made during this frame is drawn in the next one: ask for it even when idle.
    if (state.document.Version() != version_before || state.document.TraceVersion() != trace_before ||
        heatmaps.WorkDeferred() || dialogs.Busy())  // "Opening..." is drawn until the file is in
      platform.RequestFrames(2);
    if (capture_now && !WriteScreenshot(options, capture, dump, state, platform.FramebufferScale()))
      exit_code = 1;
    if (mode.Scripted() && frame + 1 >= last_frame) break;
    if (edit_bench && edit_bench->Done()) break;
    if (io_bench && io_bench->Done()) break;
    if (platform.TakeCloseRequest() || std::exchange(state.ui.quit_requested, false))
      dialogs.RequestQuit(state);  // asks first when there are unsaved changes
    if (dialogs.QuitConfirmed()) platform.SetShouldClose();
  }
  if (!options.edit_cell.empty() && !cell_edit.Applied()) {
    std::fprintf(stderr, "attnlab: --edit-cell %s was not applied\n", options.edit_cell.c_str());
    exit_code = 1;
  }
  // A clean exit: the work was saved or deliberately discarded, the autosave is no longer needed.
  dialogs.autosave.Remove();
  if (options.print_scenario)
    std::printf("%s\n", attnlab::scenario_to_json(state.document.GetScenario()).dump(2).c_str());

  if (mode.bench)  // CPU time of every thread (llvmpipe's too): the load-independent cost
    std::printf("{\"frames\":%d,\"p50_ms\":%.3f,\"p95_ms\":%.3f,\"max_ms\":%.3f,\"cpu_ms_per_frame\":%.3f}\n",
                int(frame_ms.size()), Percentile(frame_ms, 0.50), Percentile(frame_ms, 0.95),
                Percentile(frame_ms, 1.0), bench_cpu.PerFrameMs(int(frame_ms.size())));
  if (edit_bench) edit_bench->Print(state);
  if (io_bench) io_bench->Print(dialogs);
  if (options.trace_stats) PrintTraceStats(state);
  if (mode.smoke) {
    std::printf("{\"frames\":%d,\"actions\":%d,\"versions\":%d,\"computes\":%d,\"uploads\":%d}\n",
                int(frame_ms.size()), smoke.actions, smoke.versions, state.document.ComputeCount(),
                heatmaps.uploads);
    // Recompute only on change: never more computes than scenario versions seen.
    if (state.document.ComputeCount() > smoke.versions + 1) {
      smoke.ok = false;
      smoke.failure = "the trace was recomputed without a change";
    }
    if (!smoke.ok) {
      std::fprintf(stderr, "attnlab: smoke run failed: %s\n", smoke.failure.c_str());
      exit_code = 1;
    }
  }
  heatmaps.Release();
  state.document.trace_worker = nullptr;
  trace_worker.reset();  // joins the worker before GLFW, which it wakes, goes away
  platform.Shutdown();
  return exit_code;
}

}  // namespace attnlab::app
