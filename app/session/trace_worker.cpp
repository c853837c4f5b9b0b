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

void SwapHeadAhead(attnlab::Trace& trace, int index, attnlab::Trace& ahead) {
  using std::swap;
  swap(trace.heads[std::size_t(index)], ahead.heads.front());
  swap(trace.scale, ahead.scale);
  swap(trace.allowed, ahead.allowed);
  swap(trace.X_pos, ahead.X_pos);
  swap(trace.Z_pos, ahead.Z_pos);
  swap(trace.slopes, ahead.slopes);
  swap(trace.query_positions, ahead.query_positions);
  swap(trace.key_positions, ahead.key_positions);
}

void CopyHeadAhead(const attnlab::Trace& trace, int index, attnlab::Trace& ahead) {
  ahead.layout = trace.layout;
  ahead.heads.resize(1);
  ahead.heads.front() = trace.heads[std::size_t(index)];
  ahead.scale = trace.scale;
  ahead.allowed = trace.allowed;
  ahead.X_pos = trace.X_pos;
  ahead.Z_pos = trace.Z_pos;
  ahead.slopes = trace.slopes;
  ahead.query_positions = trace.query_positions;
  ahead.key_positions = trace.key_positions;
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

void TraceWorker::Request(ScenarioVersion input, int first_head) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.requests;
    if (pending_.scenario) ++stats_.superseded;
    latest_version_ = input.version;
    pending_ = std::move(input);
    pending_first_head_ = first_head;
    // A computation still owing its head ahead goes on until it has handed it over (HeadReady).
    if (running_ && head_ahead_done_) cancel_ = true;
    if (back_ready_ && back_result_.computed_from.version != latest_version_) {
      back_ready_ = false;  // finished but already old: never shown, buffer free again
      back_result_ = {};
      ++stats_.discarded;
    }
  }
  wake_.notify_all();  // the worker may also wait in HeadReady (HoldRestAfterHead)
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

bool TraceWorker::TakeHead(std::uint64_t shown, attnlab::Trace& head, Head* which) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!ahead_ready_) return false;
  ahead_ready_ = false;
  if (ahead_head_.computed_from.version <= shown) return false;  // the UI has newer numbers
  std::swap(head, ahead_);  // O(1): the matrices swap buffers
  *which = std::move(ahead_head_);
  ahead_head_ = {};
  ++stats_.heads_ahead;
  return true;
}

void TraceWorker::HeadReady(const Result& job, int index) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ahead_ready_ = false;  // an older head not yet taken: its buffer is ours again
  }
  CopyHeadAhead(back_, index, ahead_);  // the other heads are still being computed in back_
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ahead_head_ = {index, job.computed_from};
    ahead_ready_ = true;
    head_ahead_done_ = true;
  }
  if (on_result_) on_result_();
  std::unique_lock<std::mutex> lock(mutex_);
  wake_.wait(lock, [this] { return !hold_rest_ || stop_ || pending_.scenario; });
  if (pending_.scenario) cancel_ = true;  // the rest of this version would never be shown
}

void TraceWorker::HoldRestAfterHead(bool hold) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    hold_rest_ = hold;
  }
  wake_.notify_all();
}

void TraceWorker::NoHeadAhead() {
  std::lock_guard<std::mutex> lock(mutex_);
  head_ahead_done_ = true;
  if (pending_.scenario) cancel_ = true;
}

bool TraceWorker::Busy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return pending_.scenario || running_ || back_ready_;
}

TraceWorker::Stats TraceWorker::GetStats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

bool TraceWorker::Compute(Result& job, int first_head) {
  ScenarioVersion& in = job.computed_from;
  try {
    if (!in.model) {
      in.model = std::make_shared<const attnlab::Model>(attnlab::resolve(in.scenario));
      std::lock_guard<std::mutex> lock(mutex_);
      ++stats_.resolves;
    }
    if (first_head >= in.model->num_heads || in.model->num_heads < 2) NoHeadAhead();
    // The back buffer is ours until back_ready_: compute_into reuses its memory.
    const attnlab::FirstHead first{first_head, [&](const attnlab::Trace&) { HeadReady(job, first_head); }};
    return attnlab::compute_into(*in.model, in.scenario->layout, back_, &cancel_, attnlab::Recompute::changed,
                                 first_head >= 0 ? &first : nullptr);
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
    const int first_head = std::exchange(pending_first_head_, -1);
    running_ = true;
    head_ahead_done_ = first_head < 0;
    cancel_ = false;
    ++stats_.started;
    lock.unlock();
    const bool complete = Compute(job, first_head);
    lock.lock();
    running_ = false;
    head_ahead_done_ = true;
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
