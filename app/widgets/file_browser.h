#pragma once
/// An in-app file browser (a Dear ImGui modal, no native dialog dependency): a folder listing
/// with parent/home shortcuts, a filter by extension, and a path field that takes a typed path
/// (absolute, ~/..., or relative to the folder shown). Opens files, picks a name to save as, or
/// picks a folder.
#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::app {

class FileBrowser {
 public:
  enum class Mode { Open, Save, Folder };
  struct Place {
    std::string label, dir;
  };
  /// Shortcut buttons beside Home (the presets, the document's folder); set before Show().
  std::vector<Place> places;

  /// Opens the modal next frame. `extension` (".json", ".png", ...) filters the listing and is
  /// appended to a saved name that lacks it. `name`: the file name proposed in Save mode.
  void Show(Mode mode, const std::string& title, const std::string& dir,
            const std::string& extension, const std::string& name = "");
  bool IsOpen() const { return open_ || show_requested_; }
  /// Draws the modal (call every frame at the top level). Returns true on the frame the user
  /// confirms a choice; Result() is the absolute path then.
  bool Draw();
  const std::string& Result() const { return result_; }
  const std::string& Dir() const { return dir_; }

 private:
  struct Entry {
    std::string name;
    bool is_dir = false;
    std::uintmax_t size = 0;
    std::string modified;
  };

  void Navigate(const std::string& dir);
  void Refresh();
  void DrawToolbar();
  void DrawListing(float height);
  void DrawFooter();
  bool TryConfirm();
  std::string Resolve(const std::string& typed) const;
  const char* ConfirmLabel() const;

  Mode mode_ = Mode::Open;
  std::string title_, dir_, extension_, result_, error_;
  std::vector<Entry> entries_;
  char path_[1024] = {};
  char folder_[1024] = {};
  bool filter_ = true, show_hidden_ = false;
  bool show_requested_ = false, open_ = false, confirmed_ = false;
  bool confirm_replace_ = false;  ///< Save over an existing file: asked once, inline
  bool focus_path_ = false;
  bool select_name_ = false;  ///< select the proposed name when the path field takes the focus
};

}  // namespace attnlab::app
