#pragma once
/// The recently opened or saved scenario files, most recent first, kept in the user's config
/// directory (recent.json) so that they survive restarts.
#include <string>
#include <vector>

namespace attnlab::app {

class RecentFiles {
 public:
  static constexpr std::size_t kMax = 10;

  /// Reads `path` (a missing or broken file gives an empty list); Add() writes back to it.
  /// An empty path keeps the list in memory only (scripted runs).
  void Load(const std::string& path);
  /// Moves `file` (made absolute) to the front and saves the list.
  void Add(const std::string& file);
  void Remove(const std::string& file);
  void Clear();
  const std::vector<std::string>& Files() const { return files_; }

 private:
  void Save() const;

  std::string path_;
  std::vector<std::string> files_;
};

}  // namespace attnlab::app
