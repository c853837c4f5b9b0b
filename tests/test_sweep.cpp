// attnlab/sweep.h: PARAM=FROM:TO:FRAMES parsed, refused with the part named, frames' values and
// scenarios; a sweep played over time (once, loop, bounce), its default ranges.
#include <algorithm>
#include <cmath>
#include <utility>

#include <gtest/gtest.h>

#include "attnlab/scenario_io.h"
#include "attnlab/sweep.h"
#include "test_support.h"

namespace test_sweep {

namespace {

using namespace attnlab;

TEST(Sweep, ParsesTheCellSyntaxAndBothEnds) {
  const Sweep s = parse_sweep("heads[1].W_k[0][2]=-1.5:2e-1:21");
  EXPECT_EQ(s.param, parse_cell_ref("heads[1].W_k[0][2]"));
  EXPECT_EQ(s.from, -1.5);
  EXPECT_EQ(s.to, 0.2);
  EXPECT_EQ(s.frames, 21);
  EXPECT_EQ(parse_sweep("scale=0.1:2:2").frames, kMinSweepFrames);
  EXPECT_EQ(parse_sweep("rope.base=10:10000:1000").frames, kMaxSweepFrames);
}

TEST(Sweep, FramesRunFromFromToToExactly) {
  const Sweep s = parse_sweep("scale=0.1:0.7:7");
  EXPECT_EQ(s.value(0), 0.1);
  EXPECT_EQ(s.value(6), 0.7);  // exactly TO, not 0.1 + 0.6 rounded
  for (int k = 0; k < 7; ++k) {
    const double err = std::fabs(s.value(k) - (0.1 + 0.1 * k));
    EXPECT_LT(err, 1e-15) << "frame " << k << ": |error| = " << err;
  }
}

// Found by fuzz_cell_ref: (TO - FROM) k overflowed to -inf for FROM = 9.1e307, TO = 1.
TEST(Sweep, FramesStayWithinHugeEndsAndMonotone) {
  for (const char* text :
       {"X[0][0]=.91e308:1:7", "X[0][0]=-1.7e308:1.7e308:1000", "X[0][0]=1.7e308:-1e308:3"}) {
    const Sweep s = parse_sweep(text);
    const double lo = std::min(s.from, s.to), hi = std::max(s.from, s.to);
    EXPECT_EQ(s.value(0), s.from) << text;
    EXPECT_EQ(s.value(s.frames - 1), s.to) << text;
    for (int k = 1; k < s.frames; ++k) {
      const double v = s.value(k);
      ASSERT_TRUE(v >= lo && v <= hi) << text << ": frame " << k << " = " << v;
      ASSERT_TRUE(s.from <= s.to ? v >= s.value(k - 1) : v <= s.value(k - 1))
          << text << ": frame " << k;
    }
  }
}

TEST(Sweep, RefusesEveryMalformedPartNamingIt) {
  const std::pair<const char*, const char*> bad[] = {
      {"scale", "PARAM=FROM:TO:FRAMES"},      {"scale=0.1:2", "PARAM=FROM:TO:FRAMES"},
      {"scale=0.1:2:5:6", "PARAM=FROM:TO:FRAMES"}, {"scale=:2:5", "FROM is missing"},
      {"scale=0.1::5", "TO is missing"},        {"scale=nan:2:5", "FROM expected a finite number"},
      {"scale=0.1:inf:5", "TO expected a finite number"}, {"scale=0.1:1e999:5", "TO expected a finite number"},
      {"scale=x:2:5", "FROM expected a number"}, {"scale=0.1:2:0", "FRAMES"},
      {"scale=0.1:2:1", "FRAMES"},              {"scale=0.1:2:1001", "FRAMES"},
      {"scale=0.1:2:2.5", "FRAMES"},            {"scale=0.1:2:", "FRAMES"},
      {"scale=0.1:2:-3", "FRAMES"},             {"W_q[0=0:1:5", "cell"},
  };
  for (const auto& [text, expected] : bad) {
    try {
      parse_sweep(text);
      ADD_FAILURE() << text << " was accepted";
    } catch (const ScenarioError& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << text << ": " << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  }
}

TEST(Sweep, CheckRefusesANumberTheScenarioLacksOrAnEndItRefuses) {
  const Scenario s = load_scenario(attnlab::testing::preset_path("vaswani-q2-is-attends"));
  EXPECT_NO_THROW(check_sweep(s, parse_sweep("scale=0.1:2:5")));
  EXPECT_THROW(check_sweep(s, parse_sweep("X[99][0]=0:1:5")), ScenarioError);
  EXPECT_THROW(check_sweep(s, parse_sweep("nosuch=0:1:5")), ScenarioError);
  EXPECT_THROW(check_sweep(s, parse_sweep("rope.base=10:100:5")), ScenarioError);  // no RoPE here
  const Scenario rope = load_scenario(attnlab::testing::preset_path("modern-rope-relative-positions"));
  EXPECT_NO_THROW(check_sweep(rope, parse_sweep("rope.base=10:10000:5")));
  EXPECT_THROW(check_sweep(rope, parse_sweep("rope.base=10:-1:5")), ScenarioError);  // the TO end
  EXPECT_THROW(check_sweep(rope, parse_sweep("rope.base=0:100:5")), ScenarioError);  // the FROM end
}

TEST(Sweep, FrameScenarioHoldsTheFramesValueAndNothingElseChanges) {
  const Scenario s = attnlab::testing::random_scenario(4, 6, 2, 7);
  const Sweep sweep = parse_sweep("X[1][2]=-1:1:5");
  const Scenario f = sweep_scenario(s, sweep, 3);
  EXPECT_EQ(f.X(1, 2), 0.5);
  Matrix diff = f.X - s.X;
  diff(1, 2) = 0;
  EXPECT_EQ(diff.cwiseAbs().maxCoeff(), 0.0);
  EXPECT_EQ(scenario_value(f, sweep.param), 0.5);
}

TEST(Sweep, ValueTextTellsNeighbouringFramesApart) {
  const Sweep sweep = parse_sweep("scale=0.1:2:20");  // step 0.1
  EXPECT_EQ(sweep_value_text(sweep, 0), "0.1");
  EXPECT_EQ(sweep_value_text(sweep, 7), "0.8");
  EXPECT_EQ(sweep_value_text(sweep, 19), "2");
  const Sweep fine = parse_sweep("W_q[0][0]=-1:0:1000");  // step ~0.001
  EXPECT_EQ(sweep_value_text(fine, 0), "\xE2\x88\x92" "1");
  for (int k = 1; k < 1000; ++k) EXPECT_NE(sweep_value_text(fine, k), sweep_value_text(fine, k - 1)) << k;
}

// ---- A sweep played over time ---------------------------------------------------------------------

TEST(SweepOverTime, OnceLoopAndBounce) {
  const auto at = [](SweepRepeat repeat, double t) { return sweep_value_at(1, 3, 2.0, repeat, t); };
  EXPECT_EQ(at(SweepRepeat::once, 0), 1);
  EXPECT_EQ(at(SweepRepeat::once, 1), 2);
  EXPECT_EQ(at(SweepRepeat::once, 5), 3) << "once: stays at the end";
  EXPECT_EQ(at(SweepRepeat::loop, 3), 2) << "loop: starts again";
  EXPECT_EQ(at(SweepRepeat::bounce, 3), 2) << "bounce: on the way back";
  EXPECT_EQ(at(SweepRepeat::bounce, 4), 1);
  EXPECT_EQ(at(SweepRepeat::bounce, 5), 2);
  EXPECT_EQ(at(SweepRepeat::once, -1), 1) << "before the start: FROM";
}

// As Sweep::value: (TO - FROM) overflows for ends near +-DBL_MAX; the value stays within them.
TEST(SweepOverTime, StaysWithinHugeEnds) {
  for (auto [from, to] : {std::pair{-1.7e308, 1.7e308}, std::pair{1.7e308, -1e308}}) {
    for (double t = 0; t <= 4.0; t += 0.25) {
      const double v = sweep_value_at(from, to, 4.0, SweepRepeat::once, t);
      EXPECT_TRUE(std::isfinite(v)) << "t = " << t;
      EXPECT_GE(v, std::min(from, to));
      EXPECT_LE(v, std::max(from, to));
    }
    EXPECT_EQ(sweep_value_at(from, to, 4.0, SweepRepeat::once, 4.0), to);
  }
  EXPECT_EQ(sweep_value_at(0, 1, 0.0, SweepRepeat::once, 1.0), 1) << "a zero duration ends at once";
}

TEST(SweepOverTime, DefaultRangesAroundTheValueKeepPositiveParametersPositive) {
  const Scenario s = load_scenario(attnlab::testing::preset_path("vaswani-q2-is-attends"));
  const double scale = scenario_value(s, parse_cell_ref("scale"));
  const SweepRange r = default_sweep_range(s, parse_cell_ref("scale"));
  EXPECT_DOUBLE_EQ(r.from, scale / 4);
  EXPECT_DOUBLE_EQ(r.to, scale * 4);
  const SweepRange cell = default_sweep_range(s, parse_cell_ref("X[0][1]"));
  EXPECT_EQ(cell.from, s.X(0, 1) - 1);
  EXPECT_EQ(cell.to, s.X(0, 1) + 1);
  EXPECT_THROW(default_sweep_range(s, parse_cell_ref("rope.base")), ScenarioError);
  Scenario rope = load_scenario(attnlab::testing::preset_path("modern-rope-relative-positions"));
  rope.rope->base = 4.0;  // a quarter would be 1, which RoPE refuses: the range starts at 2
  EXPECT_EQ(default_sweep_range(rope, parse_cell_ref("rope.base")).from, 2.0);
  const Scenario alibi = load_scenario(attnlab::testing::preset_path("modern-alibi-slopes"));
  const SweepRange slope = default_sweep_range(alibi, parse_cell_ref("alibi[0]"));
  EXPECT_GT(slope.from, 0);
  // Every default range is one check_sweep accepts.
  using Case = std::pair<const Scenario*, const char*>;
  for (const auto& [scenario, param] : {Case{&s, "scale"}, Case{&s, "X[0][1]"}, Case{&rope, "rope.base"}, Case{&alibi, "alibi[1]"}}) {
    const SweepRange range = default_sweep_range(*scenario, parse_cell_ref(param));
    Sweep sweep;
    sweep.param = parse_cell_ref(param);
    sweep.from = range.from;
    sweep.to = range.to;
    EXPECT_NO_THROW(check_sweep(*scenario, sweep)) << param;
  }
}

TEST(SweepOverTime, OnlyTheScaleIsDrawnAgainstTheTemperatureAndPositivesAreNamed) {
  EXPECT_TRUE(sweep_against_temperature(parse_cell_ref("scale")));
  EXPECT_FALSE(sweep_against_temperature(parse_cell_ref("X[0][0]")));
  for (const char* p : {"scale", "rope.base", "alibi[0]"}) EXPECT_TRUE(sweep_stays_positive(parse_cell_ref(p))) << p;
  for (const char* p : {"X[0][0]", "b_v[1]", "heads[0].W_k[0][0]"}) EXPECT_FALSE(sweep_stays_positive(parse_cell_ref(p))) << p;
}

}  // namespace

}  // namespace test_sweep
