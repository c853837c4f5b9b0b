#pragma once
/// Command-line parsing shared by the subcommands: `--name VALUE` / `--name=VALUE` and one FILE.
#include <string>
#include <utility>
#include <vector>

#include "commands.h"

namespace attnlab::cli {

struct ParsedArgs {
  std::string file;
  std::vector<std::pair<std::string, std::string>> options;
  /// The last value given for --name, or `fallback`.
  std::string option(const std::string& name, const std::string& fallback) const;
  bool has(const std::string& name) const;
};

/// Throws UsageError for an unknown option, a missing value, a second FILE, or (when required) no FILE.
ParsedArgs parse_args(const Args& args, const std::vector<std::string>& known_options, bool file_required = true);

/// --name as a whole number in [lo, hi]; throws UsageError naming the option otherwise.
int int_option(const ParsedArgs& p, const std::string& name, int fallback, int lo, int hi);
/// "a,b,,c" -> {"a", "b", "c"}: an option's comma-separated list, empty items dropped.
std::vector<std::string> split_list(const std::string& text);

}  // namespace attnlab::cli
