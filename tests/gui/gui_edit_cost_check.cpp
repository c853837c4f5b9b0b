// What an edit costs the UI thread at a size the trace worker computes (issue 5: the UI thread
// never blocks), counted by the window itself (--trace-stats), never timed. Under Xvfb, on a
// generated 1024 x 64 x 4 causal scenario:
//  1. an edit, with the Inspector and then the Single query panel in front (each used to resolve
//     the Model again on every version): nothing is resolved or computed on the UI thread, and the
//     worker resolves each version it computes once (the edit's validation is that resolve);
//  2. edit then undo, and edit then undo and redo: the document is exactly the one before, and
//     exactly the edited one (JSON equality: every number round-trips);
//  3. an edit the core refuses (3 heads do not divide d_model = 64), refused by the worker after
//     the edit was committed: the document, its version and its trace are as before the edit, and
//     the refusal is left for the control that made it.
//
// usage: attnlab_gui_edit_cost_check APP MAKE_SCENARIO OUT_DIR
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "gui_run_support.h"

namespace gui_edit_cost_check {

namespace {

using gui_check::CheckerArgs;
using gui_check::MakeCausalScenario;
using gui_check::ParseCheckerArgs;
using gui_check::Quote;

constexpr const char* kShape = "1024x64x4";  // 4M weight cells: computed off the UI thread

struct WindowRun {
  nlohmann::json stats;     // the --trace-stats line
  nlohmann::json document;  // --print-scenario
};

// Splits the window's standard output: the document (pretty-printed, from a line "{" to a line
// "}") and the last line, the stats.
bool ParseOutput(const std::string& out, WindowRun* run) {
  const std::size_t begin = out.find("{\n");
  const std::size_t end = out.rfind("\n}\n");
  const std::size_t stats = out.rfind("\n{\"version\"");
  if (begin == std::string::npos || end == std::string::npos || stats == std::string::npos) return false;
  run->document = nlohmann::json::parse(out.substr(begin, end + 2 - begin), nullptr, false);
  run->stats = nlohmann::json::parse(out.substr(stats + 1), nullptr, false);
  return !run->document.is_discarded() && !run->stats.is_discarded();
}

// Runs the window until the trace of its last version is on screen; false (with a FAIL line)
// when it fails, prints no stats or computed a trace on the UI thread.
bool RunWindow(const std::string& command, WindowRun* run) {
  const std::string full = command + " --print-scenario --trace-stats";
  std::printf("running: %s\n", full.c_str());
  std::string out;
  int status = 0;
  if (!gui_check::RunCapture(full, &out, &status) || gui_check::ExitCode(status) != 0 ||
      !ParseOutput(out, run)) {
    std::printf("FAIL: the window failed (exit %d) or printed no document and stats\n",
                gui_check::ExitCode(status));
    return false;
  }
  std::printf("  stats %s\n", run->stats.dump().c_str());
  if (run->stats["sync_computes"] != 0 || run->stats["trace_version"] != run->stats["version"]) {
    std::printf("FAIL: a trace was computed on the UI thread, or the last version's is not shown\n");
    return false;
  }
  return true;
}

// Check 1: the UI thread resolves nothing; the worker once per computation it started.
bool ExpectNoUiResolve(const WindowRun& run, const char* panel) {
  const nlohmann::json& s = run.stats;
  if (!s.contains("ui_resolves") || !s.contains("worker_resolves")) {
    std::printf("FAIL (%s in front): no resolve counters in --trace-stats\n", panel);
    return false;
  }
  const bool ok = s["ui_resolves"] == 0 && s["worker_resolves"] <= s["started"];
  std::printf("  %s in front: %s models resolved on the UI thread, %s by the worker in %s "
              "computations: %s\n", panel, s["ui_resolves"].dump().c_str(),
              s["worker_resolves"].dump().c_str(), s["started"].dump().c_str(), ok ? "ok" : "FAIL");
  return ok;
}

bool ExpectDocument(const WindowRun& run, const nlohmann::json& expected, const char* what) {
  const bool ok = run.document == expected;
  std::printf("  %s: the document %s\n", what, ok ? "is exactly the expected one" : "differs: FAIL");
  return ok;
}

}  // namespace

int Main(int argc, char** argv) {
  CheckerArgs args;
  if (!ParseCheckerArgs(argc, argv, &args)) return 2;
  const std::string &app = args.app, &dir = args.dir;
  const std::string scenario = dir + "/edit-cost-" + kShape + ".json";
  if (!MakeCausalScenario(args, kShape, scenario, 7)) return 1;
  const std::string window =
      Quote(app) + " " + Quote(scenario) + " --frames 6 --screenshot " + Quote(dir + "/edit-cost.png");
  bool ok = true;

  WindowRun opened, edited, with_single_query, undone, redone, refused;
  ok = RunWindow(window, &opened) && ok;
  // 1. One edit, each of the two panels that explain the trace in front.
  if (RunWindow(window + " --test-edit scale=0.5", &edited))
    ok = ExpectNoUiResolve(edited, "Inspector") && ok;
  else
    ok = false;
  if (RunWindow(window + " --test-edit scale=0.5 --show-panel 'Single query'", &with_single_query))
    ok = ExpectNoUiResolve(with_single_query, "Single query") && ok;
  else
    ok = false;

  // 2. Undo and redo restore exactly (the redo a frame after the edit, while it computes).
  ok = RunWindow(window + " --test-edit scale=0.5,undo", &undone) &&
       ExpectDocument(undone, opened.document, "edit, undo") && ok;
  ok = RunWindow(window + " --test-edit scale=0.5 --test-edit-next undo,redo", &redone) &&
       ExpectDocument(redone, edited.document, "edit, undo, redo") && ok;

  // 3. Refused by the worker: back to the version before the edit, the refusal for "heads".
  if (RunWindow(window + " --test-edit heads=3", &refused)) {
    ok = ExpectDocument(refused, opened.document, "refused edit") && ok;
    const bool same_version = refused.stats["version"] == opened.stats["version"];
    const bool reported = refused.stats["edit_error"] == "heads";
    std::printf("  refused edit: version %s (before: %s), refusal left for %s: %s\n",
                refused.stats["version"].dump().c_str(), opened.stats["version"].dump().c_str(),
                refused.stats["edit_error"].dump().c_str(),
                same_version && reported ? "ok" : "FAIL");
    ok = same_version && reported && ok;
  } else {
    ok = false;
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}

}  // namespace gui_edit_cost_check
