// attnlab-harness: the window of attnlab (the same libraries, the same frame loop) with the test
// and benchmark instruments attached through FrameHooks, so none of them ships in attnlab.
#include <cstdio>
#include <string>

#include "attnlab/memory.h"
#include "instruments/harness.h"
#include "instruments/harness_options.h"
#include "shell/app.h"

int main(int argc, char** argv) {
  attnlab::keep_freed_memory_for_reuse();
  attnlab::app::HarnessOptions options;
  std::string error;
  if (!attnlab::app::ParseHarnessOptions(argc, argv, &options, &error)) {
    std::fprintf(stderr, "attnlab-harness: %s\n%s", error.c_str(), attnlab::app::HarnessUsageText());
    return 2;
  }
  if (options.window.version) {
    std::printf("attnlab-harness %s\n", attnlab::app::VersionNumber());
    return 0;
  }
  if (options.window.help) {
    std::fputs(attnlab::app::HarnessUsageText(), stdout);
    return 0;
  }
  attnlab::app::Harness harness(options);
  if (!harness.Prepare()) return 1;
  return attnlab::app::RunApp(options.window, &harness);
}
