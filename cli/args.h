#pragma once
/// Small helpers the subcommands share to read option values (CLI11 stores them as text; each
/// command checks its own, so a bad value is one line naming the option, exit status 2).
#include <cstddef>
#include <string>
#include <vector>

namespace attnlab::cli {

/// `text`, the value of `option` ("--decimals"), as a whole number in [lo, hi]; throws UsageError
/// naming the option otherwise.
int whole_number(const std::string& option, const std::string& text, int lo, int hi);
/// Refuses `--head head` (from 0) when the scenario has no head `head` (UsageError).
void check_head_exists(int head, std::size_t heads);
/// `text` from the command line between single quotes, as an excerpt (message_text.h): a 100 KB
/// argument cannot make a usage message long.
std::string quote_arg(const std::string& text);
/// "a,b,,c" -> {"a", "b", "c"}: an option's comma-separated list, empty items dropped.
std::vector<std::string> split_list(const std::string& text);

}  // namespace attnlab::cli
