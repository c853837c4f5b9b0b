#pragma once
/// The application: opens the document, runs the frame loop (interactive, screenshot, benchmark
/// or smoke run) and returns the process exit code.
#include "shell/options.h"

namespace attnlab::app {

int RunApp(const Options& options);

}  // namespace attnlab::app
