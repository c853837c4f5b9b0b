#pragma once
/// Autosave and crash recovery. While the document has unsaved changes it is written every few
/// seconds (serialised and written atomically, off the UI thread) to autosave-<pid>.json in the
/// user's state directory; saving, a clean exit or undoing back to the saved state removes the
/// file. A file left behind by a process that is gone (crash, kill -9) is offered back on the
/// next start.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "attnlab/scenario.h"
#include "session/task_runner.h"

namespace attnlab::app {

class Document;

/// An autosave left behind by an earlier run.
struct RecoveredWork {
  std::string autosave_path;  ///< the file it was read from
  attnlab::Scenario scenario;
  std::string document_path;  ///< the file the work belongs to (empty: a preset or untitled)
  std::string document_name;
  bool is_preset = false;
  std::string saved_at;       ///< local time of the autosave, "2024-05-01 10:42:07"
};

class Autosave {
 public:
  static constexpr std::chrono::seconds kInterval{3};

  /// `dir`: the state directory (empty disables autosaving, e.g. scripted runs). Writes run on
  /// `tasks`, which must outlive this.
  void Init(const std::string& dir, TaskRunner& tasks);
  ~Autosave();
  bool Enabled() const { return !dir_.empty(); }
  /// This process's autosave file.
  const std::string& Path() const { return path_; }

  /// Call once per frame: writes when the document is dirty and changed since the last write and
  /// kInterval has passed; removes the file once the document is clean again.
  void Tick(const Document& document);
  /// Deletes this process's autosave (after a save, on a clean exit).
  void Remove();

  /// Makes `work` this process's autosave (restored: it stays protected until saved).
  void Adopt(const RecoveredWork& work);
  /// Deletes `work`'s file (the user discarded it).
  static void Discard(const RecoveredWork& work);

 private:
  void WaitForWrite();

  std::string dir_, path_;
  std::uint64_t written_version_ = 0;
  bool file_exists_ = false;
  std::chrono::steady_clock::time_point last_write_{};
  TaskRunner* tasks_ = nullptr;
  TaskRunner::TaskId write_ = 0;  ///< the write in flight, if any
};

/// Reads one autosave file; throws attnlab::ScenarioError naming the file.
RecoveredWork ReadAutosave(const std::string& path);

/// The newest autosave in `dir` of a process that is no longer running, if any (`own_path`, this
/// process's, never). A file that cannot be read is reported in `error` and set aside as
/// FILE.broken. Reads and validates the whole scenario: call it off the UI thread in the window.
std::optional<RecoveredWork> FindOrphan(const std::string& dir, const std::string& own_path, std::string* error);

}  // namespace attnlab::app
