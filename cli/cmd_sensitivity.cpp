// attnlab-cli sensitivity FILE --of CELL: the exact gradient of one trace cell with respect to
// every input and weight of the scenario, as JSON.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "attnlab/cell_ref.h"
#include "attnlab/scenario_io.h"
#include "attnlab/sensitivity.h"
#include "commands.h"

namespace attnlab::cli {

namespace {

struct SensitivityOptions {
  std::string file, of;
  const CLI::Option* of_given = nullptr;  ///< count() > 0 once parsed, even for --of ""
};

int run_sensitivity(const SensitivityOptions& p) {
  if (p.of_given->count() == 0) throw UsageError("sensitivity needs --of CELL, e.g. --of \"output[0][0]\"");
  const std::string& of_text = p.of;
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

}  // namespace

Run add_sensitivity(CLI::App& program) {
  auto o = std::make_shared<SensitivityOptions>();
  CLI::App* c = program.add_subcommand(
      "sensitivity", "the exact gradient of one cell with respect to every input and weight, as JSON");
  add_file(*c, o->file);
  o->of_given = c->add_option("--of", o->of,
                "the cell: output[i][j], concat[i][j], heads[h].weights[i][j],\n"
                "heads[h].scores[i][j] or heads[h].output[i][j] (indices in the\n"
                "file's layout, h from 0), e.g. --of \"output[0][0]\"")
      ->type_name("CELL")
      ->group(kRequired);
  return [o] { return run_sensitivity(*o); };
}

}  // namespace attnlab::cli
