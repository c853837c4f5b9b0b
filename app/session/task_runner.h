#pragma once
/// TaskRunner: the one way the session runs long work (reading and writing large files, the
/// autosave's writes, the search for a crashed run's autosave) off the UI thread. A task runs on
/// a thread of its own; its result is handed back on the UI thread by Poll(), which the window
/// calls once per frame, so completions never race the frame. A cancelled task, or one
/// superseded by a newer task of the same kind, finishes on its own (the parser has no
/// cancellation point) and its result is dropped.
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace attnlab::app {

/// What a task produced: its value, or the exception it ended with.
template <typename T>
class TaskResult {
 public:
  explicit TaskResult(T value) : value_(std::move(value)) {}
  explicit TaskResult(std::exception_ptr error) : error_(std::move(error)) {}
  bool Failed() const { return error_ != nullptr; }
  /// The value; rethrows the task's exception when it failed.
  T Take() {
    if (error_) std::rethrow_exception(error_);
    return std::move(*value_);
  }

 private:
  std::optional<T> value_;
  std::exception_ptr error_;
};

class TaskRunner {
 public:
  using TaskId = std::uint64_t;  ///< never 0: 0 means "no task"

  TaskRunner() = default;
  ~TaskRunner();  ///< waits for tasks still running; their results are dropped
  TaskRunner(const TaskRunner&) = delete;
  TaskRunner& operator=(const TaskRunner&) = delete;

  /// Called on a task's thread when it has finished (e.g. wake the event loop so that the next
  /// frame polls it).
  void SetOnFinished(std::function<void()> on_finished);

  /// Runs `work` on a thread of its own; once it has finished, the next Poll() (or Finish())
  /// calls `done` with its result on the calling thread. A non-empty `kind` supersedes: tasks of
  /// that kind still running are cancelled.
  template <typename T>
  TaskId Start(const std::string& kind, std::function<T()> work,
               std::function<void(TaskResult<T>)> done) {
    return StartErased(kind, [work = std::move(work), done = std::move(done)]() -> Completion {
      std::shared_ptr<TaskResult<T>> result;
      try {
        result = std::make_shared<TaskResult<T>>(work());
      } catch (...) {
        result = std::make_shared<TaskResult<T>>(std::current_exception());
      }
      return [done, result] { done(std::move(*result)); };
    });
  }

  /// Drops `id`'s result (a no-op for a task already delivered).
  void Cancel(TaskId id);
  /// `id` has neither been delivered nor cancelled.
  bool Running(TaskId id) const;
  /// Some task (of `kind`, when given) has not been delivered yet.
  bool Busy(const std::string& kind = std::string()) const;
  /// Delivers the results of the tasks that have finished, oldest first. Never waits. Returns
  /// how many were delivered.
  int Poll();
  /// Waits for `id` and delivers its result now (e.g. before the file it writes is removed).
  void Finish(TaskId id);

  struct Stats {
    int started = 0, delivered = 0, cancelled = 0, superseded = 0;
  };
  Stats GetStats() const { return stats_; }

 private:
  using Completion = std::function<void()>;
  struct Task {
    TaskId id = 0;
    std::string kind;
    bool cancelled = false;
    std::shared_ptr<std::atomic<bool>> finished;
    std::shared_ptr<Completion> completion;  ///< written by the task's thread before `finished`
    std::thread thread;
  };
  TaskId StartErased(const std::string& kind, std::function<Completion()> job);
  /// Joins the finished tasks and drops the cancelled ones among them; returns the others.
  std::vector<Task> TakeFinished();

  std::vector<Task> tasks_;  ///< oldest first
  TaskId last_id_ = 0;
  Stats stats_;
  std::shared_ptr<std::mutex> on_finished_mutex_ = std::make_shared<std::mutex>();
  std::shared_ptr<std::function<void()>> on_finished_ = std::make_shared<std::function<void()>>();
};

}  // namespace attnlab::app
