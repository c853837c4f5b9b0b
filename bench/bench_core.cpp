// Google Benchmark targets for the core's stages (docs/PERFORMANCE.md). Shapes are N x E x H
// (tokens, d_model, heads; d_k = E / H). The stage benchmarks call the products core/src/attention.cpp
// calls (core/src/gemm.h: OpenBLAS or Eigen, or the own kernel; one thread), one head or one
// projection at a time; BM_Compute is the public compute_into() on the whole trace, on every core.
// Counters: FLOPs as in cli/cmd_bench.cpp.
//
//   build/bench/attnlab_bench                                  all of them
//   build/bench/attnlab_bench --benchmark_filter=Compute       the whole trace only
#include <benchmark/benchmark.h>

#include <array>

#include "attnlab/attention.h"
#include "attnlab/model.h"
#include "attnlab/random.h"
#include "gemm.h"  // core/src: the core's own products

namespace {

using attnlab::Matrix;

Matrix random(int rows, int cols, std::uint64_t stream) {
  attnlab::RandomSpec spec;
  spec.seed = 1;
  return attnlab::random_matrix(rows, cols, spec, stream);
}

/// Args: {N, E, H} for the shapes attnlab is compared at (bench/compare.py), small to large.
void Shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"N", "E", "H"});
  for (const auto& s : {std::array<int, 3>{8, 16, 2}, {64, 64, 4}, {256, 256, 8}, {1024, 512, 8}})
    b->Args({s[0], s[1], s[2]});
}

void SetFlops(benchmark::State& state, double flops_per_iteration) {
  state.counters["FLOP/s"] = benchmark::Counter(flops_per_iteration, benchmark::Counter::kIsIterationInvariantRate);
}

/// X W for one of Q, K, V over all heads at once: N x E times E x E (attention.cpp multiplies a
/// head's narrow block alone at small shapes: projection_heads()).
void BM_Projection(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0)), e = static_cast<int>(state.range(1));
  const Matrix X = random(n, e, 1), W = random(e, e, 2);
  Matrix out(n, e);
  for (auto _ : state) {
    attnlab::gemm::multiply(X, W, out);
    benchmark::DoNotOptimize(out.data());
  }
  SetFlops(state, 2.0 * n * e * e);
}

/// One head's scores S = Q K^T: N x d_k times d_k x N, K packed once as the projections pack it.
void BM_Scores(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0)), d_k = static_cast<int>(state.range(1) / state.range(2));
  const Matrix Q = random(n, d_k, 1), K = random(n, d_k, 2);
  attnlab::gemm::PackedKeys packed;
  packed.resize(n, d_k);
  attnlab::gemm::pack_keys(K, 0, n, packed);
  Matrix S(n, n);
  for (auto _ : state) {
    attnlab::gemm::scores(Q, packed, S);
    benchmark::DoNotOptimize(S.data());
  }
  SetFlops(state, 2.0 * n * n * d_k);
}

/// One head's softmax over the keys of an N x N score matrix (max, exp, sum, divide per row).
void BM_Softmax(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const Matrix logits = random(n, n, 3);
  for (auto _ : state) {
    Matrix A = attnlab::softmax_rows(logits);
    benchmark::DoNotOptimize(A.data());
  }
  state.counters["elements/s"] = benchmark::Counter(double(n) * n, benchmark::Counter::kIsIterationInvariantRate);
}

/// One head's weighted sum Y = A V: N x N times N x d_v, through the own kernel where V is narrow
/// (attention.cpp packs V as it is projected; here each run packs it again).
void BM_WeightedSum(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0)), d_v = static_cast<int>(state.range(1) / state.range(2));
  const Matrix A = random(n, n, 4), V = random(n, d_v, 5);
  Matrix Y(n, d_v);
  for (auto _ : state) {
    if (attnlab::gemm::narrow(d_v)) attnlab::gemm::multiply_narrow(A, V, Y);
    else attnlab::gemm::multiply(A, V, Y);
    benchmark::DoNotOptimize(Y.data());
  }
  SetFlops(state, 2.0 * n * n * d_v);
}

/// The whole trace, every stage, recomputed into the same Trace (as after an edit in the window).
void BM_Compute(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0)), e = static_cast<int>(state.range(1));
  attnlab::Scenario s;
  s.X = random(n, e, 1);
  s.num_heads = static_cast<int>(state.range(2));
  s.full.W_q = random(e, e, 2);
  s.full.W_k = random(e, e, 3);
  s.full.W_v = random(e, e, 4);
  s.W_o = random(e, e, 5);
  const attnlab::Model model = attnlab::resolve(s);
  attnlab::Trace trace;
  for (auto _ : state) {
    attnlab::compute_into(model, attnlab::Layout::rows, trace, nullptr, attnlab::Recompute::all);
    benchmark::DoNotOptimize(trace.output.data());
  }
  SetFlops(state, 8.0 * n * e * e + 4.0 * double(n) * n * e);
}

BENCHMARK(BM_Projection)->Apply(Shapes)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_Scores)->Apply(Shapes)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_Softmax)->Apply(Shapes)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_WeightedSum)->Apply(Shapes)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_Compute)->Apply(Shapes)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
