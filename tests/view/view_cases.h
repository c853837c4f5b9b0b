#pragma once
/// The scenarios the view tests run on: every preset in assets/presets in its own layout and in
/// the other one, and a few made here for what the presets lack (causal and padding masks, three
/// heads, a fully masked query, projections wide enough that the inspector elides terms).
#include <filesystem>
#include <string>
#include <vector>

#include "attnlab/attention.h"
#include "attnlab/model.h"
#include "attnlab/scenario.h"
#include "attnlab/scenario_io.h"
#include "test_support.h"

namespace attnlab::view_testing {

struct Case {
  std::string name;
  Scenario scenario;
};

inline Layout other(Layout l) { return l == Layout::rows ? Layout::columns : Layout::rows; }

inline std::vector<Case> made_cases() {
  std::vector<Case> out;
  Scenario causal = testing::random_scenario(5, 6, 3, 21);  // three heads of d_k = 2
  causal.mask.causal = true;
  causal.mask.padding = {1};
  causal.tokens = {"the", "cat", "sat", "on", "mats"};
  out.push_back({"causal-padding-3-heads", causal});
  Scenario cross = testing::random_scenario(3, 4, 2, 22);
  cross.Z = testing::random_scenario(4, 4, 1, 23).X;
  Matrix cells = Matrix::Ones(3, 4);
  cells.row(1).setZero();  // query 1 may attend nothing: all its weights are 0
  cells(2, 0) = 0;
  cross.mask.cells = cells;
  cross.scale.kind = Scale::Kind::value;
  cross.scale.value = 0.75;
  out.push_back({"cross-custom-mask", cross});
  out.push_back({"wide-d-24", testing::random_scenario(4, 24, 2, 24)});  // d_k = 12 terms a score
  return out;
}

/// Every case in both layouts.
inline std::vector<Case> all_cases() {
  std::vector<Case> base;
  const std::filesystem::path dir = std::filesystem::path(ATTNLAB_SOURCE_DIR) / "assets" / "presets";
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".json")
      base.push_back({entry.path().stem().string(), load_scenario(entry.path().string())});
  for (Case& c : made_cases()) base.push_back(std::move(c));
  std::vector<Case> out;
  for (const Case& c : base) {
    out.push_back(c);
    out.push_back({c.name + " (other layout)", with_layout(c.scenario, other(c.scenario.layout))});
  }
  return out;
}

}  // namespace attnlab::view_testing
