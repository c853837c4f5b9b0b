#include "session/document_io.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

#include "attnlab/scenario_io.h"
#include "session/presets.h"

namespace attnlab::app {

bool LoadsOffThread(const std::string& path) {
  std::error_code ec;
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  return !ec && bytes > kOffThreadFileBytes;  // a missing file fails at once, as before
}

bool SavesOffThread(const attnlab::Scenario& s) { return s.number_count() > kOffThreadValues; }

std::future<void> WriteInBackground(std::string path, std::function<std::string()> serialize) {
  return std::async(std::launch::async, [path = std::move(path), serialize = std::move(serialize)] {
    attnlab::write_file_atomically(path, serialize());
  });
}

void BackgroundLoad::Start(const std::string& path) {
  Cancel();
  path_ = path;
  job_ = std::async(std::launch::async, [path] { return LoadAndValidate(path); });
}

std::optional<attnlab::Scenario> BackgroundLoad::TakeIfDone() {
  Reap();
  if (!IsReady(job_)) return std::nullopt;
  return job_.get();  // leaves job_ invalid: no longer Running()
}

void BackgroundLoad::Cancel() {
  if (job_.valid()) cancelled_.push_back(std::move(job_));
  Reap();
}

// A std::async future waits for its thread when destroyed: drop cancelled loads once finished.
void BackgroundLoad::Reap() {
  const auto finished = [](const std::future<attnlab::Scenario>& f) { return IsReady(f); };
  cancelled_.erase(std::remove_if(cancelled_.begin(), cancelled_.end(), finished), cancelled_.end());
}

}  // namespace attnlab::app
