// attnlab-cli validate FILE: check a scenario (format, shapes, values) without computing it.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "attnlab/model.h"
#include "attnlab/scenario_io.h"
#include "commands.h"

namespace attnlab::cli {

namespace {
std::string count(int n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

int run_validate(const std::string& file) {
  Scenario scenario;
  try {
    scenario = load_scenario(file);
    validate(scenario);
  } catch (const ScenarioError& e) {
    return report_invalid(file, e);
  }
  std::cout << file << ": valid (" << count(scenario.head_count(), "head", "heads") << ", "
            << count(scenario.n_x(), "query", "queries") << ", " << count(scenario.n_z(), "key", "keys")
            << ", layout " << layout_name(scenario.layout) << ")\n";
  return 0;
}

}  // namespace

Run add_validate(CLI::App& program) {
  auto file = std::make_shared<std::string>();
  CLI::App* c = program.add_subcommand("validate", "check a scenario (format, shapes, values) without computing it");
  add_file(*c, *file);
  return [file] { return run_validate(*file); };
}

}  // namespace attnlab::cli
