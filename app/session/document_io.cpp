#include "session/document_io.h"

#include <filesystem>
#include <system_error>

#include "session/presets.h"

namespace attnlab::app {

bool LoadsOffThread(const std::string& path) {
  std::error_code ec;
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  return !ec && bytes > kOffThreadFileBytes;  // a missing file fails at once, as before
}

bool SavesOffThread(const attnlab::Scenario& s) { return s.number_count() > kOffThreadValues; }

}  // namespace attnlab::app
