// attnlab/sweep.h: PARAM=FROM:TO:FRAMES parsed, refused with the part named, frames' values and
// scenarios.
#include <algorithm>
#include <cmath>

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

}  // namespace

}  // namespace test_sweep
