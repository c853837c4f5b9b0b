// attnlab-cli compute FILE: every stage of the trace, as JSON or NumPy-style text.
#include <iostream>

#include "args.h"
#include "attnlab/attention.h"
#include "attnlab/scenario_io.h"
#include "attnlab/trace_io.h"
#include "commands.h"

namespace attnlab::cli {

int run_compute(const Args& args) {
  const ParsedArgs p = parse_args(args, {"format", "precision"});
  const std::string format = p.option("format", "json");
  if (format != "json" && format != "text") throw UsageError("--format expects json or text, got '" + format + "'");
  const int precision = int_option(p, "precision", 8, 0, 17);
  Scenario scenario;
  Trace trace;
  try {
    scenario = load_scenario(p.file);
    trace = compute(scenario);
  } catch (const ScenarioError& e) {
    return report_invalid(p.file, e);
  }
  if (format == "text") {
    if (!scenario.title.empty()) std::cout << scenario.title << "\n";
    std::cout << trace_to_text(trace, precision);
  } else {
    std::cout << trace_to_json(trace).dump() << "\n";
  }
  return 0;
}

}  // namespace attnlab::cli
