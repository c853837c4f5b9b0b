#include "instruments/model_typing_bench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "panels/app_state.h"
#include "session/model_lab.h"
#include "shell/platform.h"

namespace attnlab::app {
void ModelTypingBench::BeforeFrame(AppState& state, bool ready) {
  ModelLab* lab = state.models;
  if (!lab || !lab->Model() || typed_ == text_.size()) return;
  const BenchClock::time_point now = BenchClock::now();
  if (!started_) {
    if (!ready || lab->Busy()) return;
    started_ = true;
    prefix_ = lab->Text();
    run_serial_ = lab->RunSerial();
    // A key every every_ms_, each with the three frames a key event gets (shell/platform.cpp).
    keys_ = std::thread([this] {
      const auto frame = std::chrono::microseconds(16667);
      auto due = BenchClock::now();
      for (std::size_t key = 0; key < text_.size() && !stop_keys_; ++key, due += std::chrono::milliseconds(every_ms_))
        for (int i = 0; i < 3 && !stop_keys_; ++i) {
          std::this_thread::sleep_until(due + i * frame);
          Platform::Wake();
        }
    });
  } else if (now - last_key_ < std::chrono::milliseconds(every_ms_)) {
    return;
  }
  ++typed_;
  typed_at_.push_back(now);
  last_key_ = now;
  lab->SetText(prefix_ + text_.substr(0, typed_));  // as the field does on each keystroke
}

void ModelTypingBench::StopKeys() {
  stop_keys_ = true;
  if (keys_.joinable()) keys_.join();
}

void ModelTypingBench::AfterFrame(const AppState& state) {
  const ModelLab* lab = state.models;
  if (started_ && lab && lab->RunSerial() != run_serial_ && lab->Run()) {
    run_serial_ = lab->RunSerial();
    ++runs_drawn_;
    const std::string& ran = lab->Run()->text;
    const std::size_t ran_keys = ran.size() >= prefix_.size() ? ran.size() - prefix_.size() : 0;
    behind_max_ = std::max(behind_max_, typed_ - std::min(typed_, ran_keys));
    const BenchClock::time_point drawn = BenchClock::now();
    for (; shown_ < std::min(ran_keys, typed_); ++shown_) latency_ms_.push_back(Ms(drawn - typed_at_[shown_]));
  }
  PaceFrame(frame_start_);
}

void ModelTypingBench::Print(const AppState& state) const {
  const ModelLab* lab = state.models;
  const std::size_t tokens = lab && lab->Run() ? lab->Run()->run->ids.size() : 0;
  std::printf(
      "{\"keystrokes\":%zu,\"every_ms\":%d,\"tokens\":%zu,\"runs_drawn\":%d,\"latency_p50_ms\":%.1f,"
      "\"latency_p95_ms\":%.1f,\"latency_max_ms\":%.1f,\"behind_max\":%zu,\"settle_ms\":%.1f}\n",
      typed_, every_ms_, tokens, runs_drawn_, Percentile(latency_ms_, 0.5), Percentile(latency_ms_, 0.95),
      Percentile(latency_ms_, 1.0), behind_max_, latency_ms_.empty() ? 0.0 : latency_ms_.back());
}

}  // namespace attnlab::app
