#include "shell/options.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>

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

/// The command line as CLI11 stores it: text, checked by Check with attnlab's own messages.
struct Words {
  std::string file, screenshot, frames = "3", size = "1280x800", head;
  bool lecture = false;
};

/// What each option with a value expects: the message when the value is missing or wrong.
struct Expected {
  const char* name;
  const char* what;
};
constexpr Expected kExpected[] = {{"--screenshot", "an output path"},
                                  {"--frames", "a frame count >= 1"},
                                  {"--size", "WxH, e.g. 1280x800 (320x240 to 8192x8192)"},
                                  {"--head", "a head index"}};

std::string ValueError(const std::string& name) {
  for (const Expected& e : kExpected)
    if (name == e.name) return name + ": expected " + e.what;
  return name + ": expected a value";
}

/// The window's options, declared once: they parse and they write --help.
void Declare(CLI::App& app, Words& w) {
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.allow_extras();  // reported by ParseOptions in attnlab's words, one line
  app.set_version_flag("--version", std::string("attnlab ") + VersionNumber());
  app.add_option("FILE.json", w.file,
                 "scenario to open (default: a built-in example), or a model folder (GPT-2, Llama,\n"
                 "Qwen2: config.json, safetensors, tokenizer) to open beside it")
      ->type_name("");
  app.add_option("--screenshot", w.screenshot, "render N frames, write the window as PNG, exit")->type_name("PATH");
  app.add_option("--frames", w.frames, "frames before the screenshot (default 3)")->type_name("N");
  app.add_option("--size", w.size, "window size (default 1280x800)")->type_name("WxH");
  app.add_flag("--lecture", w.lecture, "start in lecture mode (2x crisp fonts, high contrast)");
  app.add_option("--head", w.head, "select head H (0-based) at start")->type_name("H");
}

/// The checks in the order of the options' list; the first wrong one is the message.
bool Check(const Words& w, Options* o, std::string* error) {
  o->file = w.file;
  o->screenshot_path = w.screenshot;
  o->lecture = w.lecture;
  if (!ParseIntArg(w.frames.c_str(), 1, 1000000, &o->frames)) *error = ValueError("--frames");
  else if (!ParseSize(w.size.c_str(), &o->width, &o->height)) *error = ValueError("--size");
  else if (!w.head.empty() && !ParseIntArg(w.head.c_str(), 0, 255, &o->head)) *error = ValueError("--head");
  else return true;
  return false;
}

/// An argument no option took: an option attnlab does not have, or a second file.
std::string Leftover(const std::string& arg) {
  if (arg.size() > 1 && arg[0] == '-') return "unknown option " + arg;
  return "more than one file given: " + arg;
}

}  // namespace

const char* VersionNumber() { return ATTNLAB_VERSION; }

bool ParseIntArg(const char* text, int low, int high, int* out) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < low || v > high) return false;
  *out = static_cast<int>(v);
  return true;
}

std::string UsageText() {
  CLI::App app("attnlab: transformer attention, every matrix on screen; edit a number, see every stage change.",
               "attnlab");
  Words w;
  Declare(app, w);
  return app.help();
}

const char* UsageLine() {
  return "Run 'attnlab --help' for the options.\n";
}

bool ParseOptions(const std::vector<std::string>& args, Options* options, std::string* error) {
  CLI::App app("attnlab", "attnlab");
  Words w;
  Declare(app, w);
  Options o;
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    o.help = true;
  } catch (const CLI::CallForVersion&) {
    o.version = true;
  } catch (const CLI::ArgumentMismatch& e) {  // "--frames: 1 required N missing": no value
    const std::string what = e.what();
    *error = ValueError(what.substr(0, what.find(':')));
    return false;
  } catch (const CLI::ParseError& e) {
    *error = e.what();
    return false;
  }
  if (!app.remaining().empty()) {
    *error = Leftover(app.remaining().front());
    return false;
  }
  if (!o.help && !o.version && !Check(w, &o, error)) return false;
  *options = o;
  return true;
}

bool ParseOptions(int argc, char** argv, Options* options, std::string* error) {
  return ParseOptions(std::vector<std::string>(argv + 1, argv + argc), options, error);
}

}  // namespace attnlab::app
