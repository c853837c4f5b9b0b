// compute_into() after an edit keeps the stages the edit leaves unchanged (Recompute::changed):
// for each kind of edit, the kept-and-recomputed trace must equal, to the last bit, a trace
// computed from nothing, and only the parts downstream of the edit may have been recomputed.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "attnlab/attention.h"
#include "attnlab/random.h"
#include "test_support.h"

namespace test_recompute {

namespace {

using attnlab::Layout;
using attnlab::Matrix;
using attnlab::Scenario;
using attnlab::Trace;

/// 7 tokens, 3 heads of d_k = d_v = 2, biases on Q, K and the output, causal.
Scenario base_scenario() {
  Scenario s = attnlab::testing::random_scenario(7, 6, 3, 17);
  attnlab::RandomSpec spec;
  spec.seed = 17;
  s.full.b_k = attnlab::random_matrix(6, 1, spec, 6).col(0);
  s.b_o = attnlab::random_matrix(6, 1, spec, 7).col(0);
  s.mask.causal = true;
  return s;
}

void expect_same_trace(const Trace& got, const Trace& want) {
  ASSERT_EQ(got.heads.size(), want.heads.size());
  for (std::size_t h = 0; h < want.heads.size(); ++h) {
    const attnlab::HeadTrace &a = got.heads[h], &b = want.heads[h];
    EXPECT_EQ(a.Q, b.Q) << "head " << h;
    EXPECT_EQ(a.K, b.K) << "head " << h;
    EXPECT_EQ(a.V, b.V) << "head " << h;
    EXPECT_EQ(a.scores, b.scores) << "head " << h;
    EXPECT_EQ(a.weights, b.weights) << "head " << h;
    EXPECT_EQ(a.output, b.output) << "head " << h;
  }
  EXPECT_EQ(got.concat, want.concat);
  EXPECT_EQ(got.output, want.output);
  EXPECT_EQ(got.scale, want.scale);
  EXPECT_TRUE((got.allowed == want.allowed).all());
  EXPECT_EQ(got.warnings, want.warnings);
}

struct Edit {
  std::string name;
  std::function<void(Scenario&)> apply;
  bool projections, attention, output;  ///< what must be recomputed
};

void PrintTo(const Edit& e, std::ostream* os) { *os << e.name; }

class AfterAnEdit : public ::testing::TestWithParam<Edit> {};

TEST_P(AfterAnEdit, KeptStagesEqualAFreshTraceAndOnlyDownstreamIsRecomputed) {
  const Edit& edit = GetParam();
  const Scenario before = base_scenario();
  Trace kept;
  ASSERT_TRUE(attnlab::compute_into(attnlab::resolve(before), Layout::rows, kept));
  Scenario after = before;  // a new version, as the window's edits make: equal values, new matrices
  edit.apply(after);
  ASSERT_TRUE(attnlab::compute_into(attnlab::resolve(after), Layout::rows, kept));
  expect_same_trace(kept, attnlab::compute(after));
  EXPECT_EQ(kept.recomputed.projections, edit.projections);
  EXPECT_EQ(kept.recomputed.attention, edit.attention);
  EXPECT_EQ(kept.recomputed.output, edit.output);
}

INSTANTIATE_TEST_SUITE_P(
    Recompute, AfterAnEdit,
    ::testing::Values(
        Edit{"nothing", [](Scenario&) {}, false, false, false},
        Edit{"X", [](Scenario& s) { s.X(3, 2) += 0.5; }, true, true, true},
        Edit{"W_q", [](Scenario& s) { (*s.full.W_q)(1, 4) -= 0.25; }, true, true, true},
        Edit{"W_k", [](Scenario& s) { (*s.full.W_k)(5, 0) *= 2; }, true, true, true},
        Edit{"W_v", [](Scenario& s) { (*s.full.W_v)(2, 2) += 1; }, true, true, true},
        Edit{"b_k", [](Scenario& s) { (*s.full.b_k)(4) = 0.75; }, true, true, true},
        Edit{"b_q", [](Scenario& s) { s.full.b_q = attnlab::Vector::Constant(6, 0.5); }, true, true, true},
        Edit{"scale", [](Scenario& s) { s.scale = {attnlab::Scale::Kind::value, 0.3}; }, false, true, true},
        Edit{"causal off", [](Scenario& s) { s.mask.causal = false; }, false, true, true},
        Edit{"padding", [](Scenario& s) { s.mask.padding = {1}; }, false, true, true},
        Edit{"W_o", [](Scenario& s) { (*s.W_o)(0, 3) = -2; }, false, false, true},
        Edit{"b_o removed", [](Scenario& s) { s.b_o.reset(); }, false, false, true},
        Edit{"W_o removed", [](Scenario& s) { s.W_o.reset(), s.b_o.reset(); }, false, false, true},
        Edit{"heads", [](Scenario& s) { s.num_heads = 2; }, true, true, true},
        Edit{"self to cross", [](Scenario& s) { s.Z = s.X; }, true, true, true}),
    [](const ::testing::TestParamInfo<Edit>& info) {
      std::string name = info.param.name;
      for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return name;
    });

TEST(Recompute, CrossAttentionKeepsQueriesWhenTheContextChanges) {
  Scenario before = base_scenario();
  before.mask.causal = false;
  before.Z = attnlab::random_matrix(5, 6, attnlab::RandomSpec{}, 9);
  Trace kept;
  attnlab::compute_into(attnlab::resolve(before), Layout::rows, kept);
  Scenario after = before;
  (*after.Z)(4, 1) += 1;
  attnlab::compute_into(attnlab::resolve(after), Layout::rows, kept);
  expect_same_trace(kept, attnlab::compute(after));
  EXPECT_TRUE(kept.recomputed.projections);  // K and V
}

TEST(Recompute, AllRecomputesEveryStage) {
  const Scenario s = base_scenario();
  const attnlab::Model model = attnlab::resolve(s);
  Trace t;
  attnlab::compute_into(model, Layout::rows, t);
  attnlab::compute_into(model, Layout::rows, t, nullptr, attnlab::Recompute::all);
  EXPECT_TRUE(t.recomputed.projections && t.recomputed.attention && t.recomputed.output);
  attnlab::compute_into(model, Layout::rows, t);
  EXPECT_FALSE(t.recomputed.projections || t.recomputed.attention || t.recomputed.output);
}

TEST(Recompute, ColumnsLayoutRecomputesEveryStage) {
  const Scenario s = attnlab::with_layout(base_scenario(), Layout::columns);
  const attnlab::Model model = attnlab::resolve(s);
  Trace t;
  attnlab::compute_into(model, Layout::columns, t);
  attnlab::compute_into(model, Layout::columns, t);
  EXPECT_TRUE(t.recomputed.projections && t.recomputed.attention && t.recomputed.output);
  expect_same_trace(t, attnlab::compute(s));
}

TEST(Recompute, AfterACancelledComputationEveryStageIsRecomputed) {
  const Scenario before = base_scenario();
  Trace t;
  attnlab::compute_into(attnlab::resolve(before), Layout::rows, t);
  Scenario after = before;
  after.scale = {attnlab::Scale::Kind::value, 0.3};
  const std::atomic<bool> cancel{true};
  EXPECT_FALSE(attnlab::compute_into(attnlab::resolve(after), Layout::rows, t, &cancel));
  EXPECT_EQ(t.computed_from, nullptr);  // partly computed: nothing in it may be kept
  attnlab::compute_into(attnlab::resolve(before), Layout::rows, t);
  EXPECT_TRUE(t.recomputed.projections && t.recomputed.attention && t.recomputed.output);
  expect_same_trace(t, attnlab::compute(before));
}

}  // namespace

namespace {

TEST(Recompute, LargeEnoughForEveryCoreKeepsTheSameStages) {
  const Scenario before = attnlab::testing::random_scenario(300, 64, 4, 23);
  Trace kept;
  attnlab::compute_into(attnlab::resolve(before), Layout::rows, kept);
  Scenario scaled = before;
  scaled.scale = {attnlab::Scale::Kind::value, 0.05};
  attnlab::compute_into(attnlab::resolve(scaled), Layout::rows, kept);
  EXPECT_FALSE(kept.recomputed.projections);
  expect_same_trace(kept, attnlab::compute(scaled));
  Scenario values = scaled;
  (*values.full.W_v)(10, 20) += 1;
  attnlab::compute_into(attnlab::resolve(values), Layout::rows, kept);
  expect_same_trace(kept, attnlab::compute(values));
}

}  // namespace

namespace {

TEST(Recompute, AnEditOfOneHeadsWeightsKeepsTheOtherHeadsStages) {
  const Scenario before = base_scenario();  // 3 heads, d_k = d_v = 2
  Trace kept;
  attnlab::compute_into(attnlab::resolve(before), Layout::rows, kept);
  // Marks in heads 1 and 2's stored stages: still there afterwards only if those were kept.
  kept.heads[0].weights(0, 0) = 42;
  kept.heads[1].scores(3, 1) = 43;
  Scenario after = before;
  (*after.full.W_q)(1, 4) += 0.5;  // column 4: head 3's queries
  attnlab::compute_into(attnlab::resolve(after), Layout::rows, kept);
  EXPECT_EQ(kept.heads[0].weights(0, 0), 42);
  EXPECT_EQ(kept.heads[1].scores(3, 1), 43);
  const Trace fresh = attnlab::compute(after);
  const attnlab::HeadTrace &got = kept.heads[2], &want = fresh.heads[2];
  EXPECT_EQ(got.Q, want.Q);
  EXPECT_EQ(got.scores, want.scores);
  EXPECT_EQ(got.weights, want.weights);
  EXPECT_EQ(got.output, want.output);
  EXPECT_EQ(kept.output, fresh.output);  // from the kept heads' outputs and head 3's new ones
}

TEST(Recompute, PerHeadWeightsKeepTheHeadsNotEdited) {
  Scenario before = base_scenario();
  before.heads.assign(3, attnlab::Projections{});
  for (int h = 0; h < 3; ++h) {
    before.heads[std::size_t(h)].W_q = before.full.W_q->middleCols(2 * h, 2);
    before.heads[std::size_t(h)].W_k = before.full.W_k->middleCols(2 * h, 2);
    before.heads[std::size_t(h)].W_v = before.full.W_v->middleCols(2 * h, 2);
  }
  before.full = {};
  Trace kept;
  attnlab::compute_into(attnlab::resolve(before), Layout::rows, kept);
  kept.heads[2].weights(1, 0) = 44;
  Scenario after = before;
  (*after.heads[1].W_v)(0, 1) = 3;
  attnlab::compute_into(attnlab::resolve(after), Layout::rows, kept);
  EXPECT_EQ(kept.heads[2].weights(1, 0), 44);
  const Trace fresh = attnlab::compute(after);
  EXPECT_EQ(kept.heads[1].V, fresh.heads[1].V);
  EXPECT_EQ(kept.heads[1].output, fresh.heads[1].output);
  EXPECT_EQ(kept.output, fresh.output);
}

}  // namespace

namespace {

// 300 tokens, 64 wide, 4 heads: projection blocks of 64 rows, query blocks of 256 rows, output
// blocks of 38 rows (core/src/attention.cpp), so an edit of one row leaves other blocks alone.
Scenario large_scenario() { return attnlab::testing::random_scenario(300, 64, 4, 29); }

Trace computed(const Scenario& s) {
  Trace t;
  attnlab::compute_into(attnlab::resolve(s), Layout::rows, t);
  return t;
}

void expect_recompute_equals_fresh(const Scenario& before, const Scenario& after) {
  Trace kept = computed(before);
  ASSERT_TRUE(attnlab::compute_into(attnlab::resolve(after), Layout::rows, kept));
  expect_same_trace(kept, attnlab::compute(after));
}

TEST(Recompute, ACellOfXRecomputesOnlyTheBlocksOfItsRowInQKAndV) {
  const Scenario before = large_scenario();
  Trace kept = computed(before);
  kept.heads[1].Q(290, 3) = 42;  // block [256, 300): X's row 10 is not in it
  kept.heads[2].V(200, 0) = 43;  // block [192, 256)
  kept.heads[0].K(20, 1) = 44;   // block [0, 64), X's row 10's: recomputed
  Scenario after = before;
  after.X(10, 3) += 0.5;
  attnlab::compute_into(attnlab::resolve(after), Layout::rows, kept);
  EXPECT_EQ(kept.heads[1].Q(290, 3), 42);
  EXPECT_EQ(kept.heads[2].V(200, 0), 43);
  const Trace fresh = attnlab::compute(after);
  EXPECT_EQ(kept.heads[0].K(20, 1), fresh.heads[0].K(20, 1));
  EXPECT_EQ(kept.heads[3].Q, fresh.heads[3].Q);
  EXPECT_TRUE(kept.recomputed.projections && kept.recomputed.attention && kept.recomputed.output);
}

TEST(Recompute, ACellOfXGivesTheFreshTraceBitForBit) {
  const Scenario before = large_scenario();
  Scenario one = before, two = before, many = before;
  one.X(10, 3) += 0.5;
  two.X(70, 0) = 2, two.X(299, 63) = -1;  // two blocks, the last one short
  many.X.topRows(40).array() += 1;         // more than an eighth of the rows: everything
  expect_recompute_equals_fresh(before, one);
  expect_recompute_equals_fresh(before, two);
  expect_recompute_equals_fresh(before, many);
  Scenario cross = before, cross_after;
  cross.Z = attnlab::random_matrix(200, 64, attnlab::RandomSpec{}, 3);
  cross_after = cross;
  (*cross_after.Z)(150, 5) = 3;  // keys and values: one block; queries kept
  expect_recompute_equals_fresh(cross, cross_after);
}

TEST(Recompute, AMaskCellRecomputesOnlyTheBlocksOfItsQueryRow) {
  const Scenario before = large_scenario();
  Trace kept = computed(before);
  kept.heads[0].weights(280, 7) = 42;  // query block [256, 300): row 12's is [0, 256)
  kept.output(100, 1) = 43;            // output block [76, 114)
  Scenario after = before;
  after.mask.cells = Matrix::Ones(300, 300);
  after.mask.cells->operator()(12, 40) = 0;
  attnlab::compute_into(attnlab::resolve(after), Layout::rows, kept);
  EXPECT_EQ(kept.heads[0].weights(280, 7), 42);
  EXPECT_EQ(kept.output(100, 1), 43);
  EXPECT_FALSE(kept.recomputed.projections);
  kept.heads[0].weights(280, 7) = attnlab::compute(after).heads[0].weights(280, 7);
  kept.output(100, 1) = attnlab::compute(after).output(100, 1);
  expect_same_trace(kept, attnlab::compute(after));
  EXPECT_EQ(kept.heads[2].weights(12, 40), 0.0);
}

TEST(Recompute, MaskRowsGiveTheFreshTraceBitForBit) {
  Scenario before = large_scenario();
  before.mask.cells = Matrix::Ones(300, 300);
  Scenario one = before, rows = before, causal = before;
  (*one.mask.cells)(299, 0) = 0;
  (*rows.mask.cells)(3, 3) = 0, (*rows.mask.cells)(290, 1) = 0;
  rows.mask.cells->row(150).setZero();  // a query that attends nothing: zero weights
  causal.mask.causal = true;            // every row: everything after the scores
  expect_recompute_equals_fresh(before, one);
  expect_recompute_equals_fresh(before, rows);
  expect_recompute_equals_fresh(before, causal);
  Scenario off = one;  // a mask row and a head switched off in one edit
  off.heads_off = {1};
  expect_recompute_equals_fresh(before, off);
}

// The selected head first (compute_into's FirstHead): when `ready` is called that head equals a
// fresh trace's while every other head still holds the values before the edit; the finished
// trace equals a fresh one bit for bit, the stages kept by the edit included.
void expect_first_head_then_fresh(const Scenario& before, const Scenario& after, Layout layout, int first) {
  Trace t;
  attnlab::compute_into(attnlab::resolve(before), layout, t);
  const Trace old = t, fresh = attnlab::compute(attnlab::resolve(after), layout);
  int calls = 0;
  const attnlab::FirstHead head{first, [&](const Trace& partial) {
                                  ++calls;
                                  const attnlab::HeadTrace &a = partial.heads[std::size_t(first)],
                                                           &b = fresh.heads[std::size_t(first)];
                                  EXPECT_TRUE(a.Q == b.Q && a.K == b.K && a.V == b.V && a.scores == b.scores);
                                  EXPECT_EQ(a.weights, b.weights);
                                  EXPECT_EQ(a.output, b.output);
                                  for (std::size_t h = 0; h < old.heads.size(); ++h)
                                    if (int(h) != first) {
                                      ASSERT_NE(old.heads[h].output, fresh.heads[h].output) << "an edit of every head";
                                      EXPECT_EQ(partial.heads[h].output, old.heads[h].output) << "head " << h;
                                    }
                                }};
  ASSERT_TRUE(attnlab::compute_into(attnlab::resolve(after), layout, t, nullptr, attnlab::Recompute::changed, &head));
  EXPECT_EQ(calls, 1);
  expect_same_trace(t, fresh);
}

TEST(Recompute, TheFirstHeadIsReadyBeforeTheOthersAndTheTraceEqualsAFreshOne) {
  const Scenario before = large_scenario();
  Scenario x = before, mask = before;
  x.X(10, 3) += 0.5;  // a row of Q, K and V: kept blocks in every head
  mask.mask.causal = true;  // the scores kept, every head's weights recomputed
  expect_first_head_then_fresh(before, x, Layout::rows, 2);
  expect_first_head_then_fresh(before, mask, Layout::rows, 0);
  expect_first_head_then_fresh(before, x, Layout::columns, 3);
  // 64 tokens: each head's projections and N x N stages in one task (a whole head at a time).
  const Scenario small = attnlab::testing::random_scenario(64, 64, 4, 31);
  Scenario small_x = small;
  small_x.X(5, 1) += 0.5;
  expect_first_head_then_fresh(small, small_x, Layout::rows, 1);
  expect_first_head_then_fresh(small, small_x, Layout::columns, 0);
}

TEST(Recompute, NoFirstHeadWithOneHeadOrOneOutOfRange) {
  const Scenario s = attnlab::testing::random_scenario(40, 8, 1, 5);
  int calls = 0;
  const attnlab::FirstHead head{0, [&](const Trace&) { ++calls; }}, far{9, [&](const Trace&) { ++calls; }};
  Trace t;
  ASSERT_TRUE(attnlab::compute_into(attnlab::resolve(s), Layout::rows, t, nullptr, attnlab::Recompute::all, &head));
  ASSERT_TRUE(attnlab::compute_into(attnlab::resolve(large_scenario()), Layout::rows, t, nullptr,
                                    attnlab::Recompute::all, &far));
  EXPECT_EQ(calls, 0) << "one head is the whole trace; head 9 of 4 is no head";
  expect_same_trace(t, attnlab::compute(large_scenario()));
}

}  // namespace

}  // namespace test_recompute
