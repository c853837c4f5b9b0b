#include "attnlab/memory.h"

#include <cstdlib>  // defines __GLIBC__ under glibc: without a C library header first, the test below is always false

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace attnlab {

void keep_freed_memory_for_reuse() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

}  // namespace attnlab
