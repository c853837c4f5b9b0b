#include "exp_kernel.h"

#include <algorithm>
#include <cmath>

#include "cpu_features.h"
#if defined(ATTNLAB_X86_KERNELS)
#include <immintrin.h>
#endif

namespace attnlab::kernels {

namespace {

#if defined(ATTNLAB_X86_KERNELS)

/// 1/k! + r/(k+1)!: two terms of exp(r)'s Taylor series.
ATTNLAB_AVX2_FMA __m256d taylor_pair(__m256d r, int k) {
  static constexpr double kInverseFactorial[] = {1.0,         1.0,          1.0 / 2,         1.0 / 6,
                                                 1.0 / 24,    1.0 / 120,    1.0 / 720,       1.0 / 5040,
                                                 1.0 / 40320, 1.0 / 362880, 1.0 / 3628800,   1.0 / 39916800,
                                                 1.0 / 479001600, 1.0 / 6227020800.0};
  return _mm256_fmadd_pd(r, _mm256_set1_pd(kInverseFactorial[k + 1]), _mm256_set1_pd(kInverseFactorial[k]));
}

/// exp(x) = 2^n exp(r), n = round(x / ln 2), r = x - n ln 2 in [-0.35, 0.35] (ln 2 in two parts,
/// fdlibm's, so that n ln2_hi is exact), exp(r) by its Taylor series to r^13 (the next term is
/// below 1e-17 relative), 2^n written into the exponent's bits.
ATTNLAB_AVX2_FMA __m256d exp4(__m256d x) {
  // Below -708 the bits of 2^n below would be wrong (-inf from -1024): there the result is exp(-708)
  // instead (callers replace it by 0). The bound first, so that NaN stays NaN.
  x = _mm256_max_pd(_mm256_set1_pd(-708.0), x);
  const __m256d n = _mm256_round_pd(_mm256_mul_pd(x, _mm256_set1_pd(1.4426950408889634)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256d r = _mm256_fnmadd_pd(n, _mm256_set1_pd(6.93147180369123816490e-01), x);
  r = _mm256_fnmadd_pd(n, _mm256_set1_pd(1.90821492927058770002e-10), r);
  // exp(r) = sum of r^k / k! for k <= 13, in Estrin's order: pairs c_k + c_{k+1} r, then pairs of
  // pairs with r^2, r^4, r^8. A chain of 5 dependent steps where Horner's is 13: 1.8 -> 1.7 ns a
  // number, within 2 ulps (Horner's: 0.6).
  const __m256d r2 = _mm256_mul_pd(r, r), r4 = _mm256_mul_pd(r2, r2), r8 = _mm256_mul_pd(r4, r4);
  const __m256d p01 = _mm256_add_pd(_mm256_set1_pd(1.0), r), p23 = taylor_pair(r, 2);
  const __m256d p45 = taylor_pair(r, 4), p67 = taylor_pair(r, 6), p89 = taylor_pair(r, 8);
  const __m256d p1011 = taylor_pair(r, 10), p1213 = taylor_pair(r, 12);
  const __m256d p03 = _mm256_fmadd_pd(p23, r2, p01), p47 = _mm256_fmadd_pd(p67, r2, p45);
  const __m256d p811 = _mm256_fmadd_pd(p1011, r2, p89);
  const __m256d p07 = _mm256_fmadd_pd(p47, r4, p03), p813 = _mm256_fmadd_pd(p1213, r4, p811);
  const __m256d p = _mm256_fmadd_pd(p813, r8, p07);
  // 2^n for n in [-1022, 1023]: (n + 1023) << 52. Above 709 the bits are wrong; softmax's
  // arguments are at most 0.
  const __m256i biased = _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_cvtpd_epi32(n)), _mm256_set1_epi64x(1023));
  return _mm256_mul_pd(p, _mm256_castsi256_pd(_mm256_slli_epi64(biased, 52)));
}

ATTNLAB_AVX2_FMA double exp_sum_avx2(const double* in, double scale, double shift, double* out, Eigen::Index n) {
  const __m256d s = _mm256_set1_pd(scale), m = _mm256_set1_pd(shift);
  __m256d sum = _mm256_setzero_pd();
  Eigen::Index j = 0;
  for (; j + 4 <= n; j += 4) {
    const __m256d e = exp4(_mm256_sub_pd(_mm256_mul_pd(_mm256_loadu_pd(in + j), s), m));
    _mm256_storeu_pd(out + j, e);
    sum = _mm256_add_pd(sum, e);
  }
  if (j < n) {  // the last 1 to 3, through the same lanes (the others read and write nothing)
    const __m256i lanes = _mm256_cmpgt_epi64(_mm256_set1_epi64x(n - j), _mm256_setr_epi64x(0, 1, 2, 3));
    const __m256d e = exp4(_mm256_sub_pd(_mm256_mul_pd(_mm256_maskload_pd(in + j, lanes), s), m));
    _mm256_maskstore_pd(out + j, lanes, e);
    sum = _mm256_add_pd(sum, _mm256_and_pd(e, _mm256_castsi256_pd(lanes)));
  }
  alignas(32) double parts[4];
  _mm256_store_pd(parts, sum);
  return (parts[0] + parts[1]) + (parts[2] + parts[3]);
}

#endif

}  // namespace

double exp_sum(const double* in, double scale, double shift, double* out, Eigen::Index n) {
#if defined(ATTNLAB_X86_KERNELS)
  if (cpu::use_avx2_fma()) return exp_sum_avx2(in, scale, shift, out, n);
#endif
  // Without AVX2: the C library's exp, summed in the AVX2 kernel's four lanes and order. One running
  // sum lost up to half an ulp of the maximum's 1 at each of a row's tiny terms (1.6e-15 in a row of
  // 20 where the AVX2 kernel was off by 4e-16).
  double lanes[4] = {0, 0, 0, 0};
  for (Eigen::Index j = 0; j < n; ++j) lanes[j % 4] += out[j] = std::exp(std::max(in[j] * scale - shift, -708.0));
  return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
}

}  // namespace attnlab::kernels
