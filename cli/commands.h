#pragma once
/// attnlab-cli subcommands, parsed by CLI11. Each cmd_<name>.cpp adds its subcommand (FILE, options,
/// the text of its --help) to the program and returns how to run it once parsed. A run returns the
/// exit status: 0 success, 1 invalid input, 2 bad usage (thrown as UsageError).
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace attnlab::cli {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Runs a subcommand with the options CLI11 stored: the exit status.
using Run = std::function<int()>;

struct Command {
  CLI::App* app;  ///< the subcommand, owned by the program's CLI::App
  Run run;
};

/// Sets up `program` (attnlab-cli: --help, --help-all, --version, the usage text) and adds every
/// subcommand, in the order `--help` lists them. A new command: a cmd_<name>.cpp and a line here.
std::vector<Command> add_commands(CLI::App& program);
/// The program's --help: each command's synopsis (generated from its options) and the exit statuses.
std::string usage_text(const CLI::App& program);
/// Prints `FILE: field: expected ..., got ...` on stderr and returns 1 (invalid input).
int report_invalid(const std::string& file, const std::exception& error);

/// The scenario FILE every command but bench and compare reads (required: "missing FILE").
CLI::Option* add_file(CLI::App& command, std::string& file);
/// The group an option is listed under in --help when the command cannot run without it. CLI11 does
/// not check it: the command does, with its own one-line message ("export needs --out DIR").
inline constexpr const char* kRequired = "Required";

Run add_compute(CLI::App& program);
Run add_validate(CLI::App& program);
Run add_bench(CLI::App& program);
Run add_export(CLI::App& program);
Run add_compare(CLI::App& program);
Run add_sensitivity(CLI::App& program);
Run add_model(CLI::App& program);
Run add_heads(CLI::App& program);
Run add_lens(CLI::App& program);
Run add_patch(CLI::App& program);
Run add_tokenize(CLI::App& program);
Run add_flash(CLI::App& program);
Run add_decode(CLI::App& program);

}  // namespace attnlab::cli
