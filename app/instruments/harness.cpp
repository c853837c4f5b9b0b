#include "instruments/harness.h"

#include <imgui.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <utility>

#include <nlohmann/json.hpp>

#include "attnlab/scenario_io.h"
#include "instruments/glyph_check.h"
#include "instruments/keep_libraries.h"
#include "instruments/scripted_edit.h"
#include "panels/app_state.h"
#include "panels/panels.h"
#include "session/model_lab.h"
#include "session/session.h"
#include "session/trace_worker.h"
#include "shell/screenshot_hooks.h"
#include "widgets/heatmap.h"

namespace attnlab::app {

Harness::Harness(HarnessOptions options) : o_(std::move(options)) {
  const HarnessOptions& o = o_;
  last_frame_ = o.bench_frames > 0 ? o.bench_frames : o.bench_startup ? 1 : o.window.frames;
  if (o.bench_edit > 0) edit_bench_ = std::make_unique<EditBench>(o.bench_edit, o.edit_every, o.edit_what);
  if (!o.bench_open.empty() || o.bench_save) io_bench_ = std::make_unique<IoBench>(o.bench_open, o.bench_save);
  if (!o.bench_model_typing.empty())
    typing_bench_ = std::make_unique<ModelTypingBench>(o.bench_model_typing, o.type_every_ms);
  if (edit_bench_ || io_bench_ || typing_bench_) last_frame_ = 1 << 30;  // ends when its work is drawn
  std::string error;
  if (!o.edit_cell.empty()) cell_edit_.Parse(o.edit_cell, &error);  // checked by ParseHarnessOptions
  model_script_.Parse(o.model_text, o.model_layer, o.model_heads_off, &error);  // likewise
  model_script_.SetPair(o.model_pair);
}

bool Harness::Prepare() {
  if (o_.check_open.empty()) return true;
  open_check_ = std::make_unique<OpenCheck>();
  std::string error;
  if (!open_check_->Load(o_.check_open, &error)) {
    std::fprintf(stderr, "attnlab: --check-open %s\n", error.c_str());
    return false;
  }
  last_frame_ = open_check_->FrameCount();
  return true;
}

bool Harness::Scripted() const {
  return Screenshot() || o_.bench_frames > 0 || o_.smoke || edit_bench_ || o_.bench_startup || open_check_ ||
         io_bench_ || typing_bench_;
}

RunStyle Harness::Style() const {
  RunStyle style;
  style.scripted = Scripted();
  // Frame numbers of --test-edit (frame 2, ...) refer to the file: read it before the first frame.
  style.read_file_first = Scripted() || !o_.test_edit.empty();
  style.recovery_answer = o_.restore_autosave;
  style.first_run_hint = o_.first_run_hint;
  style.frames_on_demand = typing_bench_ != nullptr;
  return style;
}

void Harness::Start(AppState& state, PanelRegistry& panels) {
  panels_ = &panels;
  state.heatmaps->work.SetUnlimited(Screenshot() && !o_.capture_stale);  // a finished picture
  if (!o_.show_panel.empty()) panels.ShowPanel(o_.show_panel.c_str());
  if (o_.hold_patching && state.models) state.models->Patching().HoldNextRun();
  if (!o_.layout_log.empty()) layout_log_ = std::make_unique<LayoutLog>(o_.layout_log);
  if (!o_.input_log.empty()) input_log_ = std::make_unique<InputLog>(o_.input_log);
  if (!o_.capture_on.empty() && !Screenshot()) capture_watch_ = std::make_unique<TriggerWatch>(o_.capture_on);
  if (!o_.wake_on.empty()) wake_watch_ = std::make_unique<TriggerWatch>(o_.wake_on);
  if (!o_.edit_cell.empty()) cell_edit_.Attach(state, panels);
  frame_times_.Start();
}

// Frames are timed from before the session's news are taken in: adopting a trace, opening a file
// read in the background and the autosave are the frame's work too.
void Harness::FrameStart(int /*frame*/) {
  frame_times_.BeginFrame();
  if (edit_bench_) edit_bench_->StartFrame();
  if (io_bench_) io_bench_->StartFrame();
  if (typing_bench_) typing_bench_->StartFrame();
}

void Harness::BeforeFrame(AppState& state, int frame) {
  if (edit_bench_ && !edit_bench_->BeforeFrame(state)) exit_code_ = 1;
  if (io_bench_) io_bench_->BeforeFrame(*state.session);
  model_script_.BeforeFrame(state);
  if (typing_bench_) typing_bench_->BeforeFrame(state, model_script_.Done(state));
  HeadFirst(state);
  if (Screenshot() && !o_.capture_stale && frame == last_frame_ - 1 && frame < kMaxTraceWaitFrames &&
      (WaitForTrace(state) || !model_script_.Done(state)))
    ++last_frame_;
  capture_now_ = (Screenshot() && frame == last_frame_ - 1) || CaptureTriggered();
  state.heatmaps->on_drawn = nullptr;
  dump_.Clear();
  state.on_control = nullptr;
  if (capture_now_ || layout_log_)
    state.heatmaps->on_drawn = [this](const HeatmapPlacement& p) {
      if (capture_now_) dump_.Add(p);
      if (layout_log_) layout_log_->Add(p);
    };
  if (capture_now_) state.on_control = [this](const ControlMark& m) { dump_.AddControl(m); };
  // --edit-cell: the Inputs panel types the value while drawing the captured frame.
  if (!o_.edit_cell.empty()) cell_edit_.BeforeFrame(state, capture_now_ || (!Screenshot() && frame == 2));
}

// After the shell's SetHeadFirst and before the panels ask for a trace.
void Harness::HeadFirst(AppState& state) {
  if (o_.head_first == "off") state.document.SetHeadFirst(-1);
  if (o_.head_first != "hold" || holding_ || !state.document.trace_worker) return;
  if (state.document.TraceStale() || state.document.GetTrace().heads.empty()) return;
  state.document.trace_worker->HoldRestAfterHead(true);
  holding_ = true;
}

// --capture-on: the trigger file is taken (removed) by the frame that captures. One that reads
// "layout" asks for the layout dump alone: no read-back, no PNG, where a test reads only the dump.
bool Harness::CaptureTriggered() {
  if (o_.capture_on.empty() || Screenshot()) return false;
  std::string request;
  std::ifstream(o_.capture_on) >> request;
  std::error_code ec;
  if (!std::filesystem::remove(o_.capture_on, ec)) return false;
  layout_only_ = request == "layout";
  capture_path_ = o_.capture_on + ".png";
  return true;
}

void Harness::BeforeDraw(AppState& state, int frame) {
  glyph_check::MarkFallbacks();  // a capture's dump counts the characters drawn without a glyph
  if (input_log_) input_log_->Observe();
  if (open_check_) open_check_->BeforeDraw(state, *state.session, frame);
}

void Harness::AfterDraw(AppState& state, int frame) {
  if (open_check_) {
    open_check_->AfterDraw(state, *state.session, frame);
    last_frame_ = open_check_->FrameCount();  // grows while large files load
  }
  if (o_.smoke) SmokeStep(state, *panels_, frame, &smoke_);
  if (layout_log_) layout_log_->AfterDraw(state, *panels_);
  if (capture_now_) dump_.SetArrangement(WindowArrangement(state, *panels_));
  if (!o_.test_edit.empty() && frame == 2) Edit(state, o_.test_edit);
  if (!o_.test_edit_next.empty() && frame == 3) Edit(state, o_.test_edit_next);
}

void Harness::Edit(AppState& state, const std::string& spec) {
  std::string error;
  if (ApplyScriptedEdit(state, spec, &error)) return;
  std::fprintf(stderr, "attnlab: %s\n", error.c_str());
  exit_code_ = 1;
}

void Harness::AfterFrame(AppState& state, int frame) {
  frame_times_.EndFrame();
  if (o_.bench_startup && frame == 0) std::printf("{\"first_frame_ms\":%.1f}\n", MillisecondsSinceLaunch());
  if (edit_bench_) edit_bench_->AfterFrame(state);
  if (io_bench_) io_bench_->AfterFrame(state, *state.session);
  if (typing_bench_) typing_bench_->AfterFrame(state);
  // A model opened brings its Model panel to the front: --show-panel's (the Head finder) comes back.
  if (!o_.show_panel.empty() && state.models && state.models->Model() != shown_model_) {
    shown_model_ = state.models->Model();
    panels_->ShowPanel(o_.show_panel.c_str());
  }
  // A panel drawn for the first time this frame may have just started its work (the head finder's
  // scores): the picture waits for it.
  if (capture_now_ && Screenshot() && !o_.capture_stale && frame < kMaxTraceWaitFrames &&
      state.session->Tasks().Busy())
    ++last_frame_;
  else if (capture_now_)
    WriteScreenshot(state);
  if (input_log_) input_log_->Write(frame, state);  // last: a test that reads it finds the frame done
}

void Harness::WriteScreenshot(const AppState& state) {
  std::string error;
  const std::string& path = Screenshot() ? o_.window.screenshot_path : capture_path_;
  const ImGuiIO& io = ImGui::GetIO();
  const float fb_scale = io.DisplayFramebufferScale.x;
  if (layout_only_) {  // no picture read back: the framebuffer's size as GLFW gives it
    capture_.width = int(io.DisplaySize.x * fb_scale);
    capture_.height = int(io.DisplaySize.y * io.DisplayFramebufferScale.y);
  }
  if ((!layout_only_ && !WritePng(path, capture_, &error)) ||
      !dump_.Write(path + ".json", capture_.width, capture_.height, fb_scale, state, &error)) {
    std::fprintf(stderr, "attnlab: %s\n", error.c_str());
    exit_code_ = 1;
  }
}

bool Harness::Done(int frame) const {
  return (Scripted() && frame + 1 >= last_frame_) || (edit_bench_ && edit_bench_->Done()) ||
         (io_bench_ && io_bench_->Done()) || (typing_bench_ && typing_bench_->Done());
}

int Harness::Finish(AppState& state) {
  capture_watch_.reset();  // they wake GLFW, which goes away after this
  if (typing_bench_) typing_bench_->StopKeys();
  wake_watch_.reset();
  if (!o_.edit_cell.empty() && !cell_edit_.Applied()) {
    std::fprintf(stderr, "attnlab: --edit-cell %s was not applied\n", o_.edit_cell.c_str());
    exit_code_ = 1;
  }
  if (o_.print_scenario)
    std::printf("%s\n", attnlab::scenario_to_json(state.document.GetScenario()).dump(2).c_str());
  if (o_.bench_frames > 0) frame_times_.Print();
  if (edit_bench_) edit_bench_->Print(state);
  if (io_bench_) io_bench_->Print(*state.session);
  if (typing_bench_) typing_bench_->Print(state);
  if (o_.trace_stats) PrintTraceStats(state);
  if (o_.print_view) PrintView(state);
  if (o_.smoke) FinishSmoke(state);
  KeepLibrariesLoadedUntilExit();  // the GL driver too, for LeakSanitizer's report at exit
  return exit_code_;
}

void Harness::PrintView(const AppState& state) const {
  nlohmann::json in_front = nlohmann::json::array();
  for (const Panel& panel : panels_->List())
    if (panels_->PanelInFront(panel.name)) in_front.push_back(panel.name);
  const nlohmann::json view = {{"first_run_hint", state.first_run_hint.Due()},
                               {"in_front", in_front}};
  std::printf("%s\n", view.dump().c_str());
}

void Harness::FinishSmoke(AppState& state) {
  std::printf("{\"frames\":%d,\"actions\":%d,\"versions\":%d,\"computes\":%d,\"uploads\":%d}\n",
              frame_times_.Frames(), smoke_.actions, smoke_.versions, state.document.ComputeCount(),
              state.heatmaps->uploads);
  // Recompute only on change: never more computes than scenario versions seen.
  if (state.document.ComputeCount() > smoke_.versions + 1) {
    smoke_.ok = false;
    smoke_.failure = "the trace was recomputed without a change";
  }
  if (!smoke_.ok) {
    std::fprintf(stderr, "attnlab: smoke run failed: %s\n", smoke_.failure.c_str());
    exit_code_ = 1;
  }
}

}  // namespace attnlab::app
