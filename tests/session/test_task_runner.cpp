// The one runner for background work: results arrive on the polling thread, a cancelled or
// superseded task's result never does.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "session/task_runner.h"

namespace attnlab::app {
namespace test_task_runner {
namespace {

// Holds tasks until released, so that a test decides what is still running.
class Gate {
 public:
  void Wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    open_cv_.wait(lock, [this] { return open_; });
  }
  void Open() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      open_ = true;
    }
    open_cv_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable open_cv_;
  bool open_ = false;
};

void PollUntilIdle(TaskRunner& runner) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (runner.Busy() && std::chrono::steady_clock::now() < deadline) {
    runner.Poll();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_FALSE(runner.Busy());
}

TEST(SessionTaskRunner, DeliversOnThePollingThread) {
  TaskRunner runner;
  std::thread::id ran_on, delivered_on;
  int value = 0;
  runner.Start<int>("", [&] { ran_on = std::this_thread::get_id(); return 42; },
                    [&](TaskResult<int> r) {
                      delivered_on = std::this_thread::get_id();
                      value = r.Take();
                    });
  EXPECT_TRUE(runner.Busy());
  PollUntilIdle(runner);
  EXPECT_EQ(value, 42);
  EXPECT_NE(ran_on, std::this_thread::get_id());
  EXPECT_EQ(delivered_on, std::this_thread::get_id());
}

TEST(SessionTaskRunner, NothingIsDeliveredOutsidePoll) {
  TaskRunner runner;
  bool delivered = false;
  const TaskRunner::TaskId id = runner.Start<int>("", [] { return 1; }, [&](TaskResult<int>) { delivered = true; });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(delivered);
  EXPECT_TRUE(runner.Running(id));
  runner.Finish(id);
  EXPECT_TRUE(delivered);
  EXPECT_FALSE(runner.Running(id));
}

TEST(SessionTaskRunner, AnExceptionReachesTheCompletion) {
  TaskRunner runner;
  std::string error;
  runner.Start<int>("", []() -> int { throw std::runtime_error("disk full"); },
                    [&](TaskResult<int> r) {
                      EXPECT_TRUE(r.Failed());
                      try {
                        r.Take();
                      } catch (const std::exception& e) {
                        error = e.what();
                      }
                    });
  PollUntilIdle(runner);
  EXPECT_EQ(error, "disk full");
}

TEST(SessionTaskRunner, CancelDropsTheResult) {
  TaskRunner runner;
  Gate gate;
  bool delivered = false;
  const TaskRunner::TaskId id = runner.Start<int>("load", [&] { gate.Wait(); return 1; },
                                                  [&](TaskResult<int>) { delivered = true; });
  runner.Cancel(id);
  EXPECT_FALSE(runner.Running(id));
  EXPECT_FALSE(runner.Busy());
  gate.Open();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  runner.Poll();
  runner.Finish(id);
  EXPECT_FALSE(delivered);
  EXPECT_EQ(runner.GetStats().cancelled, 1);
  EXPECT_EQ(runner.GetStats().delivered, 0);
}

TEST(SessionTaskRunner, ANewerTaskOfTheSameKindSupersedes) {
  TaskRunner runner;
  Gate gate;
  std::vector<int> delivered;
  runner.Start<int>("load", [&] { gate.Wait(); return 1; }, [&](TaskResult<int> r) { delivered.push_back(r.Take()); });
  runner.Start<int>("load", [&] { gate.Wait(); return 2; }, [&](TaskResult<int> r) { delivered.push_back(r.Take()); });
  runner.Start<int>("save", [&] { gate.Wait(); return 3; }, [&](TaskResult<int> r) { delivered.push_back(r.Take()); });
  EXPECT_TRUE(runner.Busy("load"));
  gate.Open();
  PollUntilIdle(runner);
  // The load and the save finish on their own threads in either order; a poll delivers whatever
  // has finished, so only which results arrive is promised, not their order.
  std::sort(delivered.begin(), delivered.end());
  EXPECT_EQ(delivered, (std::vector<int>{2, 3})) << "the older load's result is dropped";
  EXPECT_EQ(runner.GetStats().superseded, 1);
  EXPECT_EQ(runner.GetStats().started, 3);
}

TEST(SessionTaskRunner, ACompletionMayStartTheNextTask) {
  TaskRunner runner;
  std::vector<int> delivered;
  runner.Start<int>("", [] { return 1; }, [&](TaskResult<int> r) {
    delivered.push_back(r.Take());
    runner.Start<int>("", [] { return 2; }, [&](TaskResult<int> r2) { delivered.push_back(r2.Take()); });
  });
  PollUntilIdle(runner);
  EXPECT_EQ(delivered, (std::vector<int>{1, 2}));
}

TEST(SessionTaskRunner, WakesWhenATaskFinishes) {
  TaskRunner runner;
  std::mutex mutex;
  std::condition_variable woken;
  bool wake = false;
  runner.SetOnFinished([&] {
    std::lock_guard<std::mutex> lock(mutex);
    wake = true;
    woken.notify_all();
  });
  runner.Start<int>("", [] { return 1; }, [](TaskResult<int>) {});
  std::unique_lock<std::mutex> lock(mutex);
  EXPECT_TRUE(woken.wait_for(lock, std::chrono::seconds(10), [&] { return wake; }));
  lock.unlock();
  PollUntilIdle(runner);
}

TEST(SessionTaskRunner, DestructionWaitsForRunningTasksWithoutDelivering) {
  bool delivered = false;
  {
    TaskRunner runner;
    runner.Start<int>("", [] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      return 1;
    }, [&](TaskResult<int>) { delivered = true; });
  }
  EXPECT_FALSE(delivered);
}

}  // namespace
}  // namespace test_task_runner
}  // namespace attnlab::app
