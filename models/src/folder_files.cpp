#include "folder_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "attnlab/scenario.h"

namespace attnlab::models::detail {

bool present(const std::filesystem::path& path) {
  struct stat info {};
  return lstat(path.c_str(), &info) == 0;
}

std::string not_a_file(unsigned mode) {
  if (S_ISREG(mode)) return "";
  if (S_ISDIR(mode)) return "a folder, not a file";
  if (S_ISFIFO(mode)) return "a named pipe (FIFO), not a file";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device, not a file";
  if (S_ISSOCK(mode)) return "a socket, not a file";
  return "not a regular file";
}

void require_regular_file(const std::filesystem::path& path, const std::string& name) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) {
    const int error = errno;
    struct stat link {};
    if (error == ELOOP) refuse(name, "a symbolic link that loops, not a file");
    if (error == ENOENT && lstat(path.c_str(), &link) == 0) refuse(name, "a symbolic link to a missing file");
    if (error == ENOENT) refuse(name, "missing from the model folder");
    refuse(name, std::string("cannot read: ") + std::strerror(error));
  }
  const std::string what = not_a_file(info.st_mode);
  if (!what.empty()) refuse(name, what);
}

RegularFile::RegularFile(const std::filesystem::path& path, const std::string& name, const char* failure) {
  require_regular_file(path, name);
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd_ < 0) refuse(name, std::string(failure) + ": " + std::strerror(errno));
  struct stat info {};
  if (fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd_);
    refuse(name, "not a regular file");
  }
  size_ = std::size_t(info.st_size);
}

RegularFile::~RegularFile() { ::close(fd_); }

}  // namespace attnlab::models::detail
