// keep_freed_memory_for_reuse(): glibc keeps large freed blocks for the next trace instead of
// returning them to the kernel (core/include/attnlab/memory.h). Each check starts from glibc's
// defaults, so a policy that silently does nothing fails here.
#include <gtest/gtest.h>

#include <cstdlib>

#include "attnlab/memory.h"
#include "hostile/generate.h"  // ATTNLAB_TEST_ASAN

#if defined(__GLIBC__) && !defined(ATTNLAB_TEST_ASAN)
#include <malloc.h>
#endif

namespace test_memory {

#if defined(__GLIBC__) && !defined(ATTNLAB_TEST_ASAN)
namespace {

constexpr std::size_t kTraceSizedBlock = 8u << 20;  // one head's scores at 1024 x 1024

/// glibc's documented defaults: blocks from 128 KiB on get their own mapping; the heap is trimmed
/// when 128 KiB are free at its top.
void restore_glibc_defaults() {
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  mallopt(M_TRIM_THRESHOLD, 128 * 1024);
}

TEST(Memory, LargeBlocksComeFromTheHeap) {
  restore_glibc_defaults();
  attnlab::keep_freed_memory_for_reuse();
  const std::size_t mapped_before = mallinfo2().hblks;
  void* block = std::malloc(kTraceSizedBlock);
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(mallinfo2().hblks, mapped_before) << "an 8 MiB block got its own mapping (page faults on every trace)";
  std::free(block);
}

TEST(Memory, FreedBlocksStayWithTheProcess) {
  restore_glibc_defaults();
  attnlab::keep_freed_memory_for_reuse();
  void* block = std::malloc(kTraceSizedBlock);
  ASSERT_NE(block, nullptr);
  const std::size_t heap_before = mallinfo2().arena;
  std::free(block);
  EXPECT_GE(mallinfo2().arena, heap_before) << "freeing 8 MiB trimmed the heap";
}

}  // namespace
#else
TEST(Memory, NeedsGlibcWithoutAddressSanitizer) {
  GTEST_SKIP() << "glibc's malloc policy is checked in builds on glibc without AddressSanitizer (its own allocator)";
}
#endif

}  // namespace test_memory
