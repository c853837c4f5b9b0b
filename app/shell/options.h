#pragma once
/// The command line of `attnlab`, the window users run: `attnlab [FILE.json] [--screenshot OUT.png
/// [--frames N]] [--size WxH] [--lecture] [--head H] [--help]`. Test and benchmark flags belong to
/// attnlab-harness (app/instruments/), which parses these too.
#include <string>

namespace attnlab::app {

struct Options {
  std::string file;             ///< scenario to open; empty = the built-in example
  std::string screenshot_path;  ///< non-empty: render `frames` frames, write this PNG, exit
  int frames = 3;               ///< frames rendered before the screenshot
  int width = 1280, height = 800;
  bool lecture = false;         ///< start in lecture mode (projector fonts)
  int head = 0;                 ///< head selected at start (0-based)
  bool help = false;
};

enum class ArgResult { Taken, Unknown, Bad };
/// Parses argv[*i] (and its value, advancing *i) into `options`: Taken; Unknown when it is an
/// option `attnlab` does not have; Bad with `error` set when its value is wrong.
ArgResult ParseOption(int argc, char** argv, int* i, Options* options, std::string* error);
/// Parses argv; on a bad or unknown argument returns false and fills `error` (one line).
bool ParseOptions(int argc, char** argv, Options* options, std::string* error);
/// A whole number from low to high, the whole of `text`; false leaves `out` alone.
bool ParseIntArg(const char* text, int low, int high, int* out);
/// Every flag ParseOptions accepts (--help).
const char* UsageText();
/// The first line of UsageText, printed under a bad usage message.
const char* UsageLine();

}  // namespace attnlab::app
