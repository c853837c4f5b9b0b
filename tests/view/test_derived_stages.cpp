// view/derived_stages.h: the scaled stage is scale * scores, the masked one is it with -inf
// exactly where the model's mask forbids the (query, key) pair, in either layout; a stage is
// recomputed only for another trace version or head, and waits when the frame's budget is spent.
#include <gtest/gtest.h>

#include <cmath>

#include "view/derived_stages.h"
#include "view_cases.h"

namespace test_derived_stages {

namespace {

using attnlab::Matrix;
using attnlab::app::DerivedStages;
using attnlab::app::FrameWork;

TEST(DerivedStages, ScaledIsScaleTimesScoresAndMaskedIsMinusInfinityExactlyWhereForbidden) {
  int forbidden = 0;
  for (const auto& c : attnlab::view_testing::all_cases()) {
    const attnlab::Model model = attnlab::resolve(c.scenario);
    const attnlab::Trace t = attnlab::compute(c.scenario);
    const bool cols = c.scenario.layout == attnlab::Layout::columns;
    DerivedStages d;
    for (int h = 0; h < model.num_heads; ++h) {
      FrameWork work;
      d.Update(t, 1, h, work);
      ASSERT_TRUE(d.ScaledCurrent() && d.MaskedCurrent()) << c.name;
      const Matrix& scores = t.heads[std::size_t(h)].scores;
      ASSERT_EQ(d.Scaled().rows(), scores.rows());
      ASSERT_EQ(d.Masked().cols(), scores.cols());
      for (Eigen::Index r = 0; r < scores.rows(); ++r)
        for (Eigen::Index k = 0; k < scores.cols(); ++k) {
          EXPECT_EQ(d.Scaled()(r, k), model.scale * scores(r, k)) << c.name;
          // The model's mask is n_x by n_z (rows convention); the columns layout shows its transpose.
          const bool allowed = cols ? model.allowed(k, r) : model.allowed(r, k);
          if (allowed && t.has_softcap()) {  // S'' = c tanh(scale S / c) + B (softcapped_logit)
            EXPECT_EQ(d.Capped()(r, k), attnlab::capped_logit(scores(r, k), model.scale, t.softcap)) << c.name;
            EXPECT_EQ(d.Masked()(r, k), attnlab::softcapped_logit(scores(r, k), model.scale, t.softcap,
                                                                 t.bias_at(std::size_t(h), r, k)))
                << c.name << " [" << r << ", " << k << "]";
          } else if (allowed && t.has_bias()) {  // S'' = scale S + B, one rounding (biased_logit)
            EXPECT_EQ(d.Masked()(r, k), attnlab::biased_logit(scores(r, k), model.scale, t.bias_at(std::size_t(h), r, k)))
                << c.name << " [" << r << ", " << k << "]";
          } else if (allowed) {
            EXPECT_EQ(d.Masked()(r, k), d.Scaled()(r, k)) << c.name << " [" << r << ", " << k << "]";
          } else {
            EXPECT_EQ(d.Masked()(r, k), -INFINITY) << c.name << " [" << r << ", " << k << "]";
            ++forbidden;
          }
        }
    }
  }
  EXPECT_GT(forbidden, 10) << "the cases must mask some cells for this to test anything";
}

TEST(DerivedStages, RecomputesOnlyForANewVersionOrHead) {
  const attnlab::Scenario s = attnlab::view_testing::made_cases().front().scenario;  // three heads
  const attnlab::Trace t = attnlab::compute(s);
  DerivedStages d;
  FrameWork work;
  d.Update(t, 5, 0, work);
  const std::uint64_t first = d.ScaledVersion();
  d.Update(t, 5, 0, work);
  EXPECT_EQ(d.ScaledVersion(), first) << "same trace version and head: kept";
  d.Update(t, 5, 2, work);
  EXPECT_NE(d.ScaledVersion(), first) << "another head";
  EXPECT_EQ(d.Scaled(), Matrix(t.scaled(2)));
  const std::uint64_t second = d.MaskedVersion();
  d.Update(t, 6, 2, work);
  EXPECT_NE(d.MaskedVersion(), second) << "another trace version";
}

TEST(DerivedStages, ALargeStageWaitsForTheNextFrameWhenTheBudgetIsSpent) {
  attnlab::Scenario s = attnlab::testing::random_scenario(300, 2, 1, 4);  // 90000 cells > kAlwaysCells
  const attnlab::Trace t = attnlab::compute(s);
  DerivedStages d;
  FrameWork work;
  work.BeginFrame();
  ASSERT_TRUE(work.Take(FrameWork::kCellsPerFrame));  // another job took the whole frame
  d.Update(t, 1, 0, work);
  EXPECT_FALSE(d.ScaledCurrent());
  EXPECT_TRUE(work.Deferred());
  work.BeginFrame();
  d.Update(t, 1, 0, work);
  EXPECT_TRUE(d.ScaledCurrent() && d.MaskedCurrent());
  EXPECT_EQ(d.Masked(), Matrix(t.masked(0)));
}

}  // namespace

}  // namespace test_derived_stages
