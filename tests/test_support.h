#pragma once
/// Helpers shared by the test files: running a shell command, naming the repository's files, a
/// random scenario.
#include <sys/wait.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "attnlab/random.h"
#include "attnlab/scenario.h"

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

/// Self-attention of n tokens of width d in `heads` heads: random X, W_q, W_k, W_v, W_o (d by d)
/// and b_q, drawn from `seed`.
inline Scenario random_scenario(int n, int d, int heads, std::uint64_t seed) {
  RandomSpec spec;
  spec.seed = seed;
  Scenario s;
  s.X = random_matrix(n, d, spec, 100);
  s.full.W_q = random_matrix(d, d, spec, 1);
  s.full.W_k = random_matrix(d, d, spec, 2);
  s.full.W_v = random_matrix(d, d, spec, 3);
  s.full.b_q = random_matrix(d, 1, spec, 4).col(0);
  s.W_o = random_matrix(d, d, spec, 5);
  s.num_heads = heads;
  return s;
}

}  // namespace attnlab::testing
