// attnlab-cli sensitivity FILE --of CELL: the exact gradient of one trace cell with respect to
// every input and weight of the scenario, as JSON.
#include <iostream>

#include "args.h"
#include "attnlab/cell_ref.h"
#include "attnlab/scenario_io.h"
#include "attnlab/sensitivity.h"
#include "commands.h"

namespace attnlab::cli {

int run_sensitivity(const Args& args) {
  const ParsedArgs p = parse_args(args, {"of"});
  if (!p.has("of")) throw UsageError("sensitivity needs --of CELL, e.g. --of \"output[0][0]\"");
  const std::string of_text = p.option("of", "");
  CellRef of;
  try {
    of = parse_cell_ref(of_text);
  } catch (const ScenarioError& e) {
    throw UsageError("--of: " + std::string(e.what()));
  }
  Scenario scenario;
  Model model;
  try {
    scenario = load_scenario(p.file);
    model = resolve(scenario);
  } catch (const ScenarioError& e) {
    return report_invalid(p.file, e);
  }
  try {  // the reference read against the scenario's shapes: a usage error, the file is fine
    (void)trace_cell(model, scenario.layout, of);
  } catch (const ScenarioError& e) {
    throw UsageError("--of " + std::string(e.what()));
  }
  std::cout << sensitivity_to_json(sensitivity(scenario, of)).dump() << "\n";
  return 0;
}

}  // namespace attnlab::cli
