// GFLOP/s of the optimized kernels' GEMM engine (kernels/cpu_math/gemm.h)
// on the shapes of the benchmark models, on 1 and 2 threads. Prints figures only.
//   ./build/gemm_bench [--benchmark_filter=linear]
// Shapes: transformer linear layers (M tokens, weights B packed), MobileNetV2
// 1x1 convolutions C[co, hw] = W[co, ci] @ X[ci, hw] and ResNet-18 im2col
// convolutions (weights A packed), single-row products, and unpacked operands.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "extension/threadpool/pthread_pool.h"
#include "kernels/cpu_math/gemm.h"

namespace {

using etr::opt::GemmArgs;
using etr::opt::MatrixView;
using etr::opt::PackedMatrix;

enum Packing { kNone = 0, kPackA = 1, kPackB = 2 };

etr::PthreadPool* pool_of(int64_t threads) {
  static std::unique_ptr<etr::PthreadPool> one = etr::PthreadPool::create(1);
  static std::unique_ptr<etr::PthreadPool> two = etr::PthreadPool::create(2);
  return threads == 1 ? one.get() : two.get();
}

// Args: m, n, k, packing, threads.
void BM_Gemm(benchmark::State& state) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const int packing = static_cast<int>(state.range(3));
  etr::PthreadPool* pool = pool_of(state.range(4));
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> a(static_cast<size_t>(m * k)), b(static_cast<size_t>(k * n));
  std::vector<float> c(static_cast<size_t>(m * n)), bias(static_cast<size_t>(n + m));
  for (float& v : a) v = dist(rng);
  for (float& v : b) v = dist(rng);
  for (float& v : bias) v = dist(rng);
  GemmArgs g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.a = MatrixView{a.data(), k, 1};
  g.b = MatrixView{b.data(), n, 1};
  g.c = c.data();
  g.ldc = n;
  std::vector<float> packed_a, packed_b;
  PackedMatrix pa, pb;
  if (packing == kPackA) {
    packed_a.resize(etr::opt::packed_a_bytes(m, k) / sizeof(float) + 16);
    pa = etr::opt::pack_a(g.a, m, k, packed_a.data());
    g.packed_a = &pa;
    g.epilogue.row_bias = bias.data();  // convolution: per output channel
    g.epilogue.lo = 0.0f;               // fused ReLU6
    g.epilogue.hi = 6.0f;
  } else if (packing == kPackB) {
    packed_b.resize(etr::opt::packed_b_bytes(k, n) / sizeof(float) + 16);
    pb = etr::opt::pack_b(g.b, k, n, packed_b.data());
    g.packed_b = &pb;
    g.epilogue.col_bias = bias.data();  // linear: per feature
  }
  std::vector<uint8_t> temp_bytes(etr::opt::gemm_scratch_bytes(g, pool->num_threads()) + 64);
  for (auto _ : state) {
    etr::MemoryAllocator temp(temp_bytes.data(), temp_bytes.size());
    if (etr::opt::gemm(g, &temp, pool) != etr::Error::Ok) {
      state.SkipWithError("gemm failed");
      break;
    }
    benchmark::ClobberMemory();
  }
  const double flops =
      2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  state.counters["GFLOPS"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void Shapes(benchmark::internal::Benchmark* bm, int64_t threads) {
  bm->ArgNames({"m", "n", "k", "pack", "threads"});
  const int64_t shapes[][4] = {
      // transformer.pte linear layers (x @ W^T, W packed): qkv, out, ffn1, ffn2
      {128, 768, 256, kPackB},
      {128, 256, 256, kPackB},
      {128, 1024, 256, kPackB},
      {128, 256, 1024, kPackB},
      // the same with B packed at run time (addmm on permute_copy output)
      {128, 768, 256, kNone},
      {128, 1024, 256, kNone},
      // MobileNetV2 1x1 convolutions (co, hw, ci)
      {96, 12544, 16, kPackA},
      {144, 3136, 24, kPackA},
      {192, 784, 32, kPackA},
      {64, 196, 384, kPackA},
      {576, 196, 96, kPackA},
      {960, 49, 160, kPackA},
      {1280, 49, 320, kPackA},
      // ResNet-18 3x3 convolutions as im2col (co, hw, ci*9)
      {64, 3136, 576, kPackA},
      {128, 784, 1152, kPackA},
      {256, 196, 2304, kPackA},
      {512, 49, 4608, kPackA},
      // single row (batch-1 linear)
      {1, 1024, 256, kPackB},
      {1, 256, 1024, kPackB},
      // square, unpacked
      {512, 512, 512, kNone},
  };
  for (const auto& s : shapes) bm->Args({s[0], s[1], s[2], s[3], threads});
}
void Shapes1(benchmark::internal::Benchmark* bm) { Shapes(bm, 1); }
void Shapes2(benchmark::internal::Benchmark* bm) { Shapes(bm, 2); }

// One thread: CPU time (steady on a shared machine); two threads: wall time.
BENCHMARK(BM_Gemm)->Apply(Shapes1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Gemm)->Apply(Shapes2)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
