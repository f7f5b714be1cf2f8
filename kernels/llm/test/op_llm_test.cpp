// The llama:: kernels against PyTorch's values (llm_op_refs.h, written by
// make_llm_op_refs.py from plain torch math), and their refusals: positions
// past the cache, mismatched sizes and dtypes, masks of the wrong shape.
// Every attention case runs single-threaded and on a 3-thread pool.
#include <cmath>
#include <memory>
#include <optional>

#include "kernels/cpu_math/cpu_features.h"
#include "kernels/llm/llm_kernels.h"
#include "kernels/llm/test/llm_op_refs.h"
#include "kernels/llm/test/llm_test_support.h"
#include "kernels/llm/util/attention_math.h"
#include "kernels/test/kernel_test_util.h"

namespace etr {
namespace testing {
namespace {

using namespace llm_refs;

std::vector<ThreadPool*> pools() { return llm_test_pools(); }

// Attention outputs: float32 against float64 math rounded to float32.
void expect_attention(const std::vector<float>& actual, const std::vector<float>& expected) {
  expect_close(actual, expected, 1e-5, 2e-6);
}

// custom_sdpa(q, k, v, start_pos, mask, 0.0, causal, scale) into a fresh out.
std::vector<float> run_custom_sdpa(ThreadPool* pool, std::vector<int32_t> q_sizes,
                                   const std::vector<float>& q, std::vector<int32_t> kv_sizes,
                                   const std::vector<float>& k, const std::vector<float>& v,
                                   int64_t start_pos, const std::vector<float>* mask,
                                   std::vector<int32_t> mask_sizes, bool causal,
                                   std::optional<double> scale) {
  HostTensor tq = make_tensor<float>(q_sizes, q);
  HostTensor tk = make_tensor<float>(kv_sizes, k);
  HostTensor tv = make_tensor<float>(kv_sizes, v);
  HostTensor out = zeros_tensor(ScalarType::Float, q_sizes);
  HostTensor tm = make_tensor<float>(mask == nullptr ? std::vector<int32_t>{0, 0} : mask_sizes,
                                     mask == nullptr ? std::vector<float>{} : *mask);
  KernelRunner r(llm_registry(), pool);
  EXPECT_EQ(r.run("llama::custom_sdpa.out",
                  {r.tensor(tq), r.tensor(tk), r.tensor(tv), r.i(start_pos),
                   mask == nullptr ? r.none() : r.tensor(tm), r.d(0.0), r.b(causal),
                   scale.has_value() ? r.d(*scale) : r.none(), r.tensor(out)}),
            Error::Ok);
  // The caches are inputs here: untouched.
  EXPECT_EQ(tk.values<float>(), k);
  EXPECT_EQ(tv.values<float>(), v);
  return out.values<float>();
}

TEST(LlmUpdateCacheTest, WritesValueAtStartPos) {
  HostTensor value = make_tensor<float>({1, 3, 2, 4}, kUpdValue);
  HostTensor cache = make_tensor<float>({1, 8, 2, 4}, kUpdCache);
  HostTensor out = zeros_tensor(ScalarType::Float, {1});
  KernelRunner r(llm_registry(), nullptr);
  ASSERT_EQ(
      r.run("llama::update_cache.out", {r.tensor(value), r.tensor(cache), r.i(4), r.tensor(out)}),
      Error::Ok);
  EXPECT_EQ(cache.values<float>(), kUpdExpected);
}

TEST(LlmUpdateCacheTest, Int8Cache) {
  HostTensor value = make_tensor<int8_t>({1, 2, 1, 3}, kUpdI8Value);
  HostTensor cache = make_tensor<int8_t>({1, 4, 1, 3}, kUpdI8Cache);
  HostTensor out = zeros_tensor(ScalarType::Char, {1});
  KernelRunner r(llm_registry(), nullptr);
  ASSERT_EQ(
      r.run("llama::update_cache.out", {r.tensor(value), r.tensor(cache), r.i(1), r.tensor(out)}),
      Error::Ok);
  EXPECT_EQ(cache.values<int8_t>(), kUpdI8Expected);
}

TEST(LlmUpdateCacheTest, RefusesPositionsPastTheCacheAndLeavesItUntouched) {
  HostTensor value = make_tensor<float>({1, 3, 2, 4}, kUpdValue);
  HostTensor cache = make_tensor<float>({1, 8, 2, 4}, kUpdCache);
  HostTensor out = zeros_tensor(ScalarType::Float, {1});
  // 6 + 3 > 8, a negative start, and one far past the end.
  for (int64_t start : {int64_t{6}, int64_t{-1}, int64_t{1} << 40}) {
    KernelRunner r(llm_registry(), nullptr);
    EXPECT_EQ(r.run("llama::update_cache.out",
                    {r.tensor(value), r.tensor(cache), r.i(start), r.tensor(out)}),
              Error::InvalidArgument)
        << "start_pos " << start;
    EXPECT_EQ(cache.values<float>(), kUpdCache);
  }
  // The last position that fits is accepted.
  KernelRunner ok(llm_registry(), nullptr);
  EXPECT_EQ(ok.run("llama::update_cache.out",
                   {ok.tensor(value), ok.tensor(cache), ok.i(5), ok.tensor(out)}),
            Error::Ok);
}

TEST(LlmUpdateCacheTest, RefusesMismatchedSizesAndDtypes) {
  HostTensor value = make_tensor<float>({1, 3, 2, 4}, kUpdValue);
  HostTensor out = zeros_tensor(ScalarType::Float, {1});
  // Heads (dim 2) and head_dim (dim 3) differ: refused at run, nothing written.
  for (std::vector<int32_t> sizes :
       {std::vector<int32_t>{1, 8, 4, 2}, {1, 4, 2, 8}, {2, 8, 1, 4}}) {
    HostTensor cache = make_tensor<float>(sizes, kUpdCache);
    KernelRunner r(llm_registry(), nullptr);
    EXPECT_EQ(
        r.run("llama::update_cache.out", {r.tensor(value), r.tensor(cache), r.i(0), r.tensor(out)}),
        Error::InvalidArgument);
    EXPECT_EQ(cache.values<float>(), kUpdCache);
  }
  // A Double cache for Float values: refused at load.
  HostTensor dcache = zeros_tensor(ScalarType::Double, {1, 8, 2, 4});
  KernelRunner r(llm_registry(), nullptr);
  EXPECT_EQ(r.prepare("llama::update_cache.out",
                      {r.tensor(value), r.tensor(dcache), r.i(0), r.tensor(out)}),
            Error::InvalidArgument);
  // A rank-3 cache: refused at load.
  HostTensor flat = zeros_tensor(ScalarType::Float, {8, 2, 4});
  KernelRunner r3(llm_registry(), nullptr);
  EXPECT_EQ(r3.prepare("llama::update_cache.out",
                       {r3.tensor(value), r3.tensor(flat), r3.i(0), r3.tensor(out)}),
            Error::InvalidArgument);
}

TEST(LlmUpdateCacheTest, WithIndicesWritesEachPosition) {
  HostTensor value = make_tensor<float>({2, 2, 2, 3}, kIdxValue);
  HostTensor cache = make_tensor<float>({2, 6, 2, 3}, kIdxCache);
  HostTensor idx = make_tensor<int64_t>({2, 2}, kIdxIndices);
  HostTensor out = zeros_tensor(ScalarType::Float, {1});
  KernelRunner r(llm_registry(), nullptr);
  // start_pos is not used when indices are given.
  ASSERT_EQ(r.run("llama::update_cache_with_indices.out",
                  {r.tensor(value), r.tensor(cache), r.i(99), r.tensor(idx), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(cache.values<float>(), kIdxExpected);
}

TEST(LlmUpdateCacheTest, WithIndicesRefusesAnIndexOutsideTheCache) {
  HostTensor value = make_tensor<float>({2, 2, 2, 3}, kIdxValue);
  HostTensor out = zeros_tensor(ScalarType::Float, {1});
  for (int64_t bad : {int64_t{6}, int64_t{-1}}) {
    HostTensor cache = make_tensor<float>({2, 6, 2, 3}, kIdxCache);
    HostTensor idx = make_tensor<int64_t>({2, 2}, {5, 0, 2, bad});
    KernelRunner r(llm_registry(), nullptr);
    EXPECT_EQ(r.run("llama::update_cache_with_indices.out",
                    {r.tensor(value), r.tensor(cache), r.i(0), r.tensor(idx), r.tensor(out)}),
              Error::InvalidArgument);
    // Checked before any write: the first three positions were valid but are not written.
    EXPECT_EQ(cache.values<float>(), kIdxCache);
  }
  // Indices of the wrong shape and of dtype Int.
  HostTensor cache = make_tensor<float>({2, 6, 2, 3}, kIdxCache);
  HostTensor short_idx = make_tensor<int64_t>({2, 1}, {0, 1});
  KernelRunner r(llm_registry(), nullptr);
  EXPECT_EQ(r.run("llama::update_cache_with_indices.out",
                  {r.tensor(value), r.tensor(cache), r.i(0), r.tensor(short_idx), r.tensor(out)}),
            Error::InvalidArgument);
  HostTensor int_idx = make_tensor<int32_t>({2, 2}, {0, 1, 2, 3});
  KernelRunner r2(llm_registry(), nullptr);
  EXPECT_EQ(
      r2.prepare("llama::update_cache_with_indices.out",
                 {r2.tensor(value), r2.tensor(cache), r2.i(0), r2.tensor(int_idx), r2.tensor(out)}),
      Error::InvalidArgument);
}

TEST(LlmCustomSdpaTest, PrefillCausalGqa) {
  for (ThreadPool* pool : pools()) {
    expect_attention(run_custom_sdpa(pool, {1, 5, 4, 8}, kPrefillQ, {1, 16, 2, 8}, kPrefillK,
                                     kPrefillV, 0, nullptr, {}, true, std::nullopt),
                     kPrefillExpected);
  }
}

TEST(LlmCustomSdpaTest, DecodeAtStartPos7) {
  for (ThreadPool* pool : pools()) {
    expect_attention(run_custom_sdpa(pool, {1, 1, 4, 8}, kDecodeQ, {1, 16, 2, 8}, kDecodeK,
                                     kDecodeV, 7, nullptr, {}, true, std::nullopt),
                     kDecodeExpected);
    // One query at the last position sees every key up to it: causal or not, the same.
    expect_attention(run_custom_sdpa(pool, {1, 1, 4, 8}, kDecodeQ, {1, 16, 2, 8}, kDecodeK,
                                     kDecodeV, 7, nullptr, {}, false, std::nullopt),
                     kDecodeExpected);
  }
}

TEST(LlmCustomSdpaTest, ExplicitAdditiveMask) {
  for (ThreadPool* pool : pools()) {
    expect_attention(run_custom_sdpa(pool, {1, 3, 4, 8}, kMaskQ, {1, 10, 2, 8}, kMaskK, kMaskV, 2,
                                     &kMaskMask, {3, 10}, false, std::nullopt),
                     kMaskExpected);
  }
}

TEST(LlmCustomSdpaTest, NonDefaultScaleBatchTwo) {
  for (ThreadPool* pool : pools()) {
    expect_attention(run_custom_sdpa(pool, {2, 5, 2, 8}, kScaleQ, {2, 12, 2, 8}, kScaleK, kScaleV,
                                     3, nullptr, {}, true, 0.3),
                     kScaleExpected);
  }
}

TEST(LlmCustomSdpaTest, NotCausalSeesEveryKey) {
  for (ThreadPool* pool : pools()) {
    expect_attention(run_custom_sdpa(pool, {1, 4, 2, 8}, kFullQ, {1, 9, 1, 8}, kFullK, kFullV, 2,
                                     nullptr, {}, false, std::nullopt),
                     kFullExpected);
  }
}

TEST(LlmCustomSdpaTest, SeveralQueryAndKeyBlocks) {
  for (ThreadPool* pool : pools()) {
    expect_attention(run_custom_sdpa(pool, {1, 20, 4, 8}, kLongQ, {1, 160, 1, 8}, kLongK, kLongV,
                                     130, nullptr, {}, true, std::nullopt),
                     kLongExpected);
  }
}

TEST(LlmCustomSdpaTest, Double) {
  HostTensor q = make_tensor<double>({1, 3, 2, 4}, kDoubleQ);
  HostTensor k = make_tensor<double>({1, 6, 1, 4}, kDoubleK);
  HostTensor v = make_tensor<double>({1, 6, 1, 4}, kDoubleV);
  HostTensor out = zeros_tensor(ScalarType::Double, {1, 3, 2, 4});
  KernelRunner r(llm_registry(), nullptr);
  ASSERT_EQ(
      r.run("llama::custom_sdpa.out", {r.tensor(q), r.tensor(k), r.tensor(v), r.i(1), r.none(),
                                       r.d(0.0), r.b(true), r.none(), r.tensor(out)}),
      Error::Ok);
  expect_close(out.values<double>(), kDoubleExpected, 1e-12, 1e-13);
}

TEST(LlmCustomSdpaTest, RefusesBadCalls) {
  HostTensor q = make_tensor<float>({1, 5, 4, 8}, kPrefillQ);
  HostTensor k = make_tensor<float>({1, 16, 2, 8}, kPrefillK);
  HostTensor v = make_tensor<float>({1, 16, 2, 8}, kPrefillV);
  HostTensor out = zeros_tensor(ScalarType::Float, {1, 5, 4, 8});
  auto run = [&](HostTensor& tq, HostTensor& tk, HostTensor& tv, int64_t start, HostTensor* mask,
                 bool causal) {
    KernelRunner r(llm_registry(), nullptr);
    return r.run("llama::custom_sdpa.out", {r.tensor(tq), r.tensor(tk), r.tensor(tv), r.i(start),
                                            mask == nullptr ? r.none() : r.tensor(*mask), r.d(0.0),
                                            r.b(causal), r.none(), r.tensor(out)});
  };
  // start_pos + S past max_S (12 + 5 > 16), and negative.
  EXPECT_EQ(run(q, k, v, 12, nullptr, true), Error::InvalidArgument);
  EXPECT_EQ(run(q, k, v, -1, nullptr, true), Error::InvalidArgument);
  EXPECT_EQ(run(q, k, v, 11, nullptr, true), Error::Ok);
  // 4 query heads over 3 key/value heads.
  HostTensor k3 = zeros_tensor(ScalarType::Float, {1, 16, 3, 8});
  HostTensor v3 = zeros_tensor(ScalarType::Float, {1, 16, 3, 8});
  EXPECT_EQ(run(q, k3, v3, 0, nullptr, true), Error::InvalidArgument);
  // head_dim differs; key and value caches differ.
  HostTensor k4 = zeros_tensor(ScalarType::Float, {1, 16, 2, 4});
  EXPECT_EQ(run(q, k4, k4, 0, nullptr, true), Error::InvalidArgument);
  HostTensor v_short = zeros_tensor(ScalarType::Float, {1, 15, 2, 8});
  EXPECT_EQ(run(q, k, v_short, 0, nullptr, true), Error::InvalidArgument);
  // A mask covers the whole cache ([5, 16]; [5, 5] is refused whatever start_pos),
  // and start_pos plays no part with one; a mask with is_causal is refused.
  HostTensor short_mask = zeros_tensor(ScalarType::Float, {5, 5});
  EXPECT_EQ(run(q, k, v, 0, &short_mask, false), Error::InvalidArgument);
  HostTensor mask = zeros_tensor(ScalarType::Float, {5, 16});
  EXPECT_EQ(run(q, k, v, 0, &mask, false), Error::Ok);
  EXPECT_EQ(run(q, k, v, 14, &mask, false), Error::Ok);
  EXPECT_EQ(run(q, k, v, 0, &mask, true), Error::InvalidArgument);
  // A Double key with a Float query: refused at load.
  HostTensor kd = zeros_tensor(ScalarType::Double, {1, 16, 2, 8});
  EXPECT_EQ(run(q, kd, v, 0, nullptr, true), Error::InvalidArgument);
}

TEST(LlmSdpaWithKvCacheTest, UpdatesBothCachesThenAttends) {
  for (ThreadPool* pool : pools()) {
    HostTensor q = make_tensor<float>({1, 5, 4, 8}, kKvQ);
    HostTensor k = make_tensor<float>({1, 5, 2, 8}, kKvK);
    HostTensor v = make_tensor<float>({1, 5, 2, 8}, kKvV);
    HostTensor kc = make_tensor<float>({1, 12, 2, 8}, kKvKeyCache);
    HostTensor vc = make_tensor<float>({1, 12, 2, 8}, kKvValueCache);
    HostTensor out = zeros_tensor(ScalarType::Float, {1, 5, 4, 8});
    KernelRunner r(llm_registry(), pool);
    ASSERT_EQ(r.run("llama::sdpa_with_kv_cache.out",
                    {r.tensor(q), r.tensor(k), r.tensor(v), r.tensor(kc), r.tensor(vc), r.i(2),
                     r.i(5), r.none(), r.d(0.0), r.b(true), r.none(), r.tensor(out)}),
              Error::Ok);
    EXPECT_EQ(kc.values<float>(), kKvKeyCacheAfter);
    EXPECT_EQ(vc.values<float>(), kKvValueCacheAfter);
    expect_attention(out.values<float>(), kKvExpected);
  }
}

TEST(LlmSdpaWithKvCacheTest, RefusesPositionsPastTheCacheWithoutWriting) {
  HostTensor q = make_tensor<float>({1, 5, 4, 8}, kKvQ);
  HostTensor k = make_tensor<float>({1, 5, 2, 8}, kKvK);
  HostTensor v = make_tensor<float>({1, 5, 2, 8}, kKvV);
  HostTensor kc = make_tensor<float>({1, 12, 2, 8}, kKvKeyCache);
  HostTensor vc = make_tensor<float>({1, 12, 2, 8}, kKvValueCache);
  HostTensor out = zeros_tensor(ScalarType::Float, {1, 5, 4, 8});
  // 8 + 5 > 12; then a seq_len that does not fit though the tensors do.
  for (auto [start, len] : {std::pair<int64_t, int64_t>{8, 5}, {2, 11}}) {
    KernelRunner r(llm_registry(), nullptr);
    EXPECT_EQ(r.run("llama::sdpa_with_kv_cache.out",
                    {r.tensor(q), r.tensor(k), r.tensor(v), r.tensor(kc), r.tensor(vc), r.i(start),
                     r.i(len), r.none(), r.d(0.0), r.b(true), r.none(), r.tensor(out)}),
              Error::InvalidArgument);
    EXPECT_EQ(kc.values<float>(), kKvKeyCache);
    EXPECT_EQ(vc.values<float>(), kKvValueCache);
  }
}

// The attention kernel's inner loops (Float), generic and AVX2 where the CPU
// has it, against the same sums in double, for lengths around the 8- and
// 32-float steps and their tails.
TEST(LlmAttentionMathTest, DotAndAxpyMatchDoubleSums) {
  std::vector<float> a(70), b(70);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<float>((static_cast<int>(i * 37 % 23) - 11) * 0.125);
    b[i] = static_cast<float>((static_cast<int>(i * 53 % 19) - 9) * 0.25);
  }
  using Dot = float (*)(const float*, const float*, int64_t);
  using Axpy = void (*)(float, const float*, float*, int64_t);
  std::vector<std::pair<Dot, Axpy>> impls = {{&llm::generic::dot, &llm::generic::axpy}};
  if (opt::cpu_features().avx2_fma) impls.push_back({&llm::avx2::dot, &llm::avx2::axpy});
  for (const auto& [dot, axpy] : impls) {
    for (int64_t n : {0, 1, 7, 8, 9, 31, 32, 33, 40, 63, 64, 70}) {
      double want = 0;
      for (int64_t i = 0; i < n; ++i) want += static_cast<double>(a[i]) * b[i];
      // Every product and partial sum here is exact in float (multiples of 1/32, small).
      EXPECT_EQ(dot(a.data(), b.data(), n), static_cast<float>(want)) << "n " << n;
      std::vector<float> y(b);
      axpy(0.5f, a.data(), y.data(), n);
      for (int64_t i = 0; i < 70; ++i) {
        EXPECT_EQ(y[i], i < n ? b[i] + 0.5f * a[i] : b[i]) << "n " << n << " i " << i;
      }
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace etr
