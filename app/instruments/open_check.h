#pragma once
/// `--check-open LIST`: opens every file named in LIST (one path per line) inside one real window
/// session, through Session::RequestOpen (the function File > Open, Open recent and
/// drag-and-drop call), or, for a line "model:FOLDER", through ModelLab::RequestOpen (File > Open
/// model's), and prints one JSON line per file:
///   {"file", "accepted", "message", "title", "shown", "document_unchanged", "dirty", "asked_to_save"}
/// `message` is the text of the error modal; `shown` says that the frame after, the modal and the
/// status bar drew it (read back from their draw lists);
/// `document_unchanged` compares the document (scenario, path, name, version, unsaved edits)
/// before and after; `asked_to_save` that the "Save changes?" guard came up. Tests compare the
/// lines with tests/hostile/cases.json.
#include <string>
#include <vector>

namespace attnlab::app {

class AppState;
class Session;

class OpenCheck {
 public:
  /// A line of LIST starting so names a model folder.
  static constexpr const char* kModelPrefix = "model:";
  /// Reads the list; returns false with `error` set when it cannot.
  bool Load(const std::string& list_path, std::string* error);
  /// Frames the whole run needs: a few for the window to settle, then two per file, and those
  /// spent waiting for large files read off the UI thread (it grows while they load).
  int FrameCount() const { return kFirstFrame + 2 * static_cast<int>(files_.size()) + 1 + waited_; }
  /// Call right after ImGui's NewFrame and right after the frame's widgets are drawn.
  void BeforeDraw(AppState& state, Session& session, int frame);
  void AfterDraw(AppState& state, Session& session, int frame);

 private:
  // Modals wait for the first frames (dialogs.cpp, ReadyForModal); --test-edit runs at frame 2.
  static constexpr int kFirstFrame = 6;

  struct Snapshot {
    std::string scenario_json, path, name;
    bool is_preset = false, dirty = false;
    unsigned long long version = 0;
    bool operator==(const Snapshot& o) const;
  };
  static Snapshot Take(AppState& state);

  std::vector<std::string> files_;
  Snapshot before_;
  int errors_before_ = 0;
  /// Frames the check waited: a large file is read off the UI thread, and its message shows the
  /// frame after the read ends.
  int waited_ = 0;
  /// A file was being read when the last frame ended, before this frame's Session::Poll()
  /// could finish it: its result shows from this frame on.
  bool busy_before_ = false;
};

}  // namespace attnlab::app
