#include "instruments/harness_options.h"

#include <cstdlib>
#include <cstring>
#include <vector>

#include "instruments/cell_edit.h"
#include "instruments/model_script.h"

namespace attnlab::app {
namespace {

bool Is(const char* arg, const char* name) { return std::strcmp(arg, name) == 0; }

// Flags without a value.
bool ParseSwitch(const char* arg, HarnessOptions* o) {
  bool* flag = Is(arg, "--smoke") ? &o->smoke
               : Is(arg, "--print-scenario") ? &o->print_scenario
               : Is(arg, "--print-view") ? &o->print_view
               : Is(arg, "--first-run-hint") ? &o->first_run_hint
               : Is(arg, "--capture-stale") ? &o->capture_stale
               : Is(arg, "--trace-stats") ? &o->trace_stats
               : Is(arg, "--hold-patching") ? &o->hold_patching
               : Is(arg, "--bench-startup") ? &o->bench_startup
               : Is(arg, "--bench-save") ? &o->bench_save
                                             : nullptr;
  if (flag) *flag = true;
  return flag != nullptr;
}

// Flags with a text value: the expected value when `arg` is one (checked by the caller), else null.
const char* TextFlag(const char* arg, HarnessOptions* o, std::string** target) {
  struct Flag {
    const char* name;
    std::string* target;
    const char* expected;
  };
  const Flag flags[] = {
      {"--restore-autosave", &o->restore_autosave, "yes or no"},
      {"--edit-cell", &o->edit_cell, "M[r][c]=V, e.g. W_q[0][1]=0.5"},
      {"--test-edit", &o->test_edit, "layout, heads=N or scale=S"},
      {"--test-edit-next", &o->test_edit_next, "layout, heads=N or scale=S"},
      {"--show-panel", &o->show_panel, "a panel name"},
      {"--model-text", &o->model_text, "a text"},
      {"--model-pair", &o->model_pair, "a second text (an encoder's sentence pair)"},
      {"--model-layer", &o->model_layer, "LAYER.HEAD (from 0), e.g. 1.0"},
      {"--model-heads-off", &o->model_heads_off, "heads (from 0) separated by commas, e.g. 0,2"},
      {"--layout-log", &o->layout_log, "a file to write"},
      {"--input-log", &o->input_log, "a file to write"},
      {"--capture-on", &o->capture_on, "a trigger file's path"},
      {"--wake-on", &o->wake_on, "a trigger file's path"},
      {"--edit-what", &o->edit_what, "scale, x or mask"},
      {"--head-first", &o->head_first, "on, off or hold"},
      {"--check-open", &o->check_open, "a file listing one scenario path (or model:FOLDER) per line"},
      {"--bench-open", &o->bench_open, "a scenario file"},
      {"--bench-model-typing", &o->bench_model_typing, "a text"},
  };
  for (const Flag& f : flags)
    if (Is(arg, f.name)) {
      *target = f.target;
      return f.expected;
    }
  return nullptr;
}

bool ValidText(const char* arg, const std::string& value) {
  if (Is(arg, "--restore-autosave")) return value == "yes" || value == "no";
  if (Is(arg, "--edit-what")) return value == "scale" || value == "x" || value == "mask";
  if (Is(arg, "--head-first")) return value == "on" || value == "off" || value == "hold";
  if (Is(arg, "--model-layer") || Is(arg, "--model-heads-off")) {
    std::string error;
    return ModelScript().Parse("text", Is(arg, "--model-layer") ? value : "", Is(arg, "--model-layer") ? "" : value,
                               &error);
  }
  if (Is(arg, "--edit-cell")) {
    std::string error;
    return ScriptedCellEdit().Parse(value, &error);
  }
  return true;
}

// Flags with a count: the count's target and range when `arg` is one.
int* CountFlag(const char* arg, HarnessOptions* o, int* high) {
  *high = Is(arg, "--bench-frames") ? 1000000 : 100000;
  return Is(arg, "--bench-frames") ? &o->bench_frames
         : Is(arg, "--bench-edit") ? &o->bench_edit
         : Is(arg, "--edit-every") ? &o->edit_every
         : Is(arg, "--type-every-ms") ? &o->type_every_ms
                                   : nullptr;
}

enum class ArgResult { Taken, Unknown, Bad };

ArgResult ParseInstrumentOption(int argc, char** argv, int* i, HarnessOptions* o, std::string* error) {
  const char* arg = argv[*i];
  const bool has_value = *i + 1 < argc;
  std::string* text = nullptr;
  int high = 0;
  if (ParseSwitch(arg, o)) return ArgResult::Taken;
  if (const char* expected = TextFlag(arg, o, &text)) {
    if (has_value && ValidText(arg, argv[*i + 1])) {
      *text = argv[++*i];
      return ArgResult::Taken;
    }
    *error = std::string(arg) + ": expected " + expected;
    return ArgResult::Bad;
  }
  if (int* count = CountFlag(arg, o, &high)) {
    if (has_value && ParseIntArg(argv[++*i], 1, high, count)) return ArgResult::Taken;
    *error = std::string(arg) + (Is(arg, "--bench-edit")      ? ": expected an edit count >= 1"
                                 : Is(arg, "--type-every-ms") ? ": expected milliseconds >= 1"
                                                              : ": expected a frame count >= 1");
    return ArgResult::Bad;
  }
  return ArgResult::Unknown;
}

}  // namespace

const char* HarnessUsageText() {
  return "usage: attnlab-harness [FILE.json] [attnlab's options] [instrument options]\n"
         "The window of attnlab with its test and benchmark instruments (tests/gui, bench/).\n"
         "  FILE.json, --size WxH, --lecture, --head H   as for attnlab\n"
         "  --screenshot PATH   render N frames, write the window as PNG and PATH.json (where\n"
         "                      every heatmap drew its cells), exit\n"
         "  --frames N          frames before the screenshot, or of --smoke (default 3)\n"
         "  --bench-frames N    render N frames and print {\"frames\",\"p50_ms\",\"p95_ms\"} JSON\n"
         "  --smoke             drive every panel and edit for --frames frames, then exit\n"
         "  --restore-autosave yes|no   restore (or discard) work left by a crash, without asking\n"
         "  --print-scenario    print the document as scenario JSON on exit\n"
         "  --print-view        print {\"first_run_hint\", \"in_front\"} JSON on exit: whether\n"
         "                      the hint is still due, the panels not hidden behind a tab\n"
         "  --first-run-hint    show the first-run hint as a first start would (config dir),\n"
         "                      even in a scripted run (--screenshot)\n"
         "  --test-edit layout|heads=N|scale=S|x=V|undo|redo   apply an edit as a user would (tests;\n"
         "                      several separated by commas: in order, in one frame)\n"
         "  --test-edit lesson=broken   a view.lesson the loader would refuse (presenter's fallback)\n"
         "  --layout-log FILE   keep FILE up to date with where the menu bar, status bar and every\n"
         "                      panel are (JSON, rewritten whenever the arrangement changes)\n"
         "  --input-log FILE    keep FILE to one line of what ImGui saw after each frame: the frame,\n"
         "                      keys and mouse buttons held, mouse position, counts of characters,\n"
         "                      clicks and wheel notches, the text field and popup in front\n"
         "  --show-panel NAME   bring panel NAME (\"Single query\", ...) to the front of its tabs\n"
         "  --model-text TEXT [--model-pair TEXT2] [--model-layer L.H [--model-heads-off H,...]]\n"
         "                      with a model folder: type TEXT (an encoder's pair: TEXT2 in the\n"
         "                      second field), click layer L's head H map, switch heads off (from 0);\n"
         "                      a screenshot waits for each step\n"
         "  --edit-cell M[r][c]=V   type V into cell (r, c) of matrix M (X, W_q, heads[1].b_k, ...)\n"
         "                      in the Inputs panel, in the very frame the screenshot captures\n"
         "  --test-edit-next E  a second edit, one frame after --test-edit\n"
         "  --capture-on FILE   (no --screenshot) whenever FILE appears, write the next frame as\n"
         "                      FILE.png and FILE.png.json, remove FILE, keep running; a FILE\n"
         "                      that reads \"layout\" writes only FILE.png.json (no read-back)\n"
         "  --wake-on FILE      (tests) while FILE exists, draw frame after frame: an idle window\n"
         "                      would wait up to 0.5 s between frames\n"
         "  --capture-stale     screenshot even while a large trace is computing (default: wait)\n"
         "  --trace-stats       print trace computation counters as JSON on exit\n"
         "  --hold-patching     the first activation patching run waits after its first patched\n"
         "                      run until it is cancelled (a test of Cancel, never a race)\n"
         "  --bench-edit N [--edit-every K] [--edit-what scale|x|mask]   apply N edits, K frames\n"
         "                      apart (default 10), of the scale (keeps the projections), of\n"
         "                      X[0][0] (its row of Q, K, V, everything after) or a mask cell\n"
         "                      (row i, key 0 of edit i); print edit-to-frame latency and\n"
         "                      frame times as JSON\n"
         "  --head-first on|off|hold   large traces: the selected head first (on, the default),\n"
         "                      every head at once (off), or the rest held back once the first\n"
         "                      trace is drawn (hold)\n"
         "  --bench-startup     print {\"first_frame_ms\"} (launch to first drawn frame), exit\n"
         "  --check-open LIST   open each file in LIST (one per line) as File > Open does (a line\n"
         "                      model:FOLDER as File > Open model does), print\n"
         "                      one JSON line per file (accepted, message shown, document kept), exit\n"
         "  --bench-open FILE   open FILE as File > Open does (a large one loads off the UI thread)\n"
         "  --bench-save        save the document in place as Ctrl+S does (after --bench-open)\n"
         "                      either: print the UI thread's longest frame CPU and the frames\n"
         "                      drawn meanwhile as JSON, exit once done\n"
         "  --bench-model-typing TEXT [--type-every-ms MS]   with a model folder (and --model-text's\n"
         "                      run done): type TEXT a character every MS ms (default 150), time each\n"
         "                      keystroke to the frame drawing its grid, print JSON, exit once done\n";
}

// The instruments' flags are taken here, by hand; the rest (attnlab's own) go to attnlab's parser.
bool ParseHarnessOptions(int argc, char** argv, HarnessOptions* options, std::string* error) {
  HarnessOptions o;
  std::vector<std::string> window_args;
  for (int i = 1; i < argc; ++i) {
    const ArgResult result = ParseInstrumentOption(argc, argv, &i, &o, error);
    if (result == ArgResult::Bad) return false;
    if (result == ArgResult::Unknown) window_args.push_back(argv[i]);
  }
  if (!ParseOptions(window_args, &o.window, error)) return false;
  *options = o;
  return true;
}

}  // namespace attnlab::app
