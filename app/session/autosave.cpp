#include "session/autosave.h"

#include <signal.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <ctime>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>

#include "session/document.h"
#include "attnlab/limits.h"
#include "attnlab/model.h"
#include "attnlab/scenario_io.h"

namespace attnlab::app {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPrefix = "autosave-";

std::string LocalTimeNow() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

// The pid in "autosave-<pid>.json", or -1 when the name is not an autosave's.
long PidOf(const fs::path& file) {
  const std::string name = file.filename().string();
  const std::string prefix = kPrefix;
  if (name.size() <= prefix.size() + 5 || name.compare(0, prefix.size(), prefix) != 0 ||
      file.extension() != ".json")
    return -1;
  const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - 5);
  char* end = nullptr;
  const long pid = std::strtol(digits.c_str(), &end, 10);
  return end && *end == '\0' && pid > 0 ? pid : -1;
}

// A live attnlab owns the file: leave its autosave alone (two windows open at once). A pid reused
// by another program does not count as alive.
bool OwnerAlive(long pid) {
  if (pid == static_cast<long>(getpid())) return true;
  if (kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return false;
  // /proc/<pid>/stat: "pid (comm) state ...". A zombie (killed, not yet reaped) is gone too.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;  // cannot tell (no /proc): assume alive, be safe
  const std::size_t open = line.find('('), close = line.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close + 2 >= line.size())
    return true;
  return line.substr(open + 1, close - open - 1) == "attnlab" && line[close + 2] != 'Z';
}

// What an autosave writes, taken on the UI thread: the Scenario is shared, not copied (writing
// it out takes about 150 ms at 2048 x 512 x 8, so that happens on the writing thread).
struct AutosaveContent {
  std::shared_ptr<const attnlab::Scenario> scenario;
  std::string document_path, document_name;
  bool is_preset = false;
};

std::string Serialize(const AutosaveContent& content) {
  nlohmann::json doc;
  doc["attnlab_autosave"] = 1;
  doc["document_path"] = content.document_path;
  doc["document_name"] = content.document_name;
  doc["is_preset"] = content.is_preset;
  doc["saved_at"] = LocalTimeNow();
  doc["scenario"] = attnlab::scenario_to_json(*content.scenario);
  return doc.dump() + "\n";
}

}  // namespace

RecoveredWork ReadAutosave(const std::string& path) {
  try {
    const nlohmann::json doc =
        nlohmann::json::parse(attnlab::read_text_file(path, attnlab::limits::max_file_bytes));
    RecoveredWork work;
    work.autosave_path = path;
    work.document_path = doc.value("document_path", std::string());
    work.document_name = doc.value("document_name", std::string("recovered.json"));
    work.is_preset = doc.value("is_preset", false);
    work.saved_at = doc.value("saved_at", std::string());
    // Through the same parser and validator as any file: a damaged autosave is refused clearly.
    work.scenario = attnlab::scenario_from_string(doc.at("scenario").dump());
    attnlab::validate(work.scenario);
    return work;
  } catch (const attnlab::ScenarioError& e) {
    throw attnlab::ScenarioError(path + ": " + e.what());
  } catch (const std::exception& e) {
    throw attnlab::ScenarioError(path + ": not an attnlab autosave (" + e.what() + ")");
  }
}

void Autosave::Init(const std::string& dir, TaskRunner& tasks) {
  dir_ = dir;
  tasks_ = &tasks;
  path_ = dir.empty() ? std::string()
                      : (fs::path(dir) / (kPrefix + std::to_string(getpid()) + ".json")).string();
}

Autosave::~Autosave() { WaitForWrite(); }

// Delivers the write in flight now: its completion reports a failure.
void Autosave::WaitForWrite() {
  if (tasks_ && write_ != 0) tasks_->Finish(write_);
  write_ = 0;
}

void Autosave::Tick(const Document& document) {
  if (!Enabled()) return;
  if (!document.IsDirty()) {
    if (file_exists_) Remove();
    return;
  }
  if (document.Version() == written_version_ || document.EditUnvalidated()) return;  // never a refused edit
  const auto now = std::chrono::steady_clock::now();
  if (now - last_write_ < kInterval) return;
  // One write at a time; a slow disk (fsync) delays the next autosave, never the frame.
  if (tasks_->Running(write_)) return;
  AutosaveContent content{document.Snapshot(), document.path, document.name, document.is_preset};
  write_ = tasks_->Start<bool>(
      "autosave",
      [path = path_, content = std::move(content)] {
        attnlab::write_file_atomically(path, Serialize(content));
        return true;
      },
      [this](TaskResult<bool> result) {
        write_ = 0;
        try {
          result.Take();
        } catch (const std::exception& e) {
          std::fprintf(stderr, "attnlab: autosave failed: %s\n", e.what());
          file_exists_ = false;
        }
      });
  written_version_ = document.Version();
  last_write_ = now;
  file_exists_ = true;
}

void Autosave::Remove() {
  if (!Enabled()) return;
  WaitForWrite();  // never let a write in flight recreate the file after it was removed
  std::error_code ec;
  fs::remove(path_, ec);
  file_exists_ = false;
  written_version_ = 0;
}

std::optional<RecoveredWork> FindOrphan(const std::string& dir, const std::string& own_path, std::string* error) {
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return std::nullopt;
  fs::path newest;
  fs::file_time_type newest_time{};
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    const long pid = PidOf(entry.path());
    if (pid < 0 || entry.path() == fs::path(own_path) || OwnerAlive(pid)) continue;
    const fs::file_time_type t = entry.last_write_time(ec);
    if (newest.empty() || t > newest_time) {
      newest = entry.path();
      newest_time = t;
    }
  }
  if (newest.empty()) return std::nullopt;
  try {
    return ReadAutosave(newest.string());
  } catch (const std::exception& e) {
    // Set it aside (kept for the curious) so that it is not offered again on every start.
    if (error) *error = std::string(e.what()) + " (kept as " + newest.string() + ".broken)";
    fs::rename(newest, newest.string() + ".broken", ec);
    return std::nullopt;
  }
}

void Autosave::Adopt(const RecoveredWork& work) {
  if (!Enabled()) return;
  WaitForWrite();
  std::error_code ec;
  fs::rename(work.autosave_path, path_, ec);  // same directory: atomic, never a moment unprotected
  file_exists_ = !ec;
  written_version_ = 0;
}

void Autosave::Discard(const RecoveredWork& work) {
  std::error_code ec;
  fs::remove(work.autosave_path, ec);
}

}  // namespace attnlab::app
