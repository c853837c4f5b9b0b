#include "shell/options.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace attnlab::app {
namespace {

bool ParseSize(const char* text, int* w, int* h) {
  int a = 0, b = 0;
  char x = 0;
  char tail = 0;
  if (std::sscanf(text, "%d%c%d%c", &a, &x, &b, &tail) != 3 || (x != 'x' && x != 'X')) return false;
  if (a < 320 || b < 240 || a > 8192 || b > 8192) return false;
  *w = a;
  *h = b;
  return true;
}

}  // namespace

bool ParseIntArg(const char* text, int low, int high, int* out) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < low || v > high) return false;
  *out = static_cast<int>(v);
  return true;
}

const char* UsageText() {
  return "usage: attnlab [FILE.json] [--screenshot OUT.png [--frames N]] [--size WxH] [--lecture] [--head H]\n"
         "  FILE.json           scenario to open (default: a built-in example)\n"
         "  --screenshot PATH   render N frames, write the window as PNG, exit\n"
         "  --frames N          frames before the screenshot (default 3)\n"
         "  --size WxH          window size (default 1280x800)\n"
         "  --lecture           start in lecture mode (2x crisp fonts, high contrast)\n"
         "  --head H            select head H (0-based) at start\n"
         "  -h, --help          print this text\n";
}

const char* UsageLine() {
  return "usage: attnlab [FILE.json] [--screenshot OUT.png [--frames N]] [--size WxH] [--lecture] [--head H]"
         " (attnlab --help)\n";
}

ArgResult ParseOption(int argc, char** argv, int* i, Options* o, std::string* error) {
  const char* arg = argv[*i];
  const bool has_value = *i + 1 < argc;
  auto value_error = [&](const char* what) {
    *error = std::string(arg) + ": expected " + what;
    return ArgResult::Bad;
  };
  if (std::strcmp(arg, "--help") == 0 || std::strcmp(arg, "-h") == 0) {
    o->help = true;
  } else if (std::strcmp(arg, "--screenshot") == 0) {
    if (!has_value) return value_error("an output path");
    o->screenshot_path = argv[++*i];
  } else if (std::strcmp(arg, "--frames") == 0) {
    if (!has_value || !ParseIntArg(argv[++*i], 1, 1000000, &o->frames))
      return value_error("a frame count >= 1");
  } else if (std::strcmp(arg, "--size") == 0) {
    if (!has_value || !ParseSize(argv[++*i], &o->width, &o->height))
      return value_error("WxH, e.g. 1280x800 (320x240 to 8192x8192)");
  } else if (std::strcmp(arg, "--head") == 0) {
    if (!has_value || !ParseIntArg(argv[++*i], 0, 255, &o->head)) return value_error("a head index");
  } else if (std::strcmp(arg, "--lecture") == 0) {
    o->lecture = true;
  } else if (arg[0] == '-' && arg[1] != '\0') {
    return ArgResult::Unknown;
  } else if (o->file.empty()) {
    o->file = arg;
  } else {
    *error = std::string("more than one file given: ") + arg;
    return ArgResult::Bad;
  }
  return ArgResult::Taken;
}

bool ParseOptions(int argc, char** argv, Options* options, std::string* error) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const ArgResult result = ParseOption(argc, argv, &i, &o, error);
    if (result == ArgResult::Unknown) *error = std::string("unknown option ") + argv[i];
    if (result != ArgResult::Taken) return false;
  }
  *options = o;
  return true;
}

}  // namespace attnlab::app
