#pragma once
/// The first-run hint ("New here? Press F1: your first five minutes, step by step."): shown from the
/// first start with a fresh config dir until the user dismisses it or opens the guide; a small
/// file in the config dir then remembers that for every later start.
#include <string>

namespace attnlab::app {

class FirstRunHint {
 public:
  /// The file in the config dir that says the hint was dismissed.
  static constexpr const char* kFileName = "first-run-hint-dismissed";

  /// Reads `config_dir`: the hint is due when that file is not there yet. An empty dir (no user
  /// files: scripted runs, no HOME) never shows it, since nothing could remember the dismissal.
  void Load(const std::string& config_dir);
  bool Due() const { return due_; }
  /// Dismissed or the guide opened: gone for this run, and for later ones if the file could be
  /// written (a read-only config dir only forgets it).
  void Dismiss();

 private:
  std::string path_;
  bool due_ = false;
};

}  // namespace attnlab::app
