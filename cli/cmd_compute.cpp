// attnlab-cli compute FILE: every stage of the trace, as JSON or NumPy-style text.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "args.h"
#include "attnlab/attention.h"
#include "attnlab/scenario_io.h"
#include "attnlab/trace_io.h"
#include "commands.h"

namespace attnlab::cli {
namespace {

struct ComputeOptions {
  std::string file, format = "json", precision = "8";
};

int run_compute(const ComputeOptions& p) {
  const std::string& format = p.format;
  if (format != "json" && format != "text") throw UsageError("--format expects json or text, got " + quote_arg(format));
  const int precision = whole_number("--precision", p.precision, 0, 17);
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

}  // namespace

Run add_compute(CLI::App& program) {
  auto o = std::make_shared<ComputeOptions>();
  CLI::App* c = program.add_subcommand("compute", "every stage of the trace (Q, K, V, scores, weights, outputs, per head)");
  add_file(*c, o->file);
  c->add_option("--format", o->format, "json: one object on stdout (-inf as null); text: aligned\nmatrices, as NumPy prints them")
      ->type_name("json|text");
  c->add_option("--precision", o->precision, "digits after the point, 0 to 17 (--format text only)")->type_name("N");
  return [o] { return run_compute(*o); };
}

}  // namespace attnlab::cli
