#pragma once
/// attnlab-harness's hooks into the window's frame loop (shell/frame_hooks.h): the instruments its
/// command line asks for, each called at its point of the frame. Screenshots here also write
/// OUT.png.json, the layout dump the pixel checkers read.
#include <memory>
#include <string>

#include "instruments/cell_edit.h"
#include "instruments/frame_bench.h"
#include "instruments/harness_options.h"
#include "instruments/input_log.h"
#include "instruments/io_bench.h"
#include "instruments/layout_dump.h"
#include "instruments/layout_log.h"
#include "instruments/model_script.h"
#include "instruments/model_typing_bench.h"
#include "instruments/open_check.h"
#include "instruments/smoke.h"
#include "instruments/trigger_watch.h"
#include "panels/panels.h"
#include "shell/frame_hooks.h"
#include "shell/screenshot.h"

namespace attnlab::app {

class Harness : public FrameHooks {
 public:
  explicit Harness(HarnessOptions options);
  /// What must be read before a window opens (--check-open's list). False: the error is printed.
  bool Prepare();

  RunStyle Style() const override;
  void Start(AppState& state, PanelRegistry& panels) override;
  void FrameStart(int frame) override;
  void BeforeFrame(AppState& state, int frame) override;
  void BeforeDraw(AppState& state, int frame) override;
  void AfterDraw(AppState& state, int frame) override;
  Capture* CaptureTarget(int /*frame*/) override {
    return capture_now_ && !layout_only_ ? &capture_ : nullptr;
  }
  void AfterFrame(AppState& state, int frame) override;
  bool Done(int frame) const override;
  int Finish(AppState& state) override;

 private:
  /// Runs that end by themselves: no vsync, no user files, reproducible.
  bool Scripted() const;
  bool Screenshot() const { return !o_.window.screenshot_path.empty(); }
  bool CaptureTriggered();
  void HeadFirst(AppState& state);
  void Edit(AppState& state, const std::string& spec);
  void WriteScreenshot(const AppState& state);
  void FinishSmoke(AppState& state);
  void PrintView(const AppState& state) const;

  HarnessOptions o_;
  std::unique_ptr<OpenCheck> open_check_;
  std::unique_ptr<EditBench> edit_bench_;
  std::unique_ptr<IoBench> io_bench_;
  std::unique_ptr<ModelTypingBench> typing_bench_;
  ScriptedCellEdit cell_edit_;
  ModelScript model_script_;
  FrameTimes frame_times_;
  SmokeReport smoke_;
  LayoutDump dump_;
  std::unique_ptr<LayoutLog> layout_log_;
  std::unique_ptr<InputLog> input_log_;
  std::unique_ptr<TriggerWatch> capture_watch_;  ///< wakes an idle window for --capture-on
  std::unique_ptr<TriggerWatch> wake_watch_;     ///< --wake-on: frames without idle waits
  Capture capture_;
  bool capture_now_ = false;
  bool layout_only_ = false;         ///< this --capture-on writes the layout dump alone
  bool holding_ = false;             ///< --head-first hold has started
  std::string capture_path_;         ///< --capture-on's picture
  PanelRegistry* panels_ = nullptr;  ///< the window's, from Start()
  const void* shown_model_ = nullptr;  ///< the model --show-panel was brought back in front after
  int last_frame_ = 0;
  int exit_code_ = 0;
};

}  // namespace attnlab::app
