#include "shell/app.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>

#include "panels/app_state.h"
#include "session/document_io.h"
#include "session/model_lab.h"
#include "session/session.h"
#include "shell/actions.h"
#include "shell/commands.h"
#include "shell/dialogs.h"
#include "shell/heatmap_export.h"
#include "widgets/heatmap.h"
#include "shell/main_menu.h"
#include "panels/panels.h"
#include "shell/platform.h"
#include "shell/screenshot.h"
#include "shell/sweep_export.h"
#include "widgets/theme.h"
#include "session/trace_worker.h"
#include "session/user_dirs.h"
#include "session/window_settings.h"
#include "shell/window_capture.h"
#include "view/ui_scale.h"

namespace attnlab::app {
namespace {

// A folder given on the command line or dropped is a model (config.json, weights, tokenizer).
bool IsFolder(const std::string& path) {
  std::error_code ec;
  return !path.empty() && std::filesystem::is_directory(path, ec);
}

// What the window remembers lives in the user's config directory, never the working directory.
std::string SettingsPath() {
  const std::string dir = ConfigDir();
  return dir.empty() ? std::string() : dir + "/settings.json";
}

// The file given on the command line, through the session's one path. `load_later`: the file is
// large and the window reads it off the UI thread. `interactive`: a failure is also shown.
void OpenInitialDocument(AppState& state, Session& session, PanelRegistry& panels,
                         const Options& options, bool load_later, bool interactive) {
  // --head when given, else the head the file records (a model's layer: AppState selects it on
  // opening) or 0; once a large file is in too.
  const auto select = [&state, head = options.head] {
    if (head >= 0) state.ui.selected_head = std::clamp(head, 0, std::max(0, state.document.HeadCount() - 1));
  };
  session.SetOnStartFileOpened(select);
  session.OpenAtStart(options.file, load_later, interactive);
  select();
  SetLectureMode(state, panels, options.lecture);
}

// Applies zoom and lecture mode changes between frames: a new font atlas at the UI scale (crisp)
// and the matching style.
class ThemeSync {
 public:
  void Apply(const AppState& state, Platform& platform) {
    const float scale = UiScale(state.ui, platform.WindowHeight());
    if (applied_ && scale == scale_ && state.ui.lecture_mode == lecture_) return;
    if (!applied_ || scale != scale_) platform.RebuildFonts(scale);
    platform.ApplyStyle(state.ui.lecture_mode, scale);
    scale_ = scale;
    lecture_ = state.ui.lecture_mode;
    applied_ = true;
  }

 private:
  bool applied_ = false, lecture_ = false;
  float scale_ = 1.0f;
};

// Reads the user's window settings at start and writes them back whenever they change (not in
// the middle of a drag). Scripted runs have no path: they never read or write them.
class SettingsSync {
 public:
  void Load(const std::string& path, AppState& state, PanelRegistry& panels) {
    path_ = path;
    if (path_.empty()) return;
    saved_ = LoadWindowSettings(path_);
    state.ui.zoom = saved_.zoom;
    state.ui.lecture_scale = saved_.lecture_scale;
    panels.SetShares(saved_.shares);
    panels.SetOpenPanels(saved_.open_panels);
  }
  void Save(const AppState& state, const PanelRegistry& panels) {
    if (path_.empty() || ImGui::IsMouseDown(ImGuiMouseButton_Left)) return;
    WindowSettings now{state.ui.zoom, state.ui.lecture_scale, panels.Shares(),
                       panels.OpenPanels(state.ui.lecture_mode)};
    if (now == saved_) return;
    std::string error;
    if (!SaveWindowSettings(path_, now, &error))
      std::fprintf(stderr, "attnlab: cannot keep the window settings: %s\n", error.c_str());
    saved_ = std::move(now);  // one line per change, not one per frame
  }

 private:
  std::string path_;
  WindowSettings saved_;
};

std::string WindowTitle(const AppState& state) {
  std::string title = "attnlab \xE2\x80\x94 " + state.document.name;
  if (state.document.IsDirty()) title += " *";
  return title;
}

void DrawFrame(ActionContext& ctx, const ActionTable& actions) {
  AppState& state = ctx.state;
  state.ui.hover.NextFrame();
  actions.HandleShortcuts(ctx);
  DrawMainMenuBar(ctx, actions);
  DrawStatusBar(state);
  state.sweep.Tick(state.document, ImGui::GetTime());  // before the panels: they draw this frame's value
  ctx.panels.DrawPanels(state);
  if (state.sweep.Started()) state.sweep.Record(state.document, state.document.GetTrace());  // no sweep: no trace asked for
  if (ctx.dialogs) ctx.dialogs->DrawDialogs(state);
}

// Everything one run of the window owns. Members are declared in the order they are needed.
struct Window {
  AppState state;
  const ActionTable actions;  // the menus, the shortcuts and Help's list of them
  PanelRegistry panels{actions.HelpRows()};
  ActionContext action_context{state, panels, nullptr};
  Session session;
  ModelLab models;  // after the session: its work runs on the session's TaskRunner
  Platform platform;
  HeatmapContext heatmaps;
  DocumentDialogs dialogs{session};
  std::unique_ptr<TraceWorker> trace_worker;
  WindowCapture window_capture;
  ThemeSync theme;
  SettingsSync settings;
  std::string title;
  bool model_loading = false;                   // as of last frame (FollowModel)
  const models::HfModel* model_shown = nullptr;  // the model whose panels were brought to the front
};

// The document first (scripted runs read even a large file now), then the window, then the
// dialogs around the document. Returns false when the window cannot be opened.
bool Open(Window& w, const Options& options, const RunStyle& style) {
  AppState& state = w.state;
  // `attnlab FOLDER`: the model opens beside the built-in example.
  const std::string model_folder = IsFolder(options.file) ? options.file : std::string();
  Options start = options;
  if (!model_folder.empty()) start.file.clear();
  const bool load_later = !style.read_file_first && !start.file.empty() && LoadsOffThread(start.file);
  // Recent files and the autosave live in the user's directories; scripted runs leave them alone
  // unless told what to do with a crashed run's work.
  const bool user_files = !style.scripted;
  state.presets = ListPresets(FindPresetDir());
  w.session.Init(state.document, state.presets, user_files ? ConfigDir() : std::string(),
                 user_files ? StateDir() : std::string());
  state.session = &w.session;
  w.settings.Load(user_files ? SettingsPath() : std::string(), state, w.panels);
  if (user_files || style.first_run_hint) state.first_run_hint.Load(ConfigDir());
  OpenInitialDocument(state, w.session, w.panels, start, load_later, user_files);
  w.models.Init(w.session, state.document);
  state.models = &w.models;
  state.requests = &w.panels;
  if (!model_folder.empty()) w.models.RequestOpen(model_folder);
  PlatformConfig config;
  config.width = options.width;
  config.height = options.height;
  config.vsync = !style.scripted;
  config.park_cursor = style.scripted;
  std::string error;
  if (!w.platform.Init(config, &error)) {
    std::fprintf(stderr, "attnlab: %s\n", error.c_str());
    return false;
  }
  state.heatmaps = &w.heatmaps;
  w.heatmaps.context_menu = [&state, &dialogs = w.dialogs](const HeatmapSpec& spec) {
    const auto request = [&](FigureExport job) {
      dialogs.RequestFigureExport(state, std::move(job));
    };
    HeatmapContextMenu(state, dialogs.export_settings, request, spec);
  };
  state.locate_model = [&state, &dialogs = w.dialogs] { dialogs.ShowLocateModel(state); };
  state.lines_context_menu = [&state, &dialogs = w.dialogs] {
    LinesContextMenu(state, dialogs.export_settings,
                     [&](FigureExport job) { dialogs.RequestFigureExport(state, std::move(job)); });
  };
  state.sweep_recorder = {[&state](const attnlab::Sweep& sweep) { RecordSweepGif(state, sweep); },
                          [&state] { return RecordingSweepGif(state); }};
  w.action_context.dialogs = &w.dialogs;
  // Large traces compute here; a finished trace, read or write wakes the event loop.
  w.trace_worker = std::make_unique<TraceWorker>([] { Platform::Wake(); });
  state.document.trace_worker = w.trace_worker.get();
  w.session.Tasks().SetOnFinished([] { Platform::Wake(); });
  if (user_files || !style.recovery_answer.empty()) w.session.OfferRecovery(style.recovery_answer);
  w.platform.SetCloseGuard(user_files);  // the close button asks about unsaved changes
  return true;
}

// The model's news, after the session's: the lab follows the document, and a model being opened
// (or just opened) brings its panels to the front.
void FollowModel(Window& w) {
  w.models.Tick();
  const bool loading = w.models.Loading();
  const models::HfModel* model = w.models.Model();
  if ((loading && !w.model_loading) || (model && model != w.model_shown)) {
    w.panels.ShowPanel("Model");
    if (model) w.panels.ShowPanel("Next token");
  }
  w.model_loading = loading;
  w.model_shown = model;
}

// One frame: events, the document's news, drawing, rendering, then what the frame asked for.
// Returns false once the hooks end the run.
bool Frame(Window& w, FrameHooks& hooks, bool continuous, int frame) {
  AppState& state = w.state;
  w.platform.WaitForEvents(continuous);
  for (const std::string& path : w.platform.TakeDroppedPaths())
    IsFolder(path) ? w.models.RequestOpen(path) : w.session.RequestOpen(path);
  if (const int zoom = w.platform.TakeCtrlWheel()) Zoom(state.ui, w.platform.WindowHeight(), zoom);
  w.theme.Apply(state, w.platform);
  w.window_capture.BeforeFrame(state, w.platform);
  const std::uint64_t trace_before = state.document.TraceVersion();
  hooks.FrameStart(frame);
  state.document.SetHeadFirst(state.ui.selected_head);  // large traces: its stages first
  w.session.Poll();  // before any panel holds the trace: finished traces, reads and writes, autosave
  FollowModel(w);
  hooks.BeforeFrame(state, frame);
  w.heatmaps.BeginFrame();
  const std::uint64_t version_before = state.document.Version();
  w.platform.NewFrame();
  hooks.BeforeDraw(state, frame);
  DrawFrame(w.action_context, w.actions);
  hooks.AfterDraw(state, frame);

  Capture* const capture = hooks.CaptureTarget(frame);
  w.platform.Render(capture ? capture : w.window_capture.Target());
  w.window_capture.AfterFrame(state, w.platform);
  if (const int key = w.platform.TakeScreenshotKey())  // 1: F12, 2: Shift+F12
    w.actions.RunPlatformKey(w.action_context, {GLFW_KEY_F12, false, key == 2});
  if (const int scale = w.dialogs.TakeScreenshotRequest())
    w.window_capture.Request(scale, NextScreenshotPath(scale));
  w.heatmaps.EndFrame();
  hooks.AfterFrame(state, frame);
  w.settings.Save(state, w.panels);

  if (WindowTitle(state) != w.title) w.platform.SetTitle(w.title = WindowTitle(state));
  // An edit made during this frame is drawn in the next one: ask for it even when idle.
  if (state.document.Version() != version_before || state.document.TraceVersion() != trace_before ||
      w.heatmaps.WorkDeferred() || w.session.Busy() || state.sweep.Playing() ||  // "Opening..." is drawn until the file is in
      // Not while a model's run or prediction computes: its end wakes the loop (the session's
      // TaskRunner), and the unchanged grid drawn 60 times a second meanwhile took the cores the
      // forward pass needs (GPT-2 small at 61 tokens: 0.35-0.55 s alone, 0.73-0.81 s beside it).
      w.models.Loading() ||  // "Loading gpt2..."
      state.ui.animating)
    w.platform.RequestFrames(2);
  state.ui.animating = false;  // a playing panel sets it again in the next frame
  if (hooks.Done(frame)) return false;
  if (w.platform.TakeCloseRequest())
    w.session.RequestQuit();  // asks first when there are unsaved changes
  if (w.session.QuitConfirmed()) w.platform.SetShouldClose();
  return true;
}

}  // namespace

int RunApp(const Options& options, FrameHooks* hooks) {
  FrameHooks interactive;
  FrameHooks& run = hooks ? *hooks : interactive;
  const RunStyle style = run.Style();
  Window w;
  if (!Open(w, options, style)) return 1;
  run.Start(w.state, w.panels);
  for (int frame = 0; !w.platform.ShouldClose(); ++frame)
    if (!Frame(w, run, style.scripted && !style.frames_on_demand, frame)) break;
  // A clean exit: the work was saved or deliberately discarded, the autosave is no longer needed.
  w.session.Close();
  const int exit_code = run.Finish(w.state);
  w.heatmaps.Release();
  w.state.document.trace_worker = nullptr;
  w.trace_worker.reset();  // joins the worker before GLFW, which it wakes, goes away
  w.session.Tasks().SetOnFinished({});  // tasks still running finish without waking GLFW
  w.platform.Shutdown();
  return exit_code;
}

}  // namespace attnlab::app
