// Running commands from the window checkers: no attnlab dependency, so gui_open_check (which
// links only nlohmann_json) can share it with the pixel checkers (gui_check_support.h).
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace gui_check {

// Shell-quotes one argument: test paths never hold a single quote.
inline std::string Quote(const std::string& s) { return "'" + s + "'"; }

// Runs `command` through the shell and keeps its standard output byte for byte (callers split
// lines their own way); false when it cannot start. *status is pclose's raw wait status.
inline bool RunCapture(const std::string& command, std::string* out, int* status) {
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return false;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out->append(buf, n);
  *status = ::pclose(pipe);
  return true;
}

// A raw wait status as an exit code; -1 when the command did not exit (killed by a signal).
inline int ExitCode(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

}  // namespace gui_check
