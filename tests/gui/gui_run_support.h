// Running commands from the window checkers: no attnlab dependency, so gui_open_check (which
// links only nlohmann_json) can share it with the pixel checkers (gui_check_support.h).
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
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

// The arguments of the checkers that generate their own scenario: APP MAKE_SCENARIO OUT_DIR.
struct CheckerArgs {
  std::string app, make, dir;
};

// Parses them and creates OUT_DIR; false (usage printed) when they are not three.
inline bool ParseCheckerArgs(int argc, char** argv, CheckerArgs* out) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s APP MAKE_SCENARIO OUT_DIR\n", argv[0]);
    return false;
  }
  *out = {argv[1], argv[2], argv[3]};
  std::filesystem::create_directories(out->dir);
  return true;
}

// Writes a seeded causal scenario of `shape` (N x E x H) to `path` with attnlab_gui_make_scenario;
// false (FAIL printed) when it cannot.
inline bool MakeCausalScenario(const CheckerArgs& args, const std::string& shape, const std::string& path,
                               int seed) {
  const std::string command =
      Quote(args.make) + " " + shape + " " + Quote(path) + " --causal --seed " + std::to_string(seed);
  std::printf("running: %s\n", command.c_str());
  if (std::system(command.c_str()) == 0) return true;
  std::printf("FAIL: cannot generate the scenario\n");
  return false;
}

}  // namespace gui_check
