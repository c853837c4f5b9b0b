// attnlab-cli validate FILE: check a scenario (format, shapes, values) without computing it.
#include <iostream>

#include "args.h"
#include "attnlab/model.h"
#include "attnlab/scenario_io.h"
#include "commands.h"

namespace attnlab::cli {

namespace {
std::string count(int n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }
}  // namespace

int run_validate(const Args& args) {
  const ParsedArgs p = parse_args(args, {});
  Scenario scenario;
  try {
    scenario = load_scenario(p.file);
    validate(scenario);
  } catch (const ScenarioError& e) {
    return report_invalid(p.file, e);
  }
  std::cout << p.file << ": valid (" << count(scenario.head_count(), "head", "heads") << ", "
            << count(scenario.n_x(), "query", "queries") << ", " << count(scenario.n_z(), "key", "keys")
            << ", layout " << layout_name(scenario.layout) << ")\n";
  return 0;
}

}  // namespace attnlab::cli
