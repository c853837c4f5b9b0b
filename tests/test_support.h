#pragma once
/// Helpers shared by the test files: running a shell command and naming the repository's files.
#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace attnlab::testing {

struct ShellResult {
  int status = -1;  ///< exit status, or -1 when the command did not exit normally (a signal)
  std::string out;  ///< what it printed on stdout
};

/// Runs `command` with /bin/sh and captures its stdout; redirect stderr in `command` if needed.
inline ShellResult run_shell(const std::string& command) {
  ShellResult r;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return r;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) r.out.append(buffer, n);
  const int raw = ::pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

/// assets/presets/NAME.json in the source tree.
inline std::string preset_path(const std::string& name) {
  return std::string(ATTNLAB_SOURCE_DIR) + "/assets/presets/" + name + ".json";
}

}  // namespace attnlab::testing
