#pragma once
/// A parameter sweep: one number of a scenario (named in the one cell syntax, cell_ref.h) moved
/// linearly from FROM to TO over FRAMES frames, each frame a scenario of its own to compute. Read
/// from `PARAM=FROM:TO:FRAMES`, e.g. `scale=0.1:2:40` or `heads[1].W_k[0][0]=-1:1:21`.
#include <string>

#include "attnlab/cell_ref.h"
#include "attnlab/scenario.h"

namespace attnlab {

constexpr int kMinSweepFrames = 2;
constexpr int kMaxSweepFrames = 1000;  ///< a 10 fps GIF of 100 s; more is a film, not a figure

struct Sweep {
  CellRef param;
  double from = 0, to = 1;
  int frames = kMinSweepFrames;  ///< kMinSweepFrames to kMaxSweepFrames

  /// Frame k's value, FROM + (TO - FROM) k / (FRAMES - 1): exactly FROM at 0 and TO at FRAMES - 1,
  /// monotone in k and within the ends for any finite ends (even where TO - FROM overflows).
  double value(int k) const;
};

/// Parses `PARAM=FROM:TO:FRAMES`. Throws ScenarioError for another shape, a FROM or TO that is
/// missing or not a finite number, FRAMES that is not a whole number from 2 to 1000, or a PARAM
/// that is not a cell reference. Whether the scenario has the number is check_sweep's question.
Sweep parse_sweep(const std::string& text);

/// Throws ScenarioError (scenario_value's or set_scenario_value's message) when `scenario` has no
/// such number or refuses either end; the values between the ends lie within them.
void check_sweep(const Scenario& scenario, const Sweep& sweep);

/// `scenario` with the swept number set to frame k's value.
Scenario sweep_scenario(const Scenario& scenario, const Sweep& sweep, int k);

/// Frame k's value as a figure title shows it: trimmed to enough decimals (2 to 6) that
/// neighbouring frames read differently, with a real minus sign: "0.354", "−1.25".
std::string sweep_value_text(const Sweep& sweep, int k);

}  // namespace attnlab
