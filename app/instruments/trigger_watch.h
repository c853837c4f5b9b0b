#pragma once
/// Wakes the window as soon as a test's trigger file (--capture-on, --wake-on) appears, and again
/// and again while it is there: an idle window sleeps up to 5 s between frames
/// (shell/platform.cpp); the capture is taken by the next frame.
#include <atomic>
#include <string>
#include <thread>

namespace attnlab::app {

class TriggerWatch {
 public:
  explicit TriggerWatch(std::string path);
  /// Stops and joins the thread: before GLFW goes away, which it wakes.
  ~TriggerWatch();
  TriggerWatch(const TriggerWatch&) = delete;
  TriggerWatch& operator=(const TriggerWatch&) = delete;

 private:
  void Run();

  std::string path_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace attnlab::app
