#include "export_files.h"

#include <unistd.h>

#include <iostream>

#include "attnlab/scenario_io.h"

namespace attnlab::cli {

namespace fs = std::filesystem;

ExportFiles::ExportFiles(fs::path dir) : dir_(std::move(dir)) {
  std::vector<fs::path> missing;
  for (fs::path p = dir_; !p.empty() && !fs::exists(p); p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  try {
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
      fs::create_directory(*it);
      created_dirs_.push_back(*it);
    }
  } catch (...) {
    roll_back();
    throw;
  }
}

ExportFiles::~ExportFiles() {
  if (!committed_) roll_back();
}

void ExportFiles::add(const std::string& name, const std::string& bytes) {
  const fs::path staged = dir_ / (".attnlab-export-" + std::to_string(::getpid()) + "-" + name);
  staged_.push_back(staged);  // before writing: a half-written file is removed too
  write_file_atomically(staged.string(), bytes);
  finished_.push_back(dir_ / name);
}

void ExportFiles::commit() {
  for (; renamed_ < staged_.size(); ++renamed_) fs::rename(staged_[renamed_], finished_[renamed_]);
  committed_ = true;
  for (const fs::path& path : finished_) std::cout << path.string() << "\n";
}

void ExportFiles::roll_back() noexcept {
  std::error_code ignored;
  for (const fs::path& path : staged_) fs::remove(path, ignored);
  // A commit that failed half-way: the files it renamed were written by this run too.
  for (std::size_t i = 0; i < renamed_; ++i) fs::remove(finished_[i], ignored);
  for (auto it = created_dirs_.rbegin(); it != created_dirs_.rend(); ++it) fs::remove(*it, ignored);  // empty only
}

}  // namespace attnlab::cli
