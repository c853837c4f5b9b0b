// attnlab-cli compare A.json B.json: per stage and head, the largest absolute difference between
// the two scenarios' traces and the cell holding it (core: trace_diff.h).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <sstream>

#include "attnlab/attention.h"
#include "attnlab/scenario_io.h"
#include "attnlab/trace_diff.h"
#include "args.h"
#include "commands.h"

namespace attnlab::cli {
namespace {

struct CompareOptions {
  std::vector<std::string> files;
  std::string format = "json";
};

/// Infinity (finite in one trace, -inf in the other) cannot be a JSON number: the string "inf".
nlohmann::ordered_json diff_json(double d) {
  if (std::isinf(d)) return "inf";
  return d;
}

std::string diff_text(double d) {
  if (std::isinf(d)) return "inf";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", d);
  return buffer;
}

void print_json(const std::vector<StageDiff>& diffs) {
  // ordered_json: each entry reads stage, head, max_abs_diff, at, as documented.
  nlohmann::ordered_json stages = nlohmann::ordered_json::array();
  for (const StageDiff& d : diffs)
    stages.push_back({{"stage", d.stage},
                      {"head", d.head < 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(d.head)},
                      {"max_abs_diff", diff_json(d.max_abs_diff)},
                      {"at", {d.row, d.col}}});
  std::cout << nlohmann::ordered_json{{"stages", stages}}.dump() << "\n";
}

void print_text(const std::vector<StageDiff>& diffs) {
  std::vector<std::array<std::string, 4>> rows = {{"stage", "head", "max_abs_diff", "at"}};
  for (const StageDiff& d : diffs)
    rows.push_back({d.stage, d.head < 0 ? "-" : std::to_string(d.head), diff_text(d.max_abs_diff),
                    "[" + std::to_string(d.row) + ", " + std::to_string(d.col) + "]"});
  std::array<std::size_t, 4> width{};
  for (const auto& r : rows)
    for (std::size_t c = 0; c < 4; ++c) width[c] = std::max(width[c], r[c].size());
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t c = 0; c < 4; ++c) {
      line += r[c];
      if (c + 1 < 4) line += std::string(width[c] - r[c].size() + 2, ' ');
    }
    std::cout << line << "\n";
  }
}

int run_compare(const CompareOptions& p) {
  const std::vector<std::string>& files = p.files;
  if (files.size() != 2) throw UsageError("compare expects two files, A.json B.json, got " + std::to_string(files.size()));
  const std::string& format = p.format;
  if (format != "json" && format != "text") throw UsageError("--format expects json or text, got " + quote_arg(format));
  Trace traces[2];
  for (int k = 0; k < 2; ++k) {
    try {
      traces[k] = compute(load_scenario(files[k]));
    } catch (const ScenarioError& e) {
      return report_invalid(files[k], e);
    }
  }
  std::vector<StageDiff> diffs;
  try {
    diffs = diff_traces(traces[0], traces[1]);
  } catch (const ScenarioError& e) {  // "heads[0].Q: 3x4 in A, 3x2 in B"
    std::cerr << "attnlab-cli: compare: " << e.what() << " (A = " << files[0] << ", B = " << files[1] << ")\n";
    return 1;
  }
  if (format == "text") print_text(diffs);
  else print_json(diffs);
  return 0;
}

}  // namespace

Run add_compare(CLI::App& program) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* c = program.add_subcommand("compare", "per stage and head, the largest |A - B| between two scenarios' traces and its cell");
  c->add_option("FILES", o->files, "the two scenarios, A.json and B.json")->type_name("A.json B.json");
  c->add_option("--format", o->format, "json: {\"stages\": [...]}; text: an aligned table")->type_name("json|text");
  return [o] { return run_compare(*o); };
}

}  // namespace attnlab::cli
