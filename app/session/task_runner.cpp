#include "session/task_runner.h"

#include <algorithm>

namespace attnlab::app {

TaskRunner::~TaskRunner() {
  for (Task& task : tasks_)
    if (task.thread.joinable()) task.thread.join();
}

void TaskRunner::SetOnFinished(std::function<void()> on_finished) {
  std::lock_guard<std::mutex> lock(*on_finished_mutex_);
  *on_finished_ = std::move(on_finished);
}

TaskRunner::TaskId TaskRunner::StartErased(const std::string& kind, std::function<Completion()> job) {
  if (!kind.empty())
    for (Task& task : tasks_)
      if (task.kind == kind && !task.cancelled) {
        task.cancelled = true;
        ++stats_.superseded;
      }
  Task task;
  task.id = ++last_id_;
  task.kind = kind;
  task.finished = std::make_shared<std::atomic<bool>>(false);
  task.completion = std::make_shared<Completion>();
  // The thread holds its own references: it never touches the runner, which may move tasks_.
  task.thread = std::thread([job = std::move(job), finished = task.finished,
                             completion = task.completion, mutex = on_finished_mutex_,
                             on_finished = on_finished_] {
    *completion = job();
    finished->store(true, std::memory_order_release);
    std::lock_guard<std::mutex> lock(*mutex);
    if (*on_finished) (*on_finished)();
  });
  ++stats_.started;
  tasks_.push_back(std::move(task));
  return last_id_;
}

void TaskRunner::Cancel(TaskId id) {
  for (Task& task : tasks_)
    if (task.id == id && !task.cancelled) {
      task.cancelled = true;
      ++stats_.cancelled;
    }
}

bool TaskRunner::Running(TaskId id) const {
  return id != 0 && std::any_of(tasks_.begin(), tasks_.end(), [id](const Task& task) {
           return task.id == id && !task.cancelled;
         });
}

bool TaskRunner::Busy(const std::string& kind) const {
  return std::any_of(tasks_.begin(), tasks_.end(), [&kind](const Task& task) {
    return !task.cancelled && (kind.empty() || task.kind == kind);
  });
}

std::vector<TaskRunner::Task> TaskRunner::TakeFinished() {
  std::vector<Task> finished, still_running;
  for (Task& task : tasks_) {
    if (!task.finished->load(std::memory_order_acquire)) {
      still_running.push_back(std::move(task));
      continue;
    }
    task.thread.join();
    if (!task.cancelled) finished.push_back(std::move(task));
  }
  tasks_ = std::move(still_running);
  return finished;
}

int TaskRunner::Poll() {
  // Taken out first: a completion may start the next task (a queued save, another search).
  std::vector<Task> finished = TakeFinished();
  for (Task& task : finished) {
    ++stats_.delivered;
    (*task.completion)();
  }
  return static_cast<int>(finished.size());
}

void TaskRunner::Finish(TaskId id) {
  const auto it = std::find_if(tasks_.begin(), tasks_.end(), [id](const Task& t) { return t.id == id; });
  if (it == tasks_.end()) return;
  Task task = std::move(*it);
  tasks_.erase(it);
  task.thread.join();
  if (task.cancelled) return;
  ++stats_.delivered;
  (*task.completion)();
}

}  // namespace attnlab::app
