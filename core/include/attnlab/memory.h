#pragma once
/// Process-wide memory policy for programs that recompute traces (the window, attnlab-cli).

namespace attnlab {

/// Keeps memory the process frees for its next allocations rather than giving it back to the
/// kernel at once. resolve() and compute() allocate and free matrices of the same large sizes on
/// every edit; with glibc's defaults every block above 128 KiB went back to the kernel and came
/// back as fresh pages, each 4 KiB faulted in and zeroed: resolve() at 256 x 256 x 8 took 1.2 ms
/// instead of 0.4 ms, and 11.6 ms instead of 3.1 ms at 1024 x 512 x 8. Blocks up to 32 MiB now come
/// from the heap, which is trimmed only beyond 256 MiB free. No effect outside glibc.
void keep_freed_memory_for_reuse();

}  // namespace attnlab
