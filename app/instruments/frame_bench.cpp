#include "instruments/frame_bench.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>

#include <time.h>

#include "panels/app_state.h"
#include "instruments/scripted_edit.h"
#include "session/trace_worker.h"

namespace attnlab::app {
namespace {

// Fixed during static initialisation, before main(): "launch" includes everything the process
// does itself (not the exec and dynamic linking before it; measure those with /usr/bin/time).
const BenchClock::time_point kLaunch = BenchClock::now();

}  // namespace

double Ms(BenchClock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5)];
}

double MillisecondsSinceLaunch() { return Ms(BenchClock::now() - kLaunch); }

namespace {
double CpuMs(clockid_t clock) {
  timespec t{};
  clock_gettime(clock, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}
double ProcessCpuMs() { return CpuMs(CLOCK_PROCESS_CPUTIME_ID); }
}  // namespace

double ThreadCpuMs() { return CpuMs(CLOCK_THREAD_CPUTIME_ID); }

void PaceFrame(BenchClock::time_point frame_start) {
  std::this_thread::sleep_until(frame_start + std::chrono::duration<double, std::milli>(1000.0 / 60.0));
}

ProcessCpuTimer::ProcessCpuTimer() : start_ms_(ProcessCpuMs()) {}

double ProcessCpuTimer::PerFrameMs(int frames) const {
  return frames > 0 ? (ProcessCpuMs() - start_ms_) / frames : 0.0;
}

void FrameTimes::EndFrame() { frame_ms_.push_back(Ms(BenchClock::now() - frame_start_)); }

void FrameTimes::Print() const {
  // CPU time of every thread (llvmpipe's too): the load-independent cost.
  std::printf("{\"frames\":%d,\"p50_ms\":%.3f,\"p95_ms\":%.3f,\"max_ms\":%.3f,\"cpu_ms_per_frame\":%.3f}\n",
              Frames(), Percentile(frame_ms_, 0.50), Percentile(frame_ms_, 0.95),
              Percentile(frame_ms_, 1.0), cpu_.PerFrameMs(Frames()));
}

void EditBench::StartFrame() {
  frame_start_ = BenchClock::now();
  frame_start_cpu_ms_ = ThreadCpuMs();
}

bool EditBench::BeforeFrame(AppState& state) {
  edit_this_frame_ = false;
  if (next_edit_frame_ < 0) {
    state.document.GetTrace();  // the document's own first trace must be on screen before timing edits
    if (!state.document.TraceStale()) next_edit_frame_ = frame_ + 2;
  }
  if (applied_ == edits_ || next_edit_frame_ < 0 || frame_ < next_edit_frame_) return true;
  // A value edit that keeps every shape, to a value no earlier edit had (a trace computed for an
  // earlier version is never the same as the new one: nothing is kept by coincidence).
  const std::string spec = what_ == "x"      ? "x=" + std::to_string(0.5 + 0.01 * applied_)
                           : what_ == "mask" ? "mask=" + std::to_string(applied_)
                                             : "scale=" + std::to_string(0.1 + 0.0005 * applied_);
  std::string error;
  if (!ApplyScriptedEdit(state, spec, &error)) {
    std::fprintf(stderr, "attnlab: --bench-edit: %s\n", error.c_str());
    applied_ = edits_;
    pending_.clear();
    return false;
  }
  superseded_ += static_cast<int>(pending_.size());  // their traces will never be drawn
  pending_.clear();
  pending_.push_back({state.document.Version(), BenchClock::now(), frame_});
  head_pending_.push_back(pending_.back());
  edit_this_frame_ = true;
  ++applied_;
  next_edit_frame_ = frame_ + every_;
  return true;
}

void EditBench::AfterFrame(const AppState& state) {
  const BenchClock::time_point end = BenchClock::now();
  frame_ms_.push_back(Ms(end - frame_start_));
  ui_cpu_ms_.push_back(ThreadCpuMs() - frame_start_cpu_ms_);
  const FrameKind kind = edit_this_frame_ ? kEditFrame
                         : state.document.TraceVersion() != trace_version_before_ ? kArrivalFrame : kOtherFrame;
  ui_cpu_max_ms_[kind] = std::max(ui_cpu_max_ms_[kind], ui_cpu_ms_.back());
  trace_version_before_ = state.document.TraceVersion();  // the next frame's PollTrace() may change it
  const std::uint64_t head = state.document.HeadVersion(state.ui.selected_head);
  for (auto it = head_pending_.begin(); it != head_pending_.end();) {
    if (head >= it->version) {
      head_latency_ms_.push_back(Ms(end - it->applied));
      it = head_pending_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (state.document.WholeTraceVersion() >= it->version) {
      latency_ms_.push_back(Ms(end - it->applied));
      frames_to_show_.push_back(frame_ - it->frame);
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
  ++frame_;
  PaceFrame(frame_start_);
}

void EditBench::Print(const AppState& state) const {
  const int worst_frames =
      frames_to_show_.empty() ? 0 : *std::max_element(frames_to_show_.begin(), frames_to_show_.end());
  std::printf(
      "{\"edits\":%d,\"shown\":%d,\"superseded\":%d,\"latency_p50_ms\":%.3f,"
      "\"latency_max_ms\":%.3f,\"head_shown\":%d,\"head_latency_p50_ms\":%.3f,\"head_latency_max_ms\":%.3f,"
      "\"frames_to_show_max\":%d,\"frames\":%d,\"frame_p50_ms\":%.3f,"
      "\"frame_p95_ms\":%.3f,\"frame_max_ms\":%.3f,\"ui_cpu_p95_ms\":%.3f,\"ui_cpu_max_ms\":%.3f,"
      "\"ui_cpu_edit_max_ms\":%.3f,\"ui_cpu_arrival_max_ms\":%.3f,\"ui_cpu_other_max_ms\":%.3f,"
      "\"sync_computes\":%d}\n",
      applied_, static_cast<int>(latency_ms_.size()), superseded_, Percentile(latency_ms_, 0.5),
      latency_ms_.empty() ? 0.0 : *std::max_element(latency_ms_.begin(), latency_ms_.end()),
      static_cast<int>(head_latency_ms_.size()), Percentile(head_latency_ms_, 0.5),
      head_latency_ms_.empty() ? 0.0 : *std::max_element(head_latency_ms_.begin(), head_latency_ms_.end()),
      worst_frames, static_cast<int>(frame_ms_.size()), Percentile(frame_ms_, 0.5),
      Percentile(frame_ms_, 0.95),
      frame_ms_.empty() ? 0.0 : *std::max_element(frame_ms_.begin(), frame_ms_.end()),
      Percentile(ui_cpu_ms_, 0.95),
      ui_cpu_ms_.empty() ? 0.0 : *std::max_element(ui_cpu_ms_.begin(), ui_cpu_ms_.end()),
      ui_cpu_max_ms_[kEditFrame], ui_cpu_max_ms_[kArrivalFrame], ui_cpu_max_ms_[kOtherFrame],
      state.document.SyncComputeCount());
}

void PrintTraceStats(const AppState& state) {
  TraceWorker::Stats w;
  if (state.document.trace_worker) w = state.document.trace_worker->GetStats();
  std::printf(
      "{\"version\":%llu,\"trace_version\":%llu,\"computes\":%d,\"sync_computes\":%d,"
      "\"ui_resolves\":%d,\"worker_resolves\":%d,\"requests\":%d,\"started\":%d,"
      "\"superseded\":%d,\"cancelled\":%d,\"discarded\":%d,\"delivered\":%d,"
      "\"edit_error\":\"%s\"}\n",
      static_cast<unsigned long long>(state.document.Version()),
      static_cast<unsigned long long>(state.document.TraceVersion()), state.document.ComputeCount(),
      state.document.SyncComputeCount(), state.document.UiResolveCount(), w.resolves, w.requests, w.started,
      w.superseded, w.cancelled, w.discarded, w.delivered,
      state.document.LastEditError().source.c_str());  // a control's name: no quotes to escape
}

}  // namespace attnlab::app
