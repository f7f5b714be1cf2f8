// GFLOP/s of the optimized kernels' GEMM engine (kernels/cpu_math/gemm.h)
// on the shapes of the benchmark models, on 1 and 2 threads. Prints figures only.
//   ./build/gemm_bench [--benchmark_filter=linear]
// Shapes: transformer linear layers (M tokens, weights B packed), MobileNetV2
// 1x1 convolutions C[co, hw] = W[co, ci] @ X[ci, hw] and ResNet-18 im2col
// convolutions (weights A packed), single-row products, and unpacked operands.
//
// The machine's limits, for bench/layer_efficiency.py:
//   ./build/gemm_bench --benchmark_filter='FmaPeak|Bandwidth'
// BM_FmaPeak: the core's FMA peak (GFLOP/s; 2 flops per lane per FMA) from 12
// independent chains of vector FMAs on registers (no memory traffic), with the widest
// instruction set this CPU has (AVX-512, AVX2+FMA; NEON on AArch64; plain C++ otherwise),
// on 1 and 2 threads. BM_Bandwidth: copy (b = a; 2 bytes moved per byte) and triad
// (a = b + s * c; 3) over arrays far larger than the caches (DRAM) and over 1 MiB ones
// (cache-resident, what small activations see), in GB/s.
#include <benchmark/benchmark.h>

#include <time.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define ETR_BENCH_X86 1
#elif defined(__aarch64__)
#include <arm_neon.h>
#define ETR_BENCH_NEON 1
#endif

#include "extension/threadpool/pthread_pool.h"
#include "kernels/cpu_math/cpu_features.h"
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
      // ResNet-50 / DenseNet-121 1x1 convolutions (co, hw, ci)
      {256, 3136, 64, kPackA},
      {64, 3136, 256, kPackA},
      {128, 3136, 256, kPackA},
      {512, 784, 128, kPackA},
      {128, 784, 512, kPackA},
      {1024, 196, 256, kPackA},
      {256, 196, 1024, kPackA},
      // ResNet-50 stride-2 3x3 convolution as im2col (co, hw, ci*9)
      {128, 784, 1152, kPackA},
      // wav2letter 1-D convolutions as im2col (co, width, ci*kw), output width 100
      {250, 100, 1750, kPackA},
      {512, 100, 2750, kPackA},
      {512, 100, 512, kPackA},
      // RegNetY-400MF 1x1 convolutions over 7x7 and 14x14 images (co, hw, ci)
      {440, 49, 440, kPackA},
      {208, 196, 208, kPackA},
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

// FMA peak. Each routine runs `iters` rounds of 12 independent FMA chains and returns
// the flops done (2 per lane per FMA). The 12 chains hide the FMA latency (4 cycles,
// 2 pipes on current x86 cores); the accumulators are stored so nothing is elided.
constexpr int kChains = 12;

#if defined(ETR_BENCH_X86)
__attribute__((target("avx2,fma"))) double fma_avx2(int64_t iters, float* sink) {
  __m256 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm256_set1_ps(0.001f * static_cast<float>(i));
  const __m256 a = _mm256_set1_ps(0.999f), b = _mm256_set1_ps(0.0001f);
  for (int64_t it = 0; it < iters; ++it) {
    for (int i = 0; i < kChains; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  }
  for (int i = 1; i < kChains; ++i) acc[0] = _mm256_add_ps(acc[0], acc[i]);
  _mm256_storeu_ps(sink, acc[0]);
  return 2.0 * 8.0 * kChains * static_cast<double>(iters);
}

__attribute__((target("avx512f"))) double fma_avx512(int64_t iters, float* sink) {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(0.001f * static_cast<float>(i));
  const __m512 a = _mm512_set1_ps(0.999f), b = _mm512_set1_ps(0.0001f);
  for (int64_t it = 0; it < iters; ++it) {
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  }
  for (int i = 1; i < kChains; ++i) acc[0] = _mm512_add_ps(acc[0], acc[i]);
  _mm512_storeu_ps(sink, acc[0]);
  return 2.0 * 16.0 * kChains * static_cast<double>(iters);
}
#elif defined(ETR_BENCH_NEON)
double fma_neon(int64_t iters, float* sink) {
  float32x4_t acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = vdupq_n_f32(0.001f * static_cast<float>(i));
  const float32x4_t a = vdupq_n_f32(0.999f), b = vdupq_n_f32(0.0001f);
  for (int64_t it = 0; it < iters; ++it) {
    for (int i = 0; i < kChains; ++i) acc[i] = vfmaq_f32(b, acc[i], a);
  }
  for (int i = 1; i < kChains; ++i) acc[0] = vaddq_f32(acc[0], acc[i]);
  vst1q_f32(sink, acc[0]);
  return 2.0 * 4.0 * kChains * static_cast<double>(iters);
}
#endif

double fma_scalar(int64_t iters, float* sink) {
  float acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = 0.001f * static_cast<float>(i);
  for (int64_t it = 0; it < iters; ++it) {
    for (int i = 0; i < kChains; ++i) acc[i] = acc[i] * 0.999f + 0.0001f;
  }
  for (int i = 1; i < kChains; ++i) acc[0] += acc[i];
  sink[0] = acc[0];
  return 2.0 * kChains * static_cast<double>(iters);
}

// The widest FMA routine this CPU runs, and its name.
using FmaFn = double (*)(int64_t, float*);
FmaFn widest_fma(const char** name) {
  const etr::opt::CpuFeatures& f = etr::opt::cpu_features();
  (void)f;
#if defined(ETR_BENCH_X86)
  if (f.avx512f) {
    *name = "avx512";
    return fma_avx512;
  }
  if (f.avx2_fma) {
    *name = "avx2_fma";
    return fma_avx2;
  }
#elif defined(ETR_BENCH_NEON)
  *name = "neon";
  return fma_neon;
#endif
  *name = "scalar";
  return fma_scalar;
}

// CPU seconds the calling thread has run (a shared machine's other processes do not
// count, so the limits come out as the core's own).
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Runs body(t) on `threads` threads (t = 0 on the caller) and returns the largest of
// their CPU times: the iteration time the two limits below report (manual time).
template <typename Body>
double run_on_threads(int threads, const Body& body) {
  std::vector<double> cpu(static_cast<size_t>(threads), 0.0);
  const auto timed = [&](int t) {
    const double start = thread_cpu_seconds();
    body(t);
    cpu[static_cast<size_t>(t)] = thread_cpu_seconds() - start;
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(timed, t);
  timed(0);
  for (std::thread& th : pool) th.join();
  double longest = 0.0;
  for (double c : cpu) longest = c > longest ? c : longest;
  return longest;
}

// Args: threads. Each thread runs the same loop; the time is the slowest thread's CPU time.
void BM_FmaPeak(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const char* isa = nullptr;
  const FmaFn fn = widest_fma(&isa);
  constexpr int64_t kIters = int64_t{1} << 18;
  std::vector<float> sink(static_cast<size_t>(threads) * 16);
  double flops = 0.0;
  for (auto _ : state) {
    state.SetIterationTime(run_on_threads(
        threads, [&](int t) { fn(kIters, sink.data() + 16 * static_cast<size_t>(t)); }));
    flops += 2.0 * kChains * static_cast<double>(kIters) * threads;  // per vector lane
    benchmark::DoNotOptimize(sink.data());
  }
  // Lanes per vector of the routine that ran, for the flop count above.
  const double lanes = std::strcmp(isa, "avx512") == 0     ? 16.0
                       : std::strcmp(isa, "avx2_fma") == 0 ? 8.0
                       : std::strcmp(isa, "neon") == 0     ? 4.0
                                                           : 1.0;
  state.SetLabel(isa);
  state.counters["GFLOPS"] = benchmark::Counter(flops * lanes * 1e-9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_FmaPeak)->ArgName("threads")->Arg(1)->Arg(2)->UseManualTime();

// Args: bytes per array, kind (0 copy, 1 triad), threads (each takes a contiguous share).
void BM_Bandwidth(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0)) / sizeof(float);
  const bool triad = state.range(1) == 1;
  const int threads = static_cast<int>(state.range(2));
  std::vector<float> a(n, 1.0f), b(n, 2.0f), c(n, 3.0f);
  const auto part = [&](int t) {
    const size_t lo = n * static_cast<size_t>(t) / threads;
    const size_t hi = n * static_cast<size_t>(t + 1) / threads;
    if (triad) {
      float* pa = a.data();
      const float* pb = b.data();
      const float* pc = c.data();
      for (size_t i = lo; i < hi; ++i) pa[i] = pb[i] + 0.5f * pc[i];
    } else {
      std::memcpy(b.data() + lo, a.data() + lo, (hi - lo) * sizeof(float));
    }
  };
  for (auto _ : state) {
    state.SetIterationTime(run_on_threads(threads, part));
    benchmark::ClobberMemory();
  }
  const double bytes = static_cast<double>(n * sizeof(float)) * (triad ? 3.0 : 2.0);
  state.SetLabel(triad ? "triad" : "copy");
  state.counters["GBps"] =
      benchmark::Counter(bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Bandwidth)
    ->ArgNames({"bytes", "triad", "threads"})
    ->Args({256 << 20, 0, 1})
    ->Args({256 << 20, 1, 1})
    ->Args({256 << 20, 0, 2})
    ->Args({256 << 20, 1, 2})
    ->Args({1 << 20, 0, 1})
    ->Args({1 << 20, 1, 1})
    ->Args({1 << 20, 0, 2})
    ->Args({1 << 20, 1, 2})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
