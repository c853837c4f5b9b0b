#include "instruments/trigger_watch.h"

#include <chrono>
#include <filesystem>
#include <system_error>
#include <utility>

#include "shell/platform.h"

namespace attnlab::app {

TriggerWatch::TriggerWatch(std::string path) : path_(std::move(path)), thread_([this] { Run(); }) {}

TriggerWatch::~TriggerWatch() {
  stop_ = true;
  thread_.join();
}

// Wakes the window again and again while the file is there: the frame that captures removes it.
void TriggerWatch::Run() {
  while (!stop_) {
    std::error_code ec;
    if (std::filesystem::exists(path_, ec)) Platform::Wake();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace attnlab::app
