#include "task_pool.h"

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace attnlab::tasks {

namespace {

/// Waiting politely on a core that another thread may need.
inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

/// Pauses a helper spins for the next loop before it sleeps (~50 us): the three loops of one
/// computation follow each other within microseconds, and waking a sleeping thread costs more.
constexpr int kSpins = 2000;

struct Loop {
  std::int64_t count;
  const Body* body;
  int nice;  ///< the caller's
  /// The next task to claim: the one variable every thread writes, alone on its cache line.
  alignas(64) std::atomic<std::int64_t> next{0};
};

/// Claims and runs tasks until none is left.
void work_on(Loop& loop) {
  for (;;) {
    const std::int64_t i = loop.next.fetch_add(1, std::memory_order_relaxed);
    if (i >= loop.count) return;
    (*loop.body)(i);
  }
}

/// This thread's id for per-thread calls (one system call per thread, not one per loop).
id_t thread_id() {
  thread_local const auto id = static_cast<id_t>(syscall(SYS_gettid));
  return id;
}

/// Linux keeps a nice value per thread; this is the calling thread's.
int thread_nice() {
  errno = 0;
  const int nice = getpriority(PRIO_PROCESS, thread_id());
  return errno ? 0 : nice;
}

class Pool {
 public:
  explicit Pool(int helpers) {
    for (int i = 0; i < helpers; ++i) threads_.emplace_back([this] { helper(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  /// Runs the loop with the helpers; false (loop untouched) when another loop has them.
  bool run(Loop& loop) {
    if (busy_.exchange(true, std::memory_order_acquire)) return false;
    publish(&loop);
    wake_.notify_all();
    work_on(loop);
    publish(nullptr);  // no helper joins from now on: every helper that did is counted in inside_
    while (inside_.load(std::memory_order_acquire) > 0) relax();  // each leaves after its last task
    busy_.store(false, std::memory_order_release);
    return true;
  }

 private:
  void publish(Loop* loop) {
    std::lock_guard<std::mutex> lock(mutex_);
    loop_ = loop;
    if (loop) generation_.fetch_add(1, std::memory_order_release);
  }

  /// Waits for the next loop: false when the pool stops; `loop` null when the helper woke after
  /// that loop had finished.
  bool next_loop(std::uint64_t& seen, Loop*& loop) {
    for (int spin = 0; spin < kSpins && generation_.load(std::memory_order_acquire) == seen; ++spin) relax();
    std::unique_lock<std::mutex> lock(mutex_);
    wake_.wait(lock, [&] { return stop_ || generation_.load(std::memory_order_relaxed) != seen; });
    if (stop_) return false;
    seen = generation_.load(std::memory_order_relaxed);
    loop = loop_;
    if (loop) inside_.fetch_add(1, std::memory_order_acquire);
    return true;
  }

  void helper() {
    std::uint64_t seen = 0;
    int nice = thread_nice();
    Loop* loop = nullptr;
    while (next_loop(seen, loop)) {
      if (!loop) continue;
      adopt_nice(nice, loop->nice);
      work_on(*loop);
      inside_.fetch_sub(1, std::memory_order_release);
    }
  }

  /// A background caller's helper runs in the background too (raising nice needs no privilege;
  /// lowering it would, so it never goes back down).
  static void adopt_nice(int& nice, int wanted) {
    if (wanted > nice && setpriority(PRIO_PROCESS, thread_id(), wanted) == 0) nice = wanted;
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  Loop* loop_ = nullptr;        // guarded by mutex_
  std::atomic<std::uint64_t> generation_{0};  // loops published so far (written under mutex_)
  bool stop_ = false;           // guarded by mutex_
  std::atomic<int> inside_{0};  // helpers holding loop_
  std::atomic<bool> busy_{false};
  std::vector<std::thread> threads_;
};

int usable_cores() {
  if (const char* env = std::getenv("ATTNLAB_THREADS")) {
    const int n = std::atoi(env);
    if (n >= 1 && n <= 256) return n;
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

Pool& pool() {
  static Pool instance(threads() - 1);
  return instance;
}

}  // namespace

int threads() {
  static const int n = usable_cores();
  return n;
}

void run(std::int64_t count, const Body& body, bool parallel) {
  if (count <= 0) return;
  Loop loop{count, &body, 0};
  if (parallel && count > 1 && threads() > 1) {
    loop.nice = thread_nice();
    if (pool().run(loop)) return;
  }
  work_on(loop);
}

}  // namespace attnlab::tasks
