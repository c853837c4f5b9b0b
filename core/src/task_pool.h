#pragma once
/// Parallel loops for the attention core that never wait for a core that is busy elsewhere.
///
/// run(count, body) calls body(0) ... body(count - 1), each exactly once, on the calling thread
/// and on helper threads (one per other core, started on first use). The caller takes tasks
/// itself and returns when every task is done; it waits for a helper only while that helper is
/// inside a task it took. A helper that has not woken up yet (its core is busy: another program,
/// Mesa's rasterisers) takes nothing and costs nothing: the work is never slower than on one
/// thread by more than one task. (An OpenMP loop, in contrast, waits at its barrier for every
/// thread of the team: measured 12 ms instead of 0.1 ms for a 64-token trace while a compiler
/// ran on the other core.)
///
/// One loop at a time uses the helpers; a loop started while another runs (the window's worker
/// and UI threads) runs on its caller alone. Helpers take the caller's nice value when it is
/// higher (a background computation stays in the background).
#include <cstdint>
#include <functional>

namespace attnlab::tasks {

using Body = std::function<void(std::int64_t)>;

/// Runs body(i) for every i in [0, count); returns when all are done. `parallel` false: on the
/// caller alone (small loops, where waking a helper costs more than it saves). `body` must not
/// throw: on a helper thread an exception ends the program (std::terminate), and nothing hands it
/// to the caller.
void run(std::int64_t count, const Body& body, bool parallel = true);

/// Threads that may work on one loop: 1 + helpers (the cores this process may use).
int threads();

}  // namespace attnlab::tasks
