// Sweeps (sweep.h): parsing PARAM=FROM:TO:FRAMES and the frames' scenarios.
#include "attnlab/sweep.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "attnlab/number_format.h"
#include "attnlab/message_text.h"

namespace attnlab {
namespace {

const char* const kShape = ": expected PARAM=FROM:TO:FRAMES, e.g. scale=0.1:2:40";

double parse_end(const std::string& text, const std::string& what, const std::string& sweep) {
  if (text.empty()) throw ScenarioError(quoted_excerpt(sweep) + ": " + what + " is missing" + kShape);
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  if (end == begin || *end != '\0')
    throw ScenarioError(quoted_excerpt(sweep) + ": " + what + " expected a number, got " + quoted_excerpt(text));
  if (!std::isfinite(v) || errno == ERANGE)
    throw ScenarioError(quoted_excerpt(sweep) + ": " + what + " expected a finite number, got " + quoted_excerpt(text));
  return v;
}

int parse_frames(const std::string& text, const std::string& sweep) {
  const std::string expected = quoted_excerpt(sweep) + ": FRAMES expected a whole number from " +
                               std::to_string(kMinSweepFrames) + " to " + std::to_string(kMaxSweepFrames) +
                               ", got " + quoted_excerpt(text);
  if (text.empty() || text.size() > 6 || text.find_first_not_of("0123456789") != std::string::npos)
    throw ScenarioError(expected);
  const int frames = std::stoi(text);
  if (frames < kMinSweepFrames || frames > kMaxSweepFrames) throw ScenarioError(expected);
  return frames;
}

}  // namespace

double Sweep::value(int k) const {
  if (k <= 0) return from;
  if (k >= frames - 1) return to;  // exact, not from + (to - from) * 1 rounded
  // Ends near +-DBL_MAX overflow (to - from) k; the convex form cannot, and one formula per sweep
  // keeps the frames monotone. The clamp absorbs a last rounding past an end.
  const double v = std::isfinite((to - from) * (frames - 1))
                       ? from + (to - from) * k / (frames - 1)
                       : from * (1 - double(k) / (frames - 1)) + to * (double(k) / (frames - 1));
  return std::clamp(v, std::min(from, to), std::max(from, to));
}

double sweep_value_at(double from, double to, double seconds, SweepRepeat repeat, double t) {
  double u = std::max(0.0, t) / std::max(seconds, 1e-3);  // sweeps done, fractional
  switch (repeat) {
    case SweepRepeat::once: u = std::min(u, 1.0); break;
    case SweepRepeat::loop: u = u - std::floor(u); break;
    case SweepRepeat::bounce: {
      const double phase = std::fmod(u, 2.0);
      u = phase <= 1.0 ? phase : 2.0 - phase;
      break;
    }
  }
  // The overflow guard of Sweep::value: the convex form where to - from is not finite.
  const double v = std::isfinite(to - from) ? from + (to - from) * u : from * (1 - u) + to * u;
  return std::clamp(v, std::min(from, to), std::max(from, to));
}

bool sweep_stays_positive(const CellRef& param) {
  return param.name == "scale" || param.name == "rope.base" || param.name == "alibi";
}

bool sweep_against_temperature(const CellRef& param) { return param.name == "scale"; }

SweepRange default_sweep_range(const Scenario& scenario, const CellRef& param) {
  const double v = scenario_value(scenario, param);
  if (!sweep_stays_positive(param)) return {v - 1.0, v + 1.0};
  SweepRange range{v / 4.0, v * 4.0};
  if (param.name == "rope.base") range.from = std::max(range.from, 2.0);  // a base must stay above 1
  return range;
}

Sweep parse_sweep(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos) throw ScenarioError(quoted_excerpt(text) + kShape);
  const std::string ends = text.substr(eq + 1);
  const auto c1 = ends.find(':');
  const auto c2 = c1 == std::string::npos ? std::string::npos : ends.find(':', c1 + 1);
  if (c2 == std::string::npos || ends.find(':', c2 + 1) != std::string::npos)
    throw ScenarioError(quoted_excerpt(text) + kShape);
  Sweep s;
  s.param = parse_cell_ref(text.substr(0, eq));
  s.from = parse_end(ends.substr(0, c1), "FROM", text);
  s.to = parse_end(ends.substr(c1 + 1, c2 - c1 - 1), "TO", text);
  s.frames = parse_frames(ends.substr(c2 + 1), text);
  return s;
}

void check_sweep(const Scenario& scenario, const Sweep& sweep) {
  scenario_value(scenario, sweep.param);
  for (double v : {sweep.from, sweep.to}) {
    Scenario copy = scenario;
    set_scenario_value(copy, sweep.param, v);
  }
}

Scenario sweep_scenario(const Scenario& scenario, const Sweep& sweep, int k) {
  Scenario s = scenario;
  set_scenario_value(s, sweep.param, sweep.value(k));
  return s;
}

std::string sweep_value_text(const Sweep& sweep, int k) {
  // Enough decimals for one step, plus one: 40 frames over [0.1, 2] step by 0.049 -> 3 decimals.
  const double step = std::fabs(sweep.to - sweep.from) / (sweep.frames - 1);
  const int decimals = step > 0 ? std::clamp(static_cast<int>(std::ceil(-std::log10(step))) + 1, 2, 6) : 2;
  std::string s = format_trimmed(sweep.value(k), decimals);
  if (!s.empty() && s[0] == '-') s = "\xE2\x88\x92" + s.substr(1);  // U+2212, as the figures write it
  return s;
}

}  // namespace attnlab
