#pragma once
/// Opening and saving large documents off the UI thread. At 2048 x 512 x 8 a scenario file is
/// 13 MB: parsing and validating it takes about 0.7 s, writing it about 0.2 s, and the window must
/// never freeze (the UI thread never blocks for more than 50 ms). Small files keep the synchronous
/// path: a teaching scenario still opens and saves within the frame.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/scenario.h"

namespace attnlab::app {

/// Files larger than this (1 MiB, a few hundred tokens) are read and validated off the UI thread.
constexpr std::uintmax_t kOffThreadFileBytes = std::uintmax_t{1} << 20;
/// Scenarios holding more numbers than this (about 1 MiB of JSON) are written off the UI thread.
constexpr std::size_t kOffThreadValues = std::size_t{1} << 17;

bool LoadsOffThread(const std::string& path);
bool SavesOffThread(const attnlab::Scenario& scenario);

/// Calls `serialize` and writes its text atomically (temp file + fsync + rename) to `path` on a
/// thread of its own; the future rethrows a failure. Save and the autosave both write this way.
std::future<void> WriteInBackground(std::string path, std::function<std::string()> serialize);

template <typename T>
bool IsReady(const std::future<T>& f) {
  return f.valid() && f.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

/// One scenario file read and validated (LoadAndValidate) on a thread of its own.
class BackgroundLoad {
 public:
  void Start(const std::string& path);
  bool Running() const { return job_.valid(); }
  const std::string& Path() const { return path_; }
  /// Once the load has finished: its Scenario, or it rethrows the load's error (ScenarioError,
  /// the message the synchronous path shows). Never waits: nullopt while it runs.
  std::optional<attnlab::Scenario> TakeIfDone();
  /// Forgets the load: its result is discarded. The parser has no cancellation point, so the
  /// thread finishes on its own; the destructor waits for such threads.
  void Cancel();

 private:
  void Reap();

  std::string path_;
  std::future<attnlab::Scenario> job_;
  std::vector<std::future<attnlab::Scenario>> cancelled_;
};

}  // namespace attnlab::app
