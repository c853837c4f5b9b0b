// attnlab: the window. Parses the command line and runs the application (app.cpp); its only
// scripted run is --screenshot. Tests and benchmarks drive attnlab-harness (app/instruments/).
#include <cstdio>
#include <string>

#include "attnlab/memory.h"
#include "attnlab/message_text.h"
#include "shell/app.h"
#include "shell/options.h"
#include "shell/screenshot_hooks.h"

int main(int argc, char** argv) {
  attnlab::keep_freed_memory_for_reuse();
  attnlab::app::Options options;
  std::string error;
  if (!attnlab::app::ParseOptions(argc, argv, &options, &error)) {
    // One line, whatever the argument it quotes, then where the options are listed.
    const std::string line = attnlab::one_line_message("attnlab: " + error);
    std::fprintf(stderr, "%s\n%s", line.c_str(), attnlab::app::UsageLine());
    return 2;
  }
  if (options.help) {
    std::fputs(attnlab::app::UsageText().c_str(), stdout);
    return 0;
  }
  if (options.version) {
    std::printf("attnlab %s\n", attnlab::app::VersionNumber());
    return 0;
  }
  if (options.screenshot_path.empty()) return attnlab::app::RunApp(options, nullptr);
  attnlab::app::ScreenshotHooks screenshot(options.screenshot_path, options.frames);
  return attnlab::app::RunApp(options, &screenshot);
}
