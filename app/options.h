#pragma once
/// The command line: `attnlab [FILE] [--screenshot OUT.png] [--frames N] [--bench-frames N]
/// [--size WxH] [--lecture] [--head H] [--smoke]`.
#include <string>

namespace attnlab::app {

struct Options {
  std::string file;             ///< scenario to open; empty = the built-in example
  std::string screenshot_path;  ///< non-empty: render `frames` frames, write this PNG, exit
  int frames = 3;               ///< frames rendered before the screenshot
  int bench_frames = 0;         ///< > 0: render this many frames, print timing JSON, exit
  int width = 1280, height = 800;
  bool lecture = false;         ///< start in lecture mode (projector fonts)
  int head = 0;                 ///< head selected at start (0-based)
  bool smoke = false;           ///< scripted tour of every panel and edit (tests), then exit
  bool help = false;
};

/// Parses argv; on a bad argument returns false and fills `error`.
bool ParseOptions(int argc, char** argv, Options* options, std::string* error);
const char* UsageText();

}  // namespace attnlab::app
