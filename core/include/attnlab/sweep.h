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

// ---- A sweep played over time (the window's Sweep panel) -----------------------------------------

/// What a sweep does at its end: stop there, start again at FROM, or go back and turn again.
enum class SweepRepeat { once, loop, bounce };

/// The value `t` seconds into a sweep from `from` to `to` taking `seconds` (at least 1 ms): once
/// stops at `to`; loop starts again at `from`; bounce goes back to `from` and turns again. Within
/// the ends for any finite ends, even where to - from overflows (as Sweep::value).
double sweep_value_at(double from, double to, double seconds, SweepRepeat repeat, double t);

/// Parameters that must stay positive (the scale, RoPE's base, ALiBi's slopes): their ranges are
/// multiplicative.
bool sweep_stays_positive(const CellRef& param);
/// Parameters drawn against their reciprocal: the scale against the temperature T = 1/scale (the
/// 1/sqrt(d_k) lesson: small T sharpens the weights, large T flattens them).
bool sweep_against_temperature(const CellRef& param);

struct SweepRange {
  double from = 0, to = 1;
};
/// A range around the parameter's value v in `scenario` that shows something: a positive one from
/// v/4 to 4v (RoPE's base from at least 2), a cell from v - 1 to v + 1. Throws as scenario_value.
SweepRange default_sweep_range(const Scenario& scenario, const CellRef& param);

/// Frame k's value as a figure title shows it: trimmed to enough decimals (2 to 6) that
/// neighbouring frames read differently, with a real minus sign: "0.354", "−1.25".
std::string sweep_value_text(const Sweep& sweep, int k);

}  // namespace attnlab
