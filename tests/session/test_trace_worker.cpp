// session/trace_worker.h: traces computed on the worker's thread equal the ones computed in place;
// only the newest version's trace is ever handed over (older ones superseded, cancelled or
// dropped), a refused scenario comes back as one line and leaves the trace alone, and which
// scenarios go off the UI thread and which traces share shapes.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "attnlab/attention.h"
#include "attnlab/model.h"
#include "session/document.h"
#include "session/trace_worker.h"
#include "session_test_support.h"

namespace attnlab::app::testing {
namespace test_trace_worker {
namespace {

using Clock = std::chrono::steady_clock;

ScenarioVersion VersionOf(std::uint64_t version, const attnlab::Scenario& s) {
  return {version, std::make_shared<const attnlab::Scenario>(s), nullptr};
}

/// Checks `done` until it holds or 60 s have passed (a state, never a fixed sleep).
bool WaitUntil(const std::function<bool()>& done) {
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  while (!done()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

/// Largest |difference| between the heads' weights and the outputs of two traces.
double MaxDifference(const attnlab::Trace& a, const attnlab::Trace& b) {
  double worst = (a.output - b.output).cwiseAbs().maxCoeff();
  for (std::size_t h = 0; h < a.heads.size(); ++h)
    worst = std::max(worst, (a.heads[h].weights - b.heads[h].weights).cwiseAbs().maxCoeff());
  return worst;
}

/// Holds the worker inside its on_result callback while closed: the worker starts nothing else
/// meanwhile, so a test decides what is queued.
class Gate {
 public:
  void Close() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = false;
  }
  void Open() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      open_ = true;
    }
    open_cv_.notify_all();
  }
  void Pass() {
    std::unique_lock<std::mutex> lock(mutex_);
    open_cv_.wait(lock, [this] { return open_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable open_cv_;
  bool open_ = true;
};

/// A worker that counts the traces it has finished (its on_result callback).
class TraceWorkerTest : public ::testing::Test {
 protected:
  void TearDown() override { gate_.Open(); }  // never leave the worker held: it is joined next

  /// Takes the trace of `version` into trace_, waiting up to 60 s for it.
  bool Take(std::uint64_t version) {
    return WaitUntil([&] { return worker_.TakeResult(version, trace_, &result_); });
  }
  bool Started(int n) {
    return WaitUntil([&] { return worker_.GetStats().started >= n; });
  }

  Gate gate_;
  std::atomic<int> finished_{0};
  std::atomic<bool> callback_on_test_thread_{false};
  const std::thread::id test_thread_ = std::this_thread::get_id();
  TraceWorker worker_{[this] {  ///< after the members its callback uses
    if (std::this_thread::get_id() == test_thread_) callback_on_test_thread_ = true;
    finished_.fetch_add(1);
    gate_.Pass();
  }};
  attnlab::Trace trace_;
  TraceWorker::Result result_;
};

TEST_F(TraceWorkerTest, ComputesOffTheCallersThreadWhatComputeGivesInPlace) {
  const attnlab::Scenario s = RandomScenario(40, 16, 2);
  EXPECT_FALSE(worker_.Busy());
  worker_.Request(VersionOf(1, s));
  EXPECT_TRUE(worker_.Busy());
  ASSERT_TRUE(Take(1));
  EXPECT_FALSE(worker_.Busy());
  EXPECT_EQ(result_.error, "");
  EXPECT_EQ(result_.computed_from.version, 1u);
  ASSERT_NE(result_.computed_from.model, nullptr) << "the worker resolves a model it was not given";
  EXPECT_FALSE(callback_on_test_thread_.load());

  const attnlab::Trace here = attnlab::compute(s);
  ASSERT_EQ(trace_.heads.size(), here.heads.size());
  const double error = MaxDifference(trace_, here);
  EXPECT_LE(error, 1e-12) << "max |worker - in place| = " << error;
  const TraceWorker::Stats stats = worker_.GetStats();
  EXPECT_EQ(stats.requests, 1);
  EXPECT_EQ(stats.delivered, 1);
  EXPECT_EQ(stats.resolves, 1);
}

TEST_F(TraceWorkerTest, AModelGivenWithTheRequestIsNotResolvedAgain) {
  const attnlab::Scenario s = SmallScenario(0.5);
  ScenarioVersion v = VersionOf(3, s);
  v.model = std::make_shared<const attnlab::Model>(attnlab::resolve(*v.scenario));
  worker_.Request(v);
  ASSERT_TRUE(Take(3));
  EXPECT_EQ(result_.computed_from.model, v.model);
  EXPECT_EQ(worker_.GetStats().resolves, 0);
}

TEST_F(TraceWorkerTest, ARefusedScenarioReportsItsErrorAndLeavesTheTraceAlone) {
  worker_.Request(VersionOf(1, SmallScenario(0.5)));
  ASSERT_TRUE(Take(1));
  const attnlab::Matrix before = trace_.output;

  attnlab::Scenario broken = SmallScenario(0.5);
  broken.full.W_q = attnlab::Matrix::Identity(3, 3);  // X is 4 wide
  worker_.Request(VersionOf(2, broken));
  ASSERT_TRUE(Take(2));
  EXPECT_NE(result_.error.find("W_q"), std::string::npos) << result_.error;
  EXPECT_EQ(result_.error.find('\n'), std::string::npos) << result_.error;
  EXPECT_EQ(trace_.output, before);
}

TEST_F(TraceWorkerTest, AFinishedTraceOfAnotherVersionIsDroppedNotShown) {
  worker_.Request(VersionOf(1, SmallScenario(0.5)));
  ASSERT_TRUE(WaitUntil([&] { return finished_.load() == 1; }));
  // The document moved on (computed in place, say): the ready trace is old.
  EXPECT_FALSE(worker_.TakeResult(2, trace_, &result_));
  EXPECT_TRUE(trace_.heads.empty());
  EXPECT_FALSE(worker_.Busy());
  EXPECT_EQ(worker_.GetStats().discarded, 1);
  EXPECT_EQ(worker_.GetStats().delivered, 0);
}

TEST_F(TraceWorkerTest, ANewRequestDropsAFinishedTraceNotYetTaken) {
  worker_.Request(VersionOf(1, SmallScenario(0.5)));
  ASSERT_TRUE(WaitUntil([&] { return finished_.load() == 1; }));
  worker_.Request(VersionOf(2, SmallScenario(0.25)));
  ASSERT_TRUE(Take(2));
  EXPECT_EQ(result_.computed_from.scenario->scale.value, 0.25);
  const TraceWorker::Stats stats = worker_.GetStats();
  EXPECT_EQ(stats.discarded, 1);
  EXPECT_EQ(stats.delivered, 1);
}

TEST_F(TraceWorkerTest, ARequestWhileOneRunsLeavesOnlyTheNewestToBeShown) {
  // Large enough to still be running when the next request comes, most of the time; either way
  // the first is never handed over (cancelled, or finished and dropped).
  worker_.Request(VersionOf(1, RandomScenario(1024, 128, 8)));
  ASSERT_TRUE(Started(1));
  worker_.Request(VersionOf(2, SmallScenario(0.25)));
  ASSERT_TRUE(Take(2));
  EXPECT_EQ(result_.computed_from.version, 2u);
  EXPECT_FALSE(worker_.Busy());
  const TraceWorker::Stats stats = worker_.GetStats();
  EXPECT_EQ(stats.cancelled + stats.discarded, 1);
  EXPECT_EQ(stats.delivered, 1);
  EXPECT_EQ(stats.started, 2);
}

TEST_F(TraceWorkerTest, RequestsWhileTheWorkerIsBusySupersedeEachOther) {
  gate_.Close();
  worker_.Request(VersionOf(1, SmallScenario(0.9)));
  ASSERT_TRUE(WaitUntil([&] { return finished_.load() == 1; }));  // now held in on_result
  for (std::uint64_t v = 2; v <= 5; ++v) worker_.Request(VersionOf(v, SmallScenario(0.1 * v)));
  gate_.Open();
  ASSERT_TRUE(Take(5));
  EXPECT_DOUBLE_EQ(result_.computed_from.scenario->scale.value, 0.5);
  const TraceWorker::Stats stats = worker_.GetStats();
  EXPECT_EQ(stats.discarded, 1) << "version 1, finished but old once version 2 was asked for";
  EXPECT_EQ(stats.superseded, 3) << "versions 2 to 4, replaced before they started";
  EXPECT_EQ(stats.started, 2) << "versions 1 and 5 only";
  EXPECT_EQ(stats.delivered, 1);
}

/// Every head's stages and the outputs of two traces are the same bits.
void ExpectSameBits(const attnlab::Trace& got, const attnlab::Trace& want) {
  ASSERT_EQ(got.heads.size(), want.heads.size());
  for (std::size_t h = 0; h < want.heads.size(); ++h) {
    const attnlab::HeadTrace &a = got.heads[h], &b = want.heads[h];
    EXPECT_TRUE(a.Q == b.Q && a.K == b.K && a.V == b.V && a.scores == b.scores) << "head " << h;
    EXPECT_EQ(a.weights, b.weights) << "head " << h;
    EXPECT_EQ(a.output, b.output) << "head " << h;
  }
  EXPECT_EQ(got.output, want.output);
  EXPECT_TRUE((got.allowed == want.allowed).all());
}

TEST_F(TraceWorkerTest, TheFirstHeadIsHandedOverBeforeTheRestOfItsTrace) {
  gate_.Close();
  const attnlab::Scenario s = RandomScenario(64, 16, 4);
  worker_.Request(VersionOf(1, s), 2);
  ASSERT_TRUE(WaitUntil([&] { return finished_.load() == 1; }));  // held once head 2 is out
  EXPECT_FALSE(worker_.TakeResult(1, trace_, &result_)) << "the other heads are not computed yet";
  attnlab::Trace head;
  TraceWorker::Head which;
  ASSERT_TRUE(worker_.TakeHead(0, head, &which));
  EXPECT_EQ(which.index, 2);
  EXPECT_EQ(which.computed_from.version, 1u);
  EXPECT_NE(which.computed_from.model, nullptr);
  const attnlab::Trace here = attnlab::compute(s);
  ASSERT_EQ(head.heads.size(), 1u);
  EXPECT_EQ(head.heads[0].weights, here.heads[2].weights);
  EXPECT_EQ(head.heads[0].output, here.heads[2].output);
  EXPECT_FALSE(worker_.TakeHead(0, head, &which)) << "handed over once";
  gate_.Open();
  ASSERT_TRUE(Take(1));
  ExpectSameBits(trace_, here);
  EXPECT_EQ(worker_.GetStats().heads_ahead, 1);
}

TEST_F(TraceWorkerTest, ANewerRequestStopsAComputationOnceItsFirstHeadIsOut) {
  gate_.Close();
  attnlab::Scenario s = RandomScenario(64, 16, 4);
  worker_.Request(VersionOf(1, s), 1);
  ASSERT_TRUE(WaitUntil([&] { return finished_.load() == 1; }));  // head 1 of version 1 is out
  s.X *= 2.0;
  worker_.Request(VersionOf(2, s), 1);
  gate_.Open();
  ASSERT_TRUE(Take(2));
  ExpectSameBits(trace_, attnlab::compute(s));
  const TraceWorker::Stats stats = worker_.GetStats();
  EXPECT_EQ(stats.cancelled, 1) << "version 1's other heads would never be shown";
  EXPECT_EQ(stats.started, 2);
  attnlab::Trace head;
  TraceWorker::Head which;
  EXPECT_FALSE(worker_.TakeHead(2, head, &which)) << "a head no newer than the trace shown is dropped";
}

// The Document shows the selected head of a newer version in the trace it shows (that head fresh,
// the others and the outputs stale, the Inspector's model that head's), and puts the trace's own
// head back before the worker reuses it: the next, incremental computation is still exact.
TEST_F(TraceWorkerTest, TheDocumentShowsTheFirstHeadAheadAndKeepsItsTraceExact) {
  Document doc;
  doc.trace_worker = &worker_;
  doc.SetHeadFirst(1);
  doc.Open({RandomScenario(1100, 4, 2), "", "large", false});  // 2.4M cells: off the UI thread
  const auto shown = [&] { doc.PollTrace(); doc.GetTrace(); return !doc.TraceStale(); };
  ASSERT_TRUE(WaitUntil(shown));
  const std::uint64_t stamp = doc.TraceVersion();
  gate_.Close();
  finished_ = 0;
  ASSERT_TRUE(doc.ApplyEdit("x", [](attnlab::Scenario& s) { s.X(5, 2) += 1.0; }));
  doc.GetTrace();
  ASSERT_TRUE(WaitUntil([&] { return finished_.load() == 1; }));  // head 1 out, the rest held
  doc.PollTrace();
  EXPECT_TRUE(doc.TraceStale());
  EXPECT_FALSE(doc.HeadStale(1));
  EXPECT_TRUE(doc.HeadStale(0));
  EXPECT_NE(doc.TraceVersion(), stamp) << "textures of head 1 must be made again";
  EXPECT_NE(doc.TraceModelFor(1), doc.TraceModel());
  const attnlab::Trace fresh = attnlab::compute(doc.GetScenario());
  EXPECT_EQ(doc.GetTrace().heads[1].weights, fresh.heads[1].weights);
  EXPECT_NE(doc.GetTrace().heads[0].weights, fresh.heads[0].weights) << "head 0 is still the old one";
  gate_.Open();
  ASSERT_TRUE(WaitUntil(shown));
  ExpectSameBits(doc.GetTrace(), fresh);
  ASSERT_TRUE(doc.ApplyEdit("mask", [](attnlab::Scenario& s) { s.mask.causal = true; }));
  ASSERT_TRUE(WaitUntil(shown));
  ExpectSameBits(doc.GetTrace(), attnlab::compute(doc.GetScenario()));
}

TEST(TraceWorker, DestroyingItCancelsARunningComputation) {
  TraceWorker worker;
  worker.Request(VersionOf(1, RandomScenario(1024, 128, 8)));
  ASSERT_TRUE(WaitUntil([&] { return worker.GetStats().started == 1; }));
  // The destructor must return (the test's timeout guards it) without delivering anything.
}

TEST(TraceWorker, LargeScenariosAndManyCellsGoOffTheUiThread) {
  EXPECT_FALSE(ComputeOffThread(SmallScenario(0.5)));
  EXPECT_FALSE(ComputeOffThread(RandomScenario(256, 64, 4)));
  EXPECT_TRUE(ComputeOffThread(RandomScenario(512, 512, 8)));
  // One narrow head over many tokens: few FLOPs, but too many cells for one frame.
  attnlab::Scenario narrow;
  narrow.X = attnlab::Matrix::Ones(1100, 1);
  EXPECT_TRUE(ComputeOffThread(narrow));
  narrow.X = attnlab::Matrix::Ones(1000, 1);
  EXPECT_FALSE(ComputeOffThread(narrow));
}

TEST(TraceWorker, TheShapeKeyFollowsShapesNotValues) {
  const attnlab::Scenario a = RandomScenario(8, 4, 2);
  attnlab::Scenario b = a;
  b.X *= 3.0;
  b.full.W_q = b.full.W_q->transpose().eval();  // square: same shape, other values
  EXPECT_EQ(TraceShapeKey(a), TraceShapeKey(b));
  attnlab::Scenario wider = RandomScenario(8, 6, 2);
  EXPECT_NE(TraceShapeKey(a), TraceShapeKey(wider));
  attnlab::Scenario more_heads = a;
  more_heads.num_heads = 4;
  EXPECT_NE(TraceShapeKey(a), TraceShapeKey(more_heads));
  attnlab::Scenario with_w_o = a;
  with_w_o.W_o = attnlab::Matrix::Identity(4, 4);
  EXPECT_NE(TraceShapeKey(a), TraceShapeKey(with_w_o));
  attnlab::Scenario columns = a;
  columns.layout = attnlab::Layout::columns;
  EXPECT_NE(TraceShapeKey(a), TraceShapeKey(columns));
}

}  // namespace
}  // namespace test_trace_worker
}  // namespace attnlab::app::testing
