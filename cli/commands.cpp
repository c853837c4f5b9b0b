#include "commands.h"

#include <iostream>
#include <sstream>

#include "attnlab/attention.h"
#include "attnlab/scenario_io.h"
#include "attnlab/trace_io.h"

namespace attnlab::cli {

namespace {

/// Options of the form --name VALUE and one positional FILE.
struct Parsed {
  std::string file;
  std::vector<std::pair<std::string, std::string>> options;
  std::string option(const std::string& name, const std::string& fallback) const {
    for (const auto& [key, value] : options)
      if (key == name) return value;
    return fallback;
  }
};

Parsed parse(const Args& args, const std::vector<std::string>& known_options) {
  Parsed p;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) == 0) {
      std::string name = a.substr(2), value;
      const auto eq = name.find('=');
      if (eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
      } else {
        if (i + 1 >= args.size()) throw UsageError("option --" + name + " needs a value");
        value = args[++i];
      }
      if (std::find(known_options.begin(), known_options.end(), name) == known_options.end())
        throw UsageError("unknown option --" + name);
      p.options.emplace_back(name, value);
    } else if (p.file.empty()) {
      p.file = a;
    } else {
      throw UsageError("unexpected argument '" + a + "'");
    }
  }
  if (p.file.empty()) throw UsageError("missing FILE");
  return p;
}

int parse_int_option(const Parsed& p, const std::string& name, int fallback, int lo, int hi) {
  const std::string text = p.option(name, std::to_string(fallback));
  try {
    std::size_t used = 0;
    const int value = std::stoi(text, &used);
    if (used == text.size() && value >= lo && value <= hi) return value;
  } catch (const std::exception&) {
  }
  throw UsageError("--" + name + " expects a whole number from " + std::to_string(lo) + " to " +
                   std::to_string(hi) + ", got '" + text + "'");
}

/// Loads and computes; prints the one-line error and returns false for invalid input.
bool load_and_compute(const std::string& file, Scenario& scenario, Trace* trace) {
  try {
    scenario = load_scenario(file);
    if (trace) *trace = compute(scenario);
    else validate(scenario);
    return true;
  } catch (const ScenarioError& e) {
    std::cerr << file << ": " << e.what() << "\n";
    return false;
  }
}

}  // namespace

int run_compute(const Args& args) {
  const Parsed p = parse(args, {"format", "precision"});
  const std::string format = p.option("format", "json");
  if (format != "json" && format != "text") throw UsageError("--format expects json or text, got '" + format + "'");
  const int precision = parse_int_option(p, "precision", 8, 0, 17);
  Scenario scenario;
  Trace trace;
  if (!load_and_compute(p.file, scenario, &trace)) return 1;
  if (format == "text") {
    if (!scenario.title.empty()) std::cout << scenario.title << "\n";
    std::cout << trace_to_text(trace, precision);
  } else {
    std::cout << trace_to_json(trace).dump() << "\n";
  }
  return 0;
}

int run_validate(const Args& args) {
  const Parsed p = parse(args, {});
  Scenario scenario;
  if (!load_and_compute(p.file, scenario, nullptr)) return 1;
  auto count = [](int n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); };
  std::cout << p.file << ": valid (" << count(scenario.head_count(), "head", "heads") << ", "
            << count(scenario.n_x(), "query", "queries") << ", " << count(scenario.n_z(), "key", "keys")
            << ", layout " << layout_name(scenario.layout) << ")\n";
  return 0;
}

const std::vector<Command>& commands() {
  static const std::vector<Command> list = {
      {"compute", "compute FILE [--format json|text] [--precision N]   print every stage of the trace (precision: text only)", run_compute},
      {"validate", "validate FILE                                       check a scenario without computing", run_validate},
  };
  return list;
}

std::string usage_text() {
  std::ostringstream out;
  out << "usage: attnlab-cli COMMAND ...\n\ncommands:\n";
  for (const Command& c : commands()) out << "  " << c.synopsis << "\n";
  out << "\nexit status: 0 success, 1 invalid input (one line on stderr names the field), 2 bad usage\n";
  return out.str();
}

}  // namespace attnlab::cli
