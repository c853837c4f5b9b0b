// attnlab-cli: the attention core without a window (compute, validate, ...).
#include <exception>
#include <iostream>

#include "attnlab/memory.h"
#include "commands.h"

int main(int argc, char** argv) {
  using namespace attnlab::cli;
  attnlab::keep_freed_memory_for_reuse();
  const Args args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    std::cout << usage_text();
    return args.empty() ? 2 : 0;
  }
  try {
    for (const Command& command : commands())
      if (args[0] == command.name) return command.run(Args(args.begin() + 1, args.end()));
    throw UsageError("unknown command '" + args[0] + "'");
  } catch (const UsageError& e) {
    std::cerr << "attnlab-cli: " << e.what() << "\n" << usage_text();
    return 2;
  } catch (const std::exception& e) {  // a bug, not bad input: still no abort
    std::cerr << "attnlab-cli: internal error: " << e.what() << "\n";
    return 3;
  }
}
