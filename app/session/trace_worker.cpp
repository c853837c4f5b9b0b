#include "session/trace_worker.h"

#include <exception>
#include <memory>
#include <utility>

#ifdef __linux__
#include <sys/resource.h>
#include <unistd.h>
#endif

#include "attnlab/attention.h"
#include "attnlab/model.h"

namespace attnlab::app {
namespace {

// The largest synchronous trace: 256 tokens x 256 wide x 8 heads is about 2e8 FLOPs and 2M N x N
// cells (8 to 12 ms on one core, docs/PERFORMANCE.md), and the issue wants edits of it drawn in
// the same frame. Anything bigger would hold the UI thread past a frame.
constexpr double kMaxSyncFlops = 2.5e8;
constexpr double kMaxSyncCells = 1 << 20;  // H x n_x x n_z: four such stages are written

// The worker and the core's helper threads (which adopt the nice value of the thread whose loop
// they run when it is higher: core/src/task_pool.h) yield to the UI thread and to llvmpipe's
// rasterisers when the cores are short: a frame is never starved by our own computation. Nice 5
// weighs about a third of the UI thread under Linux's scheduler.
constexpr int kWorkerNice = 5;

void LowerThreadPriority() {
#ifdef __linux__
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kWorkerNice);  // Linux: per thread
#endif
}

// Width of the projection of a d-wide input by `w` (absent = identity: d).
double ProjectedWidth(const std::optional<attnlab::Matrix>& w, bool rows, double d) {
  if (!w) return d;
  return static_cast<double>(rows ? w->cols() : w->rows());
}

void AddShape(std::vector<long>& key, const attnlab::Matrix& m) {  // never via optional: a copy
  key.push_back(static_cast<long>(m.rows()));
  key.push_back(static_cast<long>(m.cols()));
}

void AddShape(std::vector<long>& key, const std::optional<attnlab::Matrix>& m) {
  key.push_back(m ? static_cast<long>(m->rows()) : -1);
  key.push_back(m ? static_cast<long>(m->cols()) : -1);
}

void AddShapes(std::vector<long>& key, const attnlab::Projections& p) {
  AddShape(key, p.W_q);
  AddShape(key, p.W_k);
  AddShape(key, p.W_v);
}

}  // namespace

bool ComputeOffThread(const attnlab::Scenario& s) {
  const bool rows = s.layout == attnlab::Layout::rows;
  const double n_x = s.n_x(), n_z = s.n_z(), d_x = s.d_x(), d_z = s.d_z();
  double qk = 0, v = 0;  // total projected widths over all heads
  if (s.per_head()) {
    for (const attnlab::Projections& p : s.heads) {
      qk += ProjectedWidth(p.W_q, rows, d_x);
      v += ProjectedWidth(p.W_v, rows, d_z);
    }
  } else {
    qk = ProjectedWidth(s.full.W_q, rows, d_x);
    v = ProjectedWidth(s.full.W_v, rows, d_z);
  }
  // Projections, scores, weighted sums and W_o: 2 FLOPs per multiply-add.
  double flops = 2 * n_x * d_x * qk + 2 * n_z * d_z * (qk + v) + 2 * n_x * n_z * (qk + v);
  if (s.W_o) flops += 2 * n_x * v * ProjectedWidth(s.W_o, rows, v);
  const double cells = static_cast<double>(s.head_count()) * n_x * n_z;
  return flops > kMaxSyncFlops || cells > kMaxSyncCells;
}

std::vector<long> TraceShapeKey(const attnlab::Scenario& s) {
  std::vector<long> key{static_cast<long>(s.layout), s.num_heads, static_cast<long>(s.heads.size())};
  AddShape(key, s.X);
  AddShape(key, s.Z);
  AddShapes(key, s.full);
  for (const attnlab::Projections& p : s.heads) AddShapes(key, p);
  AddShape(key, s.W_o);
  return key;
}

TraceWorker::TraceWorker(std::function<void()> on_result)
    : on_result_(std::move(on_result)), thread_([this] { Run(); }) {}

TraceWorker::~TraceWorker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    cancel_ = true;  // exit without waiting for a computation nobody will see
  }
  wake_.notify_all();
  thread_.join();
}

void TraceWorker::Request(ScenarioVersion input) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.requests;
    if (pending_.scenario) ++stats_.superseded;
    latest_version_ = input.version;
    pending_ = std::move(input);
    if (running_) cancel_ = true;
    if (back_ready_ && back_result_.computed_from.version != latest_version_) {
      back_ready_ = false;  // finished but already old: never shown, buffer free again
      back_result_ = {};
      ++stats_.discarded;
    }
  }
  wake_.notify_one();
}

bool TraceWorker::TakeResult(std::uint64_t version, attnlab::Trace& trace, Result* result) {
  bool taken = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!back_ready_) return false;
    if (back_result_.computed_from.version == version) {
      if (back_result_.error.empty()) std::swap(trace, back_);  // O(1): the matrices swap buffers
      *result = std::move(back_result_);
      ++stats_.delivered;
      taken = true;
    } else {
      ++stats_.discarded;  // e.g. the document became small and was computed in place
    }
    back_result_ = {};
    back_ready_ = false;
  }
  wake_.notify_one();  // the worker may be waiting for its buffer
  return taken;
}

bool TraceWorker::Busy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return pending_.scenario || running_ || back_ready_;
}

TraceWorker::Stats TraceWorker::GetStats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

bool TraceWorker::Compute(Result& job) {
  ScenarioVersion& in = job.computed_from;
  try {
    if (!in.model) {
      in.model = std::make_shared<const attnlab::Model>(attnlab::resolve(in.scenario));
      std::lock_guard<std::mutex> lock(mutex_);
      ++stats_.resolves;
    }
    // The back buffer is ours until back_ready_: compute_into reuses its memory.
    return attnlab::compute_into(*in.model, in.scenario->layout, back_, &cancel_);
  } catch (const std::exception& e) {
    job.error = e.what();
    return true;
  }
}

void TraceWorker::Run() {
  LowerThreadPriority();
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stop_ || (pending_.scenario && !back_ready_); });
    if (stop_) return;
    Result job{std::exchange(pending_, {}), {}};
    running_ = true;
    cancel_ = false;
    ++stats_.started;
    lock.unlock();
    const bool complete = Compute(job);
    lock.lock();
    running_ = false;
    if (!complete) {
      ++stats_.cancelled;  // a newer request is pending (or the window closes)
      continue;
    }
    if (job.computed_from.version != latest_version_) {
      ++stats_.discarded;  // a newer request arrived too late to cancel: it is pending
      continue;
    }
    back_result_ = std::move(job);
    back_ready_ = true;
    if (on_result_) {
      lock.unlock();
      on_result_();
      lock.lock();
    }
  }
}

}  // namespace attnlab::app
