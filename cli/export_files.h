#pragma once
/// The files one `attnlab-cli export` run writes: all of them or none. Each is written under a
/// hidden name beside its final one and renamed into place only once every file is ready; a run
/// that fails (an exception, a full disk) leaves nothing behind: its hidden files and the folders
/// it created are removed, and only those, so an earlier export in the same folder is untouched.
#include <filesystem>
#include <string>
#include <vector>

namespace attnlab::cli {

class ExportFiles {
 public:
  /// Creates `dir` and its missing parents, remembering which of them this run created.
  explicit ExportFiles(std::filesystem::path dir);
  ~ExportFiles();
  ExportFiles(const ExportFiles&) = delete;
  ExportFiles& operator=(const ExportFiles&) = delete;

  /// Writes `bytes` for the file `name` in the folder, under a hidden name until commit().
  void add(const std::string& name, const std::string& bytes);
  /// Gives every file its name and prints each path on stdout, in the order they were added.
  void commit();

 private:
  void roll_back() noexcept;

  std::filesystem::path dir_;
  std::vector<std::filesystem::path> created_dirs_;       ///< innermost last
  std::vector<std::filesystem::path> staged_, finished_;  ///< hidden names, final names
  std::size_t renamed_ = 0;                               ///< by commit() so far
  bool committed_ = false;
};

}  // namespace attnlab::cli
