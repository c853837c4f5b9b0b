// core/src/task_pool.h: run(count, body) calls every index exactly once, on the caller and its
// helpers, returns only when all are done, and a loop started while another holds the helpers
// (the window's worker and UI threads) runs on its caller alone and still completes.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "task_pool.h"  // core/src

namespace test_task_pool {

namespace {

namespace tasks = attnlab::tasks;

/// Counts the calls of each index of a loop of `count`.
class CallCounts {
 public:
  explicit CallCounts(std::int64_t count) : calls_(static_cast<std::size_t>(count)) {}
  void Call(std::int64_t i) { calls_[static_cast<std::size_t>(i)].fetch_add(1); }
  /// Indices not called exactly once.
  std::vector<std::int64_t> Wrong() const {
    std::vector<std::int64_t> wrong;
    for (std::size_t i = 0; i < calls_.size(); ++i)
      if (calls_[i].load() != 1) wrong.push_back(static_cast<std::int64_t>(i));
    return wrong;
  }

 private:
  std::vector<std::atomic<int>> calls_;
};

TEST(TaskPool, ThreadsIsAtLeastTheCaller) { EXPECT_GE(tasks::threads(), 1); }

TEST(TaskPool, RunsEveryIndexExactlyOnceAndReturnsWhenAllAreDone) {
  for (const std::int64_t count : {1, 2, 3, 17, 1000, 100000}) {
    CallCounts calls(count);
    tasks::run(count, [&](std::int64_t i) { calls.Call(i); });
    EXPECT_TRUE(calls.Wrong().empty()) << "count " << count << ": " << calls.Wrong().size()
                                       << " indices not called exactly once";
  }
}

TEST(TaskPool, NothingToDoCallsNothing) {
  int calls = 0;
  tasks::run(0, [&](std::int64_t) { ++calls; });
  tasks::run(-5, [&](std::int64_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(TaskPool, NotParallelRunsInOrderOnTheCaller) {
  const std::thread::id caller = std::this_thread::get_id();
  std::vector<std::int64_t> order;  // unguarded on purpose: only the caller may touch it
  bool elsewhere = false;
  tasks::run(
      50,
      [&](std::int64_t i) {
        if (std::this_thread::get_id() != caller) elsewhere = true;
        order.push_back(i);
      },
      /*parallel=*/false);
  EXPECT_FALSE(elsewhere);
  ASSERT_EQ(order.size(), 50u);
  for (std::int64_t i = 0; i < 50; ++i) EXPECT_EQ(order[static_cast<std::size_t>(i)], i);
}

TEST(TaskPool, UsesNoMoreThreadsThanItSays) {
  std::mutex mutex;
  std::set<std::thread::id> seen;
  tasks::run(20000, [&](std::int64_t) {
    std::lock_guard<std::mutex> lock(mutex);
    seen.insert(std::this_thread::get_id());
  });
  EXPECT_GE(seen.size(), 1u);
  EXPECT_LE(seen.size(), static_cast<std::size_t>(tasks::threads()));
}

TEST(TaskPool, ALoopInsideALoopRunsOnItsCallerAndCompletes) {
  constexpr std::int64_t kOuter = 8, kInner = 100;
  CallCounts calls(kOuter * kInner);
  std::atomic<int> inner_elsewhere{0};
  tasks::run(kOuter, [&](std::int64_t o) {
    const std::thread::id outer_thread = std::this_thread::get_id();
    tasks::run(kInner, [&](std::int64_t i) {
      if (std::this_thread::get_id() != outer_thread) inner_elsewhere.fetch_add(1);
      calls.Call(o * kInner + i);
    });
  });
  EXPECT_TRUE(calls.Wrong().empty());
  EXPECT_EQ(inner_elsewhere.load(), 0) << "an inner loop used the helpers the outer loop holds";
}

TEST(TaskPool, LoopsFromTwoThreadsAtOnceBothComplete) {
  constexpr std::int64_t kCount = 20000;
  constexpr int kRounds = 50;
  auto a = std::make_unique<CallCounts>(kCount * kRounds);
  auto b = std::make_unique<CallCounts>(kCount * kRounds);
  auto loops = [](CallCounts& calls) {
    for (int r = 0; r < kRounds; ++r)
      tasks::run(kCount, [&calls, r](std::int64_t i) { calls.Call(r * kCount + i); });
  };
  std::thread other([&] { loops(*b); });
  loops(*a);
  other.join();
  EXPECT_TRUE(a->Wrong().empty());
  EXPECT_TRUE(b->Wrong().empty());
}

TEST(TaskPool, ManyShortLoopsInARowEachComplete) {
  // The helpers spin, then sleep between loops: neither may lose a loop's last tasks.
  for (int r = 0; r < 2000; ++r) {
    std::atomic<std::int64_t> sum{0};
    tasks::run(r % 7 + 2, [&](std::int64_t i) { sum.fetch_add(i + 1); });
    const std::int64_t n = r % 7 + 2;
    ASSERT_EQ(sum.load(), n * (n + 1) / 2) << "loop " << r;
  }
}

}  // namespace

}  // namespace test_task_pool
