#include "session/recent_files.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>

#include "attnlab/scenario_io.h"

namespace attnlab::app {
namespace {

constexpr std::size_t kMaxRecentFileBytes = 1 << 20;  // the list of recent files, a few KB

std::string Absolute(const std::string& file) {
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::absolute(file, ec);
  return ec ? file : p.lexically_normal().string();
}

}  // namespace

void RecentFiles::Load(const std::string& path) {
  path_ = path;
  files_.clear();
  if (path.empty() || !std::filesystem::exists(path)) return;
  try {
    const nlohmann::json doc = nlohmann::json::parse(attnlab::read_text_file(path, kMaxRecentFileBytes));
    for (const nlohmann::json& item : doc.at("recent"))
      if (item.is_string() && files_.size() < kMax) files_.push_back(item.get<std::string>());
  } catch (const std::exception& e) {
    // A damaged list is not worth an error dialog: start afresh, say so on stderr.
    std::fprintf(stderr, "attnlab: ignoring %s: %s\n", path.c_str(), e.what());
    files_.clear();
  }
}

void RecentFiles::Add(const std::string& file) {
  const std::string abs = Absolute(file);
  files_.erase(std::remove(files_.begin(), files_.end(), abs), files_.end());
  files_.insert(files_.begin(), abs);
  if (files_.size() > kMax) files_.resize(kMax);
  Save();
}

void RecentFiles::Remove(const std::string& file) {
  files_.erase(std::remove(files_.begin(), files_.end(), file), files_.end());
  Save();
}

void RecentFiles::Clear() {
  files_.clear();
  Save();
}

void RecentFiles::Save() const {
  if (path_.empty()) return;
  try {
    attnlab::write_file_atomically(path_, nlohmann::json{{"recent", files_}}.dump(2) + "\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnlab: cannot keep the recent files list: %s\n", e.what());
  }
}

}  // namespace attnlab::app
