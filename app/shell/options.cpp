#include "shell/options.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace attnlab::app {
namespace {

bool ParseInt(const char* text, int low, int high, int* out) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < low || v > high) return false;
  *out = static_cast<int>(v);
  return true;
}

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

const char* UsageText() {
  return "usage: attnlab [FILE.json] [--screenshot OUT.png] [--frames N] [--bench-frames N]\n"
         "               [--size WxH] [--lecture] [--head H] [--smoke]\n"
         "  FILE.json           scenario to open (default: a built-in example)\n"
         "  --screenshot PATH   render N frames, write the window as PNG (+ PATH.json layout), exit\n"
         "  --frames N          frames before the screenshot (default 3)\n"
         "  --bench-frames N    render N frames and print {\"frames\",\"p50_ms\",\"p95_ms\"} JSON\n"
         "  --size WxH          window size (default 1280x800)\n"
         "  --lecture           start in lecture mode (2x crisp fonts, high contrast)\n"
         "  --head H            select head H (0-based) at start\n"
         "  --smoke             drive every panel and edit for --frames frames, then exit\n"
         "  --restore-autosave yes|no   restore (or discard) work left by a crash, without asking\n"
         "  --print-scenario    print the document as scenario JSON on exit\n"
         "  --test-edit layout|heads=N|scale=S|x=V|undo|redo   apply an edit as a user would (tests;\n"
         "                      several separated by commas: in order, in one frame)\n"
         "  --show-panel NAME   bring panel NAME (\"Single query\", ...) to the front of its tabs\n"
         "  --edit-cell M[r][c]=V   type V into cell (r, c) of matrix M (X, W_q, heads[1].b_k, ...)\n"
         "                      in the Inputs panel, in the very frame the screenshot captures\n"
         "  --test-edit-next E  a second edit, one frame after --test-edit\n"
         "  --capture-stale     screenshot even while a large trace is computing (default: wait)\n"
         "  --trace-stats       print trace computation counters as JSON on exit\n"
         "  --bench-edit N [--edit-every K] [--edit-what scale|x]   apply N edits, K frames\n"
         "                      apart (default 10), of the scale (keeps the projections) or of\n"
         "                      X[0][0] (recomputes everything); print edit-to-frame latency and\n"
         "                      frame times as JSON\n"
         "  --bench-startup     print {\"first_frame_ms\"} (launch to first drawn frame), exit\n"
         "  --check-open LIST   open each file in LIST (one per line) as File > Open does, print\n"
         "                      one JSON line per file (accepted, message shown, document kept), exit\n"
         "  --bench-open FILE   open FILE as File > Open does (a large one loads off the UI thread)\n"
         "  --bench-save        save the document in place as Ctrl+S does (after --bench-open)\n"
         "                      either: print the UI thread's longest frame CPU and the frames\n"
         "                      drawn meanwhile as JSON, exit once done\n";
}

bool ParseOptions(int argc, char** argv, Options* options, std::string* error) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    const bool has_value = i + 1 < argc;
    auto value_error = [&](const char* what) {
      *error = std::string(arg) + ": expected " + what;
      return false;
    };
    if (std::strcmp(arg, "--help") == 0 || std::strcmp(arg, "-h") == 0) {
      o.help = true;
    } else if (std::strcmp(arg, "--screenshot") == 0) {
      if (!has_value) return value_error("an output path");
      o.screenshot_path = argv[++i];
    } else if (std::strcmp(arg, "--frames") == 0) {
      if (!has_value || !ParseInt(argv[++i], 1, 1000000, &o.frames))
        return value_error("a frame count >= 1");
    } else if (std::strcmp(arg, "--bench-frames") == 0) {
      if (!has_value || !ParseInt(argv[++i], 1, 1000000, &o.bench_frames))
        return value_error("a frame count >= 1");
    } else if (std::strcmp(arg, "--size") == 0) {
      if (!has_value || !ParseSize(argv[++i], &o.width, &o.height))
        return value_error("WxH, e.g. 1280x800 (320x240 to 8192x8192)");
    } else if (std::strcmp(arg, "--head") == 0) {
      if (!has_value || !ParseInt(argv[++i], 0, 255, &o.head)) return value_error("a head index");
    } else if (std::strcmp(arg, "--lecture") == 0) {
      o.lecture = true;
    } else if (std::strcmp(arg, "--smoke") == 0) {
      o.smoke = true;
    } else if (std::strcmp(arg, "--restore-autosave") == 0) {
      if (!has_value || (std::strcmp(argv[i + 1], "yes") != 0 && std::strcmp(argv[i + 1], "no") != 0))
        return value_error("yes or no");
      o.restore_autosave = argv[++i];
    } else if (std::strcmp(arg, "--print-scenario") == 0) {
      o.print_scenario = true;
    } else if (std::strcmp(arg, "--edit-cell") == 0) {
      if (!has_value) return value_error("M[r][c]=V, e.g. W_q[0][1]=0.5");
      o.edit_cell = argv[++i];
    } else if (std::strcmp(arg, "--test-edit") == 0) {
      if (!has_value) return value_error("layout, heads=N or scale=S");
      o.test_edit = argv[++i];
    } else if (std::strcmp(arg, "--test-edit-next") == 0) {
      if (!has_value) return value_error("layout, heads=N or scale=S");
      o.test_edit_next = argv[++i];
    } else if (std::strcmp(arg, "--show-panel") == 0) {
      if (!has_value) return value_error("a panel name");
      o.show_panel = argv[++i];
    } else if (std::strcmp(arg, "--capture-stale") == 0) {
      o.capture_stale = true;
    } else if (std::strcmp(arg, "--trace-stats") == 0) {
      o.trace_stats = true;
    } else if (std::strcmp(arg, "--bench-edit") == 0) {
      if (!has_value || !ParseInt(argv[++i], 1, 100000, &o.bench_edit))
        return value_error("an edit count >= 1");
    } else if (std::strcmp(arg, "--edit-every") == 0) {
      if (!has_value || !ParseInt(argv[++i], 1, 100000, &o.edit_every))
        return value_error("a frame count >= 1");
    } else if (std::strcmp(arg, "--edit-what") == 0) {
      if (!has_value || (std::strcmp(argv[i + 1], "scale") != 0 && std::strcmp(argv[i + 1], "x") != 0))
        return value_error("scale or x");
      o.edit_what = argv[++i];
    } else if (std::strcmp(arg, "--bench-startup") == 0) {
      o.bench_startup = true;
    } else if (std::strcmp(arg, "--check-open") == 0) {
      if (!has_value) return value_error("a file listing one scenario path per line");
      o.check_open = argv[++i];
    } else if (std::strcmp(arg, "--bench-open") == 0) {
      if (!has_value) return value_error("a scenario file");
      o.bench_open = argv[++i];
    } else if (std::strcmp(arg, "--bench-save") == 0) {
      o.bench_save = true;
    } else if (arg[0] == '-' && arg[1] != '\0') {
      *error = std::string("unknown option ") + arg;
      return false;
    } else if (o.file.empty()) {
      o.file = arg;
    } else {
      *error = std::string("more than one file given: ") + arg;
      return false;
    }
  }
  *options = o;
  return true;
}

}  // namespace attnlab::app
