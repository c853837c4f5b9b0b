#pragma once
/// attnlab-cli subcommands. Each takes its arguments (after the subcommand name) and returns the
/// exit status: 0 success, 1 invalid input, 2 bad usage (thrown as UsageError).
#include <stdexcept>
#include <string>
#include <vector>

namespace attnlab::cli {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using Args = std::vector<std::string>;

struct Command {
  const char* name;
  const char* synopsis;
  int (*run)(const Args& args);
};

/// Every subcommand, in the order `--help` lists them. A new command: a cmd_<name>.cpp and a row here.
const std::vector<Command>& commands();
std::string usage_text();
/// Prints `FILE: field: expected ..., got ...` on stderr and returns 1 (invalid input).
int report_invalid(const std::string& file, const std::exception& error);

int run_compute(const Args& args);
int run_validate(const Args& args);
int run_bench(const Args& args);
int run_export(const Args& args);
int run_compare(const Args& args);
int run_sensitivity(const Args& args);

}  // namespace attnlab::cli
