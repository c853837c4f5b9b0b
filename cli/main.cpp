// attnlab-cli: the attention core without a window (compute, validate, ...). CLI11 parses the
// command line; bad usage is one line on stderr naming what is wrong, a pointer to --help, exit
// status 2.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>

#include "attnlab/memory.h"
#include "attnlab/message_text.h"
#include "args.h"
#include "commands.h"

namespace {

using namespace attnlab::cli;

/// CLI11's own complaints, in the words attnlab-cli has always used (tests/hostile/cases.json).
std::string usage_message(const CLI::ParseError& e) {
  const std::string what = e.what();
  // "--out: 1 required TEXT missing": an option at the end of the line without its value.
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) && what.rfind("--", 0) == 0)
    return "option " + what.substr(0, what.find(':')) + " needs a value";
  if (dynamic_cast<const CLI::RequiredError*>(&e)) return "missing FILE";  // the only option CLI11 requires
  return what;
}

/// An argument no command or option took: the first, as the hand-written parser named it.
std::string leftover_message(const std::string& arg) {
  if (arg.size() > 1 && arg[0] == '-') return "unknown option " + attnlab::excerpt(arg.substr(0, arg.find('=')));
  return "unexpected argument " + quote_arg(arg);
}

/// Where the options of what was typed are listed: the command's --help, or the program's.
std::string help_pointer(const std::vector<Command>& commands) {
  for (const Command& command : commands)
    if (command.app->parsed()) return "Run 'attnlab-cli " + command.app->get_name() + " --help' for the options.";
  return "Run 'attnlab-cli --help' for the commands.";
}

}  // namespace

int main(int argc, char** argv) {
  attnlab::keep_freed_memory_for_reuse();
  CLI::App program("The attention core of attnlab without a window: compute a scenario's trace, check it, export\n"
                   "figures, compare two scenarios, follow a gradient, time it.",
                   "attnlab-cli");
  const std::vector<Command> commands = add_commands(program);
  // One line naming the option and the problem (whatever its length: it may quote an argument),
  // then where the options are; never the whole usage text.
  const auto bad_usage = [&](const std::string& message) {
    std::cerr << attnlab::one_line_message("attnlab-cli: " + message) << "\n" << help_pointer(commands) << "\n";
    return 2;
  };
  if (argc >= 2 && std::string(argv[1]) == "help") {  // as the hand-written parser did
    std::cout << program.help();
    return 0;
  }
  try {
    program.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << program.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << program.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::CallForVersion&) {
    std::cout << program.version() << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    return bad_usage(usage_message(e));
  }
  try {
    for (const Command& command : commands) {
      if (!command.app->parsed()) continue;
      if (!command.app->remaining().empty()) return bad_usage(leftover_message(command.app->remaining().front()));
      return command.run();
    }
    if (program.remaining().empty()) {  // no command at all: the usage, as --help, but status 2
      std::cout << usage_text(program);
      return 2;
    }
    return bad_usage("unknown command " + quote_arg(program.remaining().front()));
  } catch (const UsageError& e) {
    return bad_usage(e.what());
  } catch (const std::exception& e) {  // a bug, not bad input: still no abort
    std::cerr << "attnlab-cli: internal error: " << e.what() << "\n";
    return 3;
  }
}
