#include "session/first_run_hint.h"

#include <filesystem>
#include <fstream>
#include <system_error>

namespace attnlab::app {

void FirstRunHint::Load(const std::string& config_dir) {
  path_.clear();
  due_ = false;
  if (config_dir.empty()) return;
  path_ = (std::filesystem::path(config_dir) / kFileName).string();
  std::error_code ec;
  due_ = !std::filesystem::exists(path_, ec) && !ec;
}

void FirstRunHint::Dismiss() {
  if (!due_) return;  // already remembered (or never shown): nothing to write
  due_ = false;
  std::ofstream(path_) << "The first-run hint was dismissed; delete this file to see it again.\n";
}

}  // namespace attnlab::app
