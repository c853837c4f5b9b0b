#pragma once
/// Helpers shared by the test files: running a shell command, a scratch directory, naming the
/// repository's files, a random scenario.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <filesystem>
#include <string>
#include <system_error>

#include "attnlab/matrix.h"
#include "attnlab/random.h"
#include "attnlab/scenario.h"

namespace attnlab::testing {

/// Largest |a - b| / max(1, |b|) over two matrices; infinite when the shapes differ or an infinity
/// of one is not the same infinity in the other.
inline double relative_error(const Matrix& a, const Matrix& b) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (a.rows() != b.rows() || a.cols() != b.cols()) return kInf;
  double worst = 0;
  for (Eigen::Index k = 0; k < a.size(); ++k) {
    const double x = a.data()[k], y = b.data()[k];
    if (std::isinf(x) || std::isinf(y)) {
      if (x != y) return kInf;
      continue;
    }
    worst = std::max(worst, std::abs(x - y) / std::max(1.0, std::abs(y)));
  }
  return worst;
}

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

struct Outputs {
  int status = -1;       ///< as ShellResult's
  std::string out, err;  ///< what it printed on stdout and on stderr
};

/// Runs `command` with /bin/sh, its stdout and stderr captured apart (stderr through a temporary
/// file, removed again).
inline Outputs run_shell_apart(const std::string& command) {
  std::string err_path = (std::filesystem::temp_directory_path() / "attnlab_stderr_XXXXXX").string();
  const int fd = ::mkstemp(err_path.data());
  if (fd < 0) return {};
  ::close(fd);
  const ShellResult shell = run_shell(command + " 2>" + err_path);
  Outputs r{shell.status, shell.out, ""};
  if (FILE* err = std::fopen(err_path.c_str(), "rb")) {
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, err)) > 0;) r.err.append(buffer, n);
    std::fclose(err);
  }
  std::remove(err_path.c_str());
  return r;
}

/// A directory under the temp dir that belongs to this test process (`prefix` and its pid), removed
/// with all it holds when the process exits: declare one at namespace scope.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& prefix)
      : root_(std::filesystem::temp_directory_path() / (prefix + std::to_string(::getpid()))) {}
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& root() const { return root_; }
  /// root()/name with nothing in it: created, or absent (`create` false) for a test that checks
  /// that nothing is written there.
  std::filesystem::path fresh(const std::string& name, bool create = true) const {
    const std::filesystem::path dir = root_ / name;
    std::filesystem::remove_all(dir);
    if (create) std::filesystem::create_directories(dir);
    return dir;
  }

 private:
  std::filesystem::path root_;
};

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
