#pragma once
/// What the window remembers between runs, in the user's config directory (settings.json): the
/// zoom, the lecture scale, the panels' shares and which panels are open. Never absolute
/// positions: the arrangement is computed from the window's size every frame, so a smaller
/// screen next time still gets a whole window.
#include <map>
#include <string>

namespace attnlab::app {

struct WindowSettings {
  float zoom = 1.0f;
  float lecture_scale = 0.0f;              ///< 0: fit the window
  std::map<std::string, float> shares;     ///< "arrangement/column[/slot]" -> share
  std::map<std::string, bool> open_panels;  ///< panel name -> open

  bool operator==(const WindowSettings& o) const {
    return zoom == o.zoom && lecture_scale == o.lecture_scale && shares == o.shares &&
           open_panels == o.open_panels;
  }
  bool operator!=(const WindowSettings& o) const { return !(*this == o); }
};

/// Reads `path`. A missing file gives the defaults; a damaged one, or a value out of range, is
/// ignored (that value, or the whole file if it is not JSON) with one line on stderr naming it.
WindowSettings LoadWindowSettings(const std::string& path);
/// Writes `path` atomically; returns false with `error` set when it cannot.
bool SaveWindowSettings(const std::string& path, const WindowSettings& settings, std::string* error);

}  // namespace attnlab::app
