#pragma once
/// The application: opens the document, runs the frame loop and returns the process exit code.
/// `hooks` (nullptr: the interactive window) attach a screenshot or the harness's instruments.
#include "shell/frame_hooks.h"
#include "shell/options.h"

namespace attnlab::app {

int RunApp(const Options& options, FrameHooks* hooks);

}  // namespace attnlab::app
