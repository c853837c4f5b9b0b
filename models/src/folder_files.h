#pragma once
/// The files of a model folder as the readers find them (private to attnlab_models): a name may be
/// a folder, a named pipe, a device or a link that loops, as easily as a file, and opening a named
/// pipe blocks until someone writes to it. Every file is checked for what it is before it is opened.
#include <cstddef>
#include <filesystem>
#include <string>

namespace attnlab::models::detail {

/// Something is at `path` (a file, a folder, a link, even one that dangles or loops): the reader
/// then opens it through require_regular_file, which says what it is when it is not a file.
bool present(const std::filesystem::path& path);

/// Refuses, naming `name` ("config.json"), anything at `path` that is not a regular file once links
/// are followed, in one line saying what it is: "a folder, not a file", "a named pipe (FIFO), not a
/// file", "a device, not a file", "a symbolic link that loops", "missing from the model folder".
void require_regular_file(const std::filesystem::path& path, const std::string& name);

/// What a file of `mode` (stat's st_mode) is when it is not a regular file ("a folder, not a
/// file"); "" for a regular file.
std::string not_a_file(unsigned mode);

/// A regular file opened for reading, closed when this goes: checked by require_regular_file
/// first, then opened without blocking (should a named pipe take its place between the two) and
/// checked again on the open descriptor. Refuses naming `name`; `failure` starts the message when
/// the open itself fails ("cannot open: Permission denied").
class RegularFile {
 public:
  RegularFile(const std::filesystem::path& path, const std::string& name, const char* failure = "cannot open");
  ~RegularFile();
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;
  int fd() const { return fd_; }
  std::size_t size() const { return size_; }  ///< bytes, when it was opened

 private:
  int fd_ = -1;
  std::size_t size_ = 0;
};

}  // namespace attnlab::models::detail
