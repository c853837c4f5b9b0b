// attnlab: the window. Parses the command line and runs the application (app.cpp).
#include <cstdio>
#include <string>

#include "shell/app.h"
#include "attnlab/memory.h"
#include "shell/options.h"

int main(int argc, char** argv) {
  attnlab::keep_freed_memory_for_reuse();
  attnlab::app::Options options;
  std::string error;
  if (!attnlab::app::ParseOptions(argc, argv, &options, &error)) {
    std::fprintf(stderr, "attnlab: %s\n%s", error.c_str(), attnlab::app::UsageText());
    return 2;
  }
  if (options.help) {
    std::fputs(attnlab::app::UsageText(), stdout);
    return 0;
  }
  return attnlab::app::RunApp(options);
}
