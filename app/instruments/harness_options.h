#pragma once
/// The command line of attnlab-harness: everything `attnlab` accepts (shell/options.h) and the
/// window's test and benchmark instruments. Tests and bench/window_bench.sh run it.
#include <string>

#include "shell/options.h"

namespace attnlab::app {

struct HarnessOptions {
  Options window;               ///< FILE, --screenshot (here also OUT.png.json), --frames, ...
  int bench_frames = 0;         ///< > 0: render this many frames, print timing JSON, exit
  bool smoke = false;           ///< scripted tour of every panel and edit (tests), then exit
  std::string restore_autosave; ///< "yes"/"no": answer the crash-recovery offer without asking
  bool print_scenario = false;  ///< print the document as scenario JSON on exit (tests)
  bool print_view = false;      ///< print the panels in front and the hint's state on exit (tests)
  bool first_run_hint = false;  ///< the first-run hint as on a first start, even when scripted
  std::string test_edit;        ///< an edit applied through ApplyEdit after a few frames (tests)
  std::string edit_cell;        ///< "W_q[0][1]=0.5": typed into that cell in the frame captured
  std::string test_edit_next;   ///< a second edit, the frame after test_edit (tests: supersede)
  std::string layout_log;       ///< --layout-log: the arrangement, rewritten when it changes
  std::string input_log;        ///< --input-log: the keys, buttons and mouse ImGui saw (tests)
  std::string show_panel;       ///< a panel brought to the front of its tab group at start
  std::string model_text;       ///< typed into the Model panel once the model is open
  std::string model_pair;       ///< typed into its second field (an encoder's pair) with it
  std::string model_layer;      ///< "L.H" (from 0): that map clicked once the text has run
  std::string model_heads_off;  ///< "H,..." (from 0): those heads switched off in that layer
  std::string capture_on;       ///< when this file appears: next frame to FILE.png(.json) (tests)
  std::string wake_on;          ///< while this file exists: frame after frame, no idle wait (tests)
  bool capture_stale = false;   ///< screenshot at --frames even while a large trace computes
  bool trace_stats = false;     ///< print how traces were computed on exit (tests)
  bool hold_patching = false;   ///< the first patching run waits after one patched run until cancelled
  int bench_edit = 0;           ///< > 0: time this many edits to the frame showing them (JSON)
  int edit_every = 10;          ///< frames between --bench-edit edits
  std::string edit_what = "scale";  ///< what --bench-edit changes: "scale" or "x" (X[0][0])
  /// Large traces: "on" (the selected head computed and shown first), "off" (every head at once:
  /// the "before" of docs/PERFORMANCE.md) or "hold" (once the first trace is drawn, the rest of an
  /// edited trace waits while its selected head is shown: gui_head_first)
  std::string head_first = "on";
  bool bench_startup = false;   ///< print ms from launch to the first drawn frame, exit
  std::string check_open;      ///< a list of files: open each as File > Open does, print JSON lines
  std::string bench_open;      ///< open this file as File > Open does; time the UI thread (JSON)
  std::string bench_model_typing;  ///< typed into the Model view a key at a time, each timed to its grid (JSON)
  int type_every_ms = 150;         ///< milliseconds between --bench-model-typing's keystrokes
  bool bench_save = false;     ///< then save in place as Ctrl+S does; time the UI thread (JSON)
};

/// Parses argv; on a bad argument returns false and fills `error` (one line).
bool ParseHarnessOptions(int argc, char** argv, HarnessOptions* options, std::string* error);
const char* HarnessUsageText();

}  // namespace attnlab::app
