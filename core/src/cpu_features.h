#pragma once
/// What the processor running attnlab can do, asked once: the core's own kernels (gemm::scores,
/// kernels::exp_sum) are compiled for AVX2 with FMA whatever the build's flags, so that the portable
/// package (ATTNLAB_NATIVE=OFF) runs them too, and take a plain loop where the processor lacks them.
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ATTNLAB_X86_KERNELS 1
/// On a function: compiled for AVX2 and FMA; call it only when use_avx2_fma().
#define ATTNLAB_AVX2_FMA __attribute__((target("avx2,fma")))
#endif

namespace attnlab::cpu {

/// True where the processor has AVX2 and FMA, unless ATTNLAB_KERNELS=portable asks for the plain
/// loops: the suite runs the kernels' tests that way too (attnlab_tests_portable_kernels), since
/// every machine it runs on has AVX2.
inline bool use_avx2_fma() {
#if defined(ATTNLAB_X86_KERNELS)
  static const bool yes = [] {
    const char* asked = std::getenv("ATTNLAB_KERNELS");
    if (asked && std::strcmp(asked, "portable") == 0) return false;
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return yes;
#else
  return false;
#endif
}

}  // namespace attnlab::cpu
