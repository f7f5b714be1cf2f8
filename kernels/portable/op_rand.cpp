// aten::rand.out (uniform on [0, 1)) and aten::randn.out (standard normal).
// Each instruction owns a SplitMix64 stream built by its prepare step: the
// stream's key mixes the seed last given to seed_portable_random() (a fixed
// default otherwise) with the number of rand/randn instructions prepared
// since, so loading the same program after the same seed draws the same
// numbers, and the stream advances across executes. Out is Float or Double;
// its elements are independent, so they are written in memory order.
#include <atomic>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/portable/creation.h"
#include "kernels/portable/util/checks.h"

namespace etr {
namespace {

constexpr uint64_t kDefaultSeed = 0x5eed5eed5eed5eedull;
constexpr uint64_t kGamma = 0x9e3779b97f4a7c15ull;

std::atomic<uint64_t> g_seed{kDefaultSeed};
std::atomic<uint64_t> g_streams{0};

uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

struct RandomState {
  uint64_t counter = 0;
  uint64_t next() { return mix64(counter += kGamma); }
  // Uniform on [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }
};

// A uniform on [0, 1) of type T (24 random bits for float, so no rounding up to 1).
template <typename T>
T draw_uniform(RandomState& s) {
  if constexpr (sizeof(T) == 4) {
    return static_cast<T>(s.next() >> 40) * T(0x1p-24);
  } else {
    return static_cast<T>(s.uniform());
  }
}

// Box-Muller: one standard normal from two uniforms (u1 in (0, 1]).
template <typename T>
T draw_normal(RandomState& s) {
  const double u1 = 1.0 - s.uniform();
  const double u2 = s.uniform();
  return static_cast<T>(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
}

Error random_prepare(KernelPrepareContext& ctx, IntArrayRef size, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_dtype_in(op, "out", out.dtype(), kFloatingTypes));
  ETR_RETURN_IF_ERROR(check_rank(op, "out", out, size.size()));
  RandomState* state = ctx.make_state<RandomState>();
  ETR_CHECK_OR_FAIL(state != nullptr, Error::MemoryAllocationFailed,
                    "%s: out of method memory for the generator state", op);
  const uint64_t stream = g_streams.fetch_add(1, std::memory_order_relaxed);
  state->counter = mix64(g_seed.load(std::memory_order_relaxed) ^ mix64(stream * kGamma + 1));
  ctx.set_state(state);
  return Error::Ok;
}

template <bool kNormal>
void random_run(KernelContext& ctx, IntArrayRef size, Tensor& out) {
  const char* op = ctx.op_name();
  RandomState* state = ctx.state<RandomState>();
  ETR_KERNEL_CHECK(ctx, state != nullptr, Error::Internal, "%s: run without prepare", op);
  ETR_KERNEL_TRY(ctx, resize_output(op, out, size));
  const int64_t n = out.numel();
  auto fill = [&](auto* p) {
    using T = std::remove_pointer_t<decltype(p)>;
    for (int64_t i = 0; i < n; ++i)
      p[i] = kNormal ? draw_normal<T>(*state) : draw_uniform<T>(*state);
  };
  if (out.dtype() == ScalarType::Float) {
    fill(out.data_ptr<float>());
  } else if (out.dtype() == ScalarType::Double) {
    fill(out.data_ptr<double>());
  } else {
    ETR_KERNEL_TRY(ctx, check_dispatched(op, false, out.dtype()));
  }
}

}  // namespace

void seed_portable_random(uint64_t seed) {
  g_seed.store(seed, std::memory_order_relaxed);
  g_streams.store(0, std::memory_order_relaxed);
}

Error rand_prepare(KernelPrepareContext& ctx, IntArrayRef size, Tensor& out) {
  return random_prepare(ctx, size, out);
}

void rand_out(KernelContext& ctx, IntArrayRef size, Tensor& out) {
  random_run<false>(ctx, size, out);
}

Error randn_prepare(KernelPrepareContext& ctx, IntArrayRef size, Tensor& out) {
  return random_prepare(ctx, size, out);
}

void randn_out(KernelContext& ctx, IntArrayRef size, Tensor& out) {
  random_run<true>(ctx, size, out);
}

}  // namespace etr
