#pragma once
/// What a run other than a user's adds to the frame loop (app.cpp): `attnlab --screenshot` and the
/// test and benchmark instruments of attnlab-harness (app/instruments/). Every call defaults to
/// nothing, so a plain FrameHooks is the interactive window.
#include <string>

namespace attnlab::app {

struct AppState;
class PanelRegistry;
struct Capture;

/// How the run treats the clock and the user's files.
struct RunStyle {
  /// Frames drawn back to back (no vsync, no waiting for events), the user's files (imgui.ini,
  /// recent files, autosave) left alone and the close button not guarded: reproducible pixels.
  bool scripted = false;
  /// The file given is read before the first frame even when it is large, so that frame numbers
  /// refer to it (interactive: a large one is read off the UI thread while "Opening..." is drawn).
  bool read_file_first = false;
  /// "yes" / "no": answers the offer to restore a crashed run's work without asking (scripted
  /// runs get no offer otherwise).
  std::string recovery_answer;
  /// The first-run hint as a user's first start shows it (read from, and a dismissal written to,
  /// the config dir), even in a scripted run: its own tests. Scripted runs never show it otherwise.
  bool first_run_hint = false;
  /// Scripted, but a frame is drawn only when something asks for one (an event, a finished task,
  /// a change), as an interactive window draws them, not back to back: the typing benchmark's
  /// keystroke to grid, where frames drawn meanwhile take cores from the forward pass.
  bool frames_on_demand = false;
};

/// Calls in frame order; `frame` counts from 0. AppState::heatmaps and AppState::session are set.
class FrameHooks {
 public:
  virtual ~FrameHooks() = default;
  virtual RunStyle Style() const { return {}; }
  /// Once, when the document is open and the window exists, before the first frame.
  virtual void Start(AppState& /*state*/, PanelRegistry& /*panels*/) {}
  /// At the start of the frame, before the session's news (finished traces, files read or
  /// written, the autosave) are taken in: where a frame's time starts.
  virtual void FrameStart(int /*frame*/) {}
  /// After a finished trace was swapped in, before ImGui's new frame.
  virtual void BeforeFrame(AppState& /*state*/, int /*frame*/) {}
  /// Right after ImGui's new frame and right after the frame's windows were drawn.
  virtual void BeforeDraw(AppState& /*state*/, int /*frame*/) {}
  virtual void AfterDraw(AppState& /*state*/, int /*frame*/) {}
  /// Where this frame's pixels are read back to, or nullptr when it is not captured.
  virtual Capture* CaptureTarget(int /*frame*/) { return nullptr; }
  /// After the frame was rendered and swapped (F12 screenshots and heatmaps done).
  virtual void AfterFrame(AppState& /*state*/, int /*frame*/) {}
  /// Ends the run after this frame.
  virtual bool Done(int /*frame*/) const { return false; }
  /// After the last frame, while the window still exists; returns the process's exit code.
  virtual int Finish(AppState& /*state*/) { return 0; }
};

}  // namespace attnlab::app
