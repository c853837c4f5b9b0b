// The sweep player (session/sweep.h): each tick a new version, one undo step for a whole sweep,
// pause and resume, stopping when the user edits, refusing a parameter or an end the scenario has
// not (check_sweep's refusals). The value at each time is core's (tests/test_sweep.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "attnlab/cell_ref.h"
#include "attnlab/head_stats.h"
#include "attnlab/model.h"
#include "session/document.h"
#include "session/presets.h"
#include "session/sweep.h"

namespace attnlab::app::testing {
namespace test_sweep_player {
namespace {

SweepSpec Spec(const std::string& param, double from, double to, attnlab::SweepRepeat repeat) {
  SweepSpec spec;
  spec.param = attnlab::parse_cell_ref(param);
  spec.from = from;
  spec.to = to;
  spec.seconds = 2.0;
  spec.repeat = repeat;
  return spec;
}

class Sweeping : public ::testing::Test {
 protected:
  void SetUp() override { doc_.Open(BuiltInExample({})); }
  Document doc_;
  SweepPlayer player_;
};

TEST_F(Sweeping, EachTickIsANewVersionAndTheWholeSweepOneUndoStep) {
  const double before = attnlab::scenario_value(doc_.GetScenario(), attnlab::parse_cell_ref("X[0][1]"));
  ASSERT_EQ(player_.Start(doc_, Spec("X[0][1]", -1, 1, attnlab::SweepRepeat::once), 10.0), "");
  EXPECT_EQ(doc_.GetScenario().X(0, 1), -1.0);
  std::uint64_t version = doc_.Version();
  for (double t : {10.5, 11.0, 11.5}) {
    player_.Tick(doc_, t);
    EXPECT_GT(doc_.Version(), version) << "t = " << t;
    version = doc_.Version();
    EXPECT_DOUBLE_EQ(doc_.GetScenario().X(0, 1), -1.0 + (t - 10.0)) << "t = " << t;
    const attnlab::Trace& trace = doc_.GetTrace();
    EXPECT_EQ(doc_.TraceVersion(), doc_.Version()) << "every frame its own trace";
    player_.Record(doc_, trace);
  }
  player_.Pause(12.0);
  player_.Tick(doc_, 20.0);
  EXPECT_DOUBLE_EQ(doc_.GetScenario().X(0, 1), 0.5) << "pause leaves the value where it is";
  doc_.Undo();
  EXPECT_EQ(doc_.GetScenario().X(0, 1), before) << "one undo step for the whole sweep";
  EXPECT_FALSE(doc_.CanUndo());
  EXPECT_FALSE(doc_.IsDirty()) << "undone back to the file as opened";
  player_.Tick(doc_, 21.0);
  EXPECT_FALSE(player_.Started()) << "no \"Resume\" of a sweep that was undone";
  EXPECT_TRUE(player_.Samples().empty());
}

// Paused, then another file opened: the sweep of the old one is forgotten, not resumable.
TEST_F(Sweeping, APausedSweepIsForgottenWhenAnotherFileOpens) {
  ASSERT_EQ(player_.Start(doc_, Spec("scale", 0.5, 1.5, attnlab::SweepRepeat::loop), 0.0), "");
  player_.Tick(doc_, 0.5);
  player_.Pause(0.5);
  ASSERT_TRUE(player_.Started());
  doc_.Open(BuiltInExample({}));
  player_.Tick(doc_, 1.0);
  EXPECT_FALSE(player_.Started());
  EXPECT_FALSE(doc_.IsDirty());
}

TEST_F(Sweeping, ResumesWhereItPausedAndStopsWhenTheUserEdits) {
  ASSERT_EQ(player_.Start(doc_, Spec("scale", 0.5, 1.5, attnlab::SweepRepeat::loop), 0.0), "");
  player_.Tick(doc_, 0.5);
  player_.Pause(0.5);
  player_.Resume(100.0);
  player_.Tick(doc_, 100.5);
  EXPECT_DOUBLE_EQ(attnlab::scenario_value(doc_.GetScenario(), attnlab::parse_cell_ref("scale")), 1.0)
      << "one second played in all";
  ASSERT_TRUE(doc_.ApplyEdit("X", [](attnlab::Scenario& s) { s.X(0, 0) = 7; }));
  player_.Tick(doc_, 101.0);
  EXPECT_FALSE(player_.Playing());
  EXPECT_EQ(doc_.GetScenario().X(0, 0), 7.0);
  EXPECT_DOUBLE_EQ(attnlab::scenario_value(doc_.GetScenario(), attnlab::parse_cell_ref("scale")), 1.0)
      << "the sweep never overwrites an edit";
}

TEST_F(Sweeping, RefusesWhatTheScenarioHasNotWithoutChangingIt) {
  const std::uint64_t version = doc_.Version();
  EXPECT_EQ(player_.Start(doc_, Spec("X[99][0]", 0, 1, attnlab::SweepRepeat::once), 0.0).rfind("X[99][0]: no such cell", 0), 0u);
  EXPECT_EQ(player_.Start(doc_, Spec("scale", 0, 1, attnlab::SweepRepeat::once), 0.0).rfind("scale: expected a positive", 0), 0u);
  EXPECT_EQ(player_.Start(doc_, Spec("rope.base", 2, 10, attnlab::SweepRepeat::once), 0.0), "rope.base: the scenario has no RoPE");
  EXPECT_EQ(doc_.Version(), version);
  EXPECT_FALSE(player_.Playing());
}

TEST_F(Sweeping, ASweepOfTheScaleRecordsEachHeadsMeanEntropy) {
  ASSERT_EQ(player_.Start(doc_, Spec("scale", 0.1, 2.0, attnlab::SweepRepeat::once), 0.0), "");
  for (double t = 0.0; t <= 2.0; t += 0.5) {
    player_.Tick(doc_, t);
    player_.Record(doc_, doc_.GetTrace());
  }
  const auto& samples = player_.Samples();
  ASSERT_EQ(samples.size(), 5u);
  for (std::size_t k = 1; k < samples.size(); ++k) EXPECT_LT(samples[k - 1].value, samples[k].value);
  const attnlab::Trace& trace = doc_.GetTrace();
  const attnlab::HeadStats stats = attnlab::head_stats(trace, 0);
  double mean = 0;
  for (double e : stats.entropy) mean += e / double(stats.entropy.size());
  EXPECT_NEAR(samples.back().mean_entropy[0], mean, 1e-12) << "the last sample is the trace shown";
  EXPECT_GT(samples.front().mean_entropy[0], samples.back().mean_entropy[0])
      << "a smaller scale (a higher temperature) spreads the weights";
}

}  // namespace
}  // namespace test_sweep_player
}  // namespace attnlab::app::testing
