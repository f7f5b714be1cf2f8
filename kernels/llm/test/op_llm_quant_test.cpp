// llama::custom_quantized_sdpa.out and llama::fast_hadamard_transform.out
// against PyTorch's values (llm_quant_op_refs.h, written by
// make_llm_quant_op_refs.py), and their refusals: positions past the cache,
// missing or mismatched quantization parameters, masks of the wrong shape,
// sizes the transform does not take. Every attention case runs
// single-threaded and on a 3-thread pool (with the inner loops this CPU
// picks); the generic and AVX2 inner loops are also checked on their own
// against exact sums.
#include <cmath>
#include <memory>
#include <optional>

#include "kernels/cpu_math/cpu_features.h"
#include "kernels/llm/llm_kernels.h"
#include "kernels/llm/test/llm_quant_op_refs.h"
#include "kernels/llm/test/llm_test_support.h"
#include "kernels/llm/util/quantized_attention_math.h"
#include "kernels/test/kernel_test_util.h"

namespace etr {
namespace testing {
namespace {

using namespace llm_quant_refs;

std::vector<ThreadPool*> pools() { return llm_test_pools(); }

// One quantized attention case: tensors in the case's layout.
struct QCase {
  std::vector<int32_t> q_sizes, kv_sizes;  // data shapes; parameters have last dim 1
  const std::vector<int8_t>& q;
  const std::vector<int8_t>& k;
  const std::vector<int8_t>& v;
  const std::vector<int8_t>& qz;
  const std::vector<float>& qs;
  const std::vector<int8_t>& kz;
  const std::vector<float>& ks;
  const std::vector<int8_t>& vz;
  const std::vector<float>& vs;
  const std::vector<float>& expected;
  int64_t start_pos;
  bool causal;
  bool seq_at_dim_2;
  std::optional<double> scale;
  const std::vector<float>* mask = nullptr;
  std::vector<int32_t> mask_sizes = {};
};

std::vector<int32_t> param_sizes(std::vector<int32_t> s) {
  s[3] = 1;
  return s;
}

// Host tensors of one case (so that a test can alter one before the call).
struct QTensors {
  explicit QTensors(const QCase& c)
      : q(make_tensor<int8_t>(c.q_sizes, c.q)),
        k(make_tensor<int8_t>(c.kv_sizes, c.k)),
        v(make_tensor<int8_t>(c.kv_sizes, c.v)),
        qz(make_tensor<int8_t>(param_sizes(c.q_sizes), c.qz)),
        qs(make_tensor<float>(param_sizes(c.q_sizes), c.qs)),
        kz(make_tensor<int8_t>(param_sizes(c.kv_sizes), c.kz)),
        ks(make_tensor<float>(param_sizes(c.kv_sizes), c.ks)),
        vz(make_tensor<int8_t>(param_sizes(c.kv_sizes), c.vz)),
        vs(make_tensor<float>(param_sizes(c.kv_sizes), c.vs)),
        mask(make_tensor<float>(c.mask == nullptr ? std::vector<int32_t>{0, 0} : c.mask_sizes,
                                c.mask == nullptr ? std::vector<float>{} : *c.mask)),
        out(zeros_tensor(ScalarType::Float, c.q_sizes)) {}
  HostTensor q, k, v, qz, qs, kz, ks, vz, vs, mask, out;
};

// custom_quantized_sdpa(...) with the case's arguments; `mask` and the six
// parameters can be left out (None) by the flags.
Error run_qsdpa(ThreadPool* pool, QTensors& t, const QCase& c, int64_t start_pos, bool with_mask,
                bool causal, int none_param = -1) {
  KernelRunner r(llm_registry(), pool);
  HostTensor* params[6] = {&t.qz, &t.qs, &t.kz, &t.ks, &t.vz, &t.vs};
  std::vector<EValue*> args = {r.tensor(t.q),
                               r.tensor(t.k),
                               r.tensor(t.v),
                               r.i(start_pos),
                               with_mask ? r.tensor(t.mask) : r.none(),
                               r.d(0.0),
                               r.b(causal),
                               c.scale.has_value() ? r.d(*c.scale) : r.none()};
  for (int p = 0; p < 6; ++p) args.push_back(p == none_param ? r.none() : r.tensor(*params[p]));
  args.push_back(r.b(c.seq_at_dim_2));
  args.push_back(r.tensor(t.out));
  return r.run("llama::custom_quantized_sdpa.out", args);
}

// Runs the case on every pool and checks out against the reference and the
// inputs untouched.
void check_case(const QCase& c) {
  for (ThreadPool* pool : pools()) {
    QTensors t(c);
    ASSERT_EQ(run_qsdpa(pool, t, c, c.start_pos, c.mask != nullptr, c.causal), Error::Ok);
    const Span<const int32_t> sizes = t.out.sizes();
    EXPECT_EQ(std::vector<int32_t>(sizes.data(), sizes.data() + sizes.size()), c.q_sizes);
    expect_close(t.out.values<float>(), c.expected, 2e-5, 2e-5);
    EXPECT_EQ(t.k.values<int8_t>(), c.k);
    EXPECT_EQ(t.v.values<int8_t>(), c.v);
    EXPECT_EQ(t.ks.values<float>(), c.ks);
  }
}

// The ten reference vectors of case `p` in QCase's order.
#define QREFS(p) \
  p##Q, p##K, p##V, p##QZp, p##QScale, p##KZp, p##KScale, p##VZp, p##VScale, p##Expected

const QCase& prefill_case() {
  static const QCase c{{1, 5, 4, 8}, {1, 16, 2, 8}, QREFS(kQPrefill), 0, true, false, {}};
  return c;
}

TEST(LlmQuantizedSdpaTest, PrefillCausalGqa) { check_case(prefill_case()); }

TEST(LlmQuantizedSdpaTest, SecondChunkAtStartPos3SeqAtDim2) {
  check_case({{2, 6, 6, 12}, {2, 2, 16, 12}, QREFS(kQChunk), 3, true, true, {}});
}

TEST(LlmQuantizedSdpaTest, DecodeAtStartPos9) {
  check_case({{1, 1, 4, 20}, {1, 12, 1, 20}, QREFS(kQDecode), 9, true, false, {}});
}

TEST(LlmQuantizedSdpaTest, DecodeAtStartPos9SeqAtDim2) {
  check_case({{1, 4, 1, 20}, {1, 1, 12, 20}, QREFS(kQDecodeT), 9, true, true, {}});
}

TEST(LlmQuantizedSdpaTest, SeveralQueryAndKeyBlocks) {
  check_case({{1, 20, 2, 40}, {1, 160, 1, 40}, QREFS(kQLong), 130, true, false, {}});
}

TEST(LlmQuantizedSdpaTest, NotCausalSeesEveryKeyWithExplicitScale) {
  check_case({{1, 2, 3, 16}, {1, 2, 9, 16}, QREFS(kQFull), 4, false, true, 0.3});
}

TEST(LlmQuantizedSdpaTest, MaskCoversTheWholeCacheAndStartPosIsUnused) {
  QCase c{{1, 3, 4, 8}, {1, 10, 2, 8}, QREFS(kQMask), 0, false, false, {}, &kQMaskMask, {3, 10}};
  check_case(c);
  // ExecuTorch's kernel does not use start_pos when a mask is given.
  QTensors t(c);
  ASSERT_EQ(run_qsdpa(nullptr, t, c, 5, true, false), Error::Ok);
  expect_close(t.out.values<float>(), c.expected, 2e-5, 2e-5);
}

TEST(LlmQuantizedSdpaTest, SizeOneDimsMaySitAnywhereInTheDimOrder) {
  // Exporters give tensors with tied strides (size-1 dims) such dim orders;
  // the memory is the default layout's, so the result is the same.
  QCase c{{1, 1, 4, 20}, {1, 12, 1, 20}, QREFS(kQDecode), 9, true, false, {}};
  QTensors t(c);
  t.q = make_tensor<int8_t>({1, 1, 4, 20}, c.q, {1, 0, 2, 3});
  t.qs = make_tensor<float>({1, 1, 4, 1}, c.qs, {1, 0, 3, 2});
  t.k = make_tensor<int8_t>({1, 12, 1, 20}, c.k, {0, 2, 1, 3});
  t.out = make_tensor<float>({1, 1, 4, 20}, std::vector<float>(80, 0.0f), {1, 0, 2, 3});
  ASSERT_EQ(run_qsdpa(nullptr, t, c, 9, false, true), Error::Ok);
  expect_close(t.out.values<float>(), c.expected, 2e-5, 2e-5);
  // A dim of size above 1 out of place is a different memory layout: refused.
  const QCase& p = prefill_case();
  QTensors u(p);
  u.q = make_tensor<int8_t>({1, 5, 4, 8}, p.q, {0, 2, 1, 3});
  EXPECT_EQ(run_qsdpa(nullptr, u, p, 0, false, true), Error::NotSupported);
}

TEST(LlmQuantizedSdpaTest, RefusesBadCalls) {
  const QCase& c = prefill_case();
  {  // start_pos + S past max_S (12 + 5 > 16), and negative; 11 fits.
    QTensors t(c);
    EXPECT_EQ(run_qsdpa(nullptr, t, c, 12, false, true), Error::InvalidArgument);
    EXPECT_EQ(run_qsdpa(nullptr, t, c, -1, false, true), Error::InvalidArgument);
    EXPECT_EQ(run_qsdpa(nullptr, t, c, int64_t{1} << 40, false, true), Error::InvalidArgument);
    EXPECT_EQ(run_qsdpa(nullptr, t, c, 11, false, true), Error::Ok);
  }
  for (int p = 0; p < 6; ++p) {  // each quantization parameter is required
    QTensors t(c);
    EXPECT_EQ(run_qsdpa(nullptr, t, c, 0, false, true, p), Error::InvalidArgument) << p;
  }
  {  // a mask of the wrong shape ([3, 10] needs [5, 16]); a mask with is_causal
    QCase m = c;
    m.mask = &kQMaskMask;
    m.mask_sizes = {3, 10};
    QTensors t(m);
    EXPECT_EQ(run_qsdpa(nullptr, t, m, 0, true, false), Error::InvalidArgument);
    EXPECT_EQ(run_qsdpa(nullptr, t, m, 0, true, true), Error::InvalidArgument);
  }
  {  // the key's scales for 15 positions of a 16-position cache
    QTensors t(c);
    t.ks = zeros_tensor(ScalarType::Float, {1, 15, 2, 1});
    EXPECT_EQ(run_qsdpa(nullptr, t, c, 0, false, true), Error::InvalidArgument);
  }
  {  // zero points as Long (exports cast them to int8): refused at load
    QTensors t(c);
    t.vz = zeros_tensor(ScalarType::Long, {1, 16, 2, 1});
    EXPECT_EQ(run_qsdpa(nullptr, t, c, 0, false, true), Error::InvalidType);
  }
  {  // a Float query: refused at load (the quantized kernel takes int8 only)
    QTensors t(c);
    t.q = zeros_tensor(ScalarType::Float, {1, 5, 4, 8});
    EXPECT_NE(run_qsdpa(nullptr, t, c, 0, false, true), Error::Ok);
  }
  {  // 4 query heads over 3 key/value heads; key and value caches differ
    QTensors t(c);
    t.k = zeros_tensor(ScalarType::Char, {1, 16, 3, 8});
    t.v = zeros_tensor(ScalarType::Char, {1, 16, 3, 8});
    t.kz = zeros_tensor(ScalarType::Char, {1, 16, 3, 1});
    t.ks = zeros_tensor(ScalarType::Float, {1, 16, 3, 1});
    t.vz = zeros_tensor(ScalarType::Char, {1, 16, 3, 1});
    t.vs = zeros_tensor(ScalarType::Float, {1, 16, 3, 1});
    EXPECT_EQ(run_qsdpa(nullptr, t, c, 0, false, true), Error::InvalidArgument);
    QTensors u(c);
    u.v = zeros_tensor(ScalarType::Char, {1, 15, 2, 8});
    EXPECT_EQ(run_qsdpa(nullptr, u, c, 0, false, true), Error::InvalidArgument);
  }
}

TEST(LlmQuantizedMathTest, DotIsExactAndAxpyMatchesDoubleSums) {
  // Every length up to 70 (the vector steps and their tails), extreme values.
  for (int64_t n = 0; n <= 70; ++n) {
    std::vector<int16_t> a(static_cast<size_t>(n));
    std::vector<int8_t> b(static_cast<size_t>(n));
    int64_t exact = 0;
    for (int64_t i = 0; i < n; ++i) {
      a[i] = static_cast<int16_t>((i % 3 == 0) ? 255 : (i % 3 == 1 ? -255 : i * 7 - 200));
      b[i] = static_cast<int8_t>((i % 4 == 0) ? -128 : (i * 37) % 256 - 128);
      exact += int64_t{a[i]} * b[i];
    }
    EXPECT_EQ(llm::generic::dot_i16_i8(a.data(), b.data(), n), exact) << n;
    if (opt::cpu_features().avx2_fma) {
      EXPECT_EQ(llm::avx2::dot_i16_i8(a.data(), b.data(), n), exact) << n;
    }
    std::vector<float> y0(static_cast<size_t>(n), 0.5f);
    std::vector<float> y1 = y0;
    std::vector<float> want(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) want[i] = static_cast<float>(0.5 + 0.25 * (b[i] - 3));
    llm::generic::axpy_i8(0.25f, b.data(), 3, y0.data(), n);
    EXPECT_EQ(y0, want) << n;  // exact: small powers of two
    if (opt::cpu_features().avx2_fma) {
      llm::avx2::axpy_i8(0.25f, b.data(), 3, y1.data(), n);
      EXPECT_EQ(y1, want) << n;
    }
  }
}

// ---- fast_hadamard_transform

std::vector<float> run_fht(ThreadPool* pool, std::vector<int32_t> sizes,
                           const std::vector<float>& in, Error* err = nullptr) {
  HostTensor x = make_tensor<float>(sizes, in);
  HostTensor out = zeros_tensor(ScalarType::Float, sizes);
  KernelRunner r(llm_registry(), pool);
  const Error e = r.run("llama::fast_hadamard_transform.out", {r.tensor(x), r.tensor(out)});
  if (err != nullptr) {
    *err = e;
  } else {
    EXPECT_EQ(e, Error::Ok);
  }
  EXPECT_EQ(x.values<float>(), in);
  return out.values<float>();
}

const std::vector<float>* hadamard_in(int n) {
  switch (n) {
#define ETR_HAD_CASE(N) \
  case N: return &kHad##N##In;
    ETR_HAD_CASE(1)
    ETR_HAD_CASE(2)
    ETR_HAD_CASE(4)
    ETR_HAD_CASE(8)
    ETR_HAD_CASE(16)
    ETR_HAD_CASE(32)
    ETR_HAD_CASE(64)
    ETR_HAD_CASE(128)
    ETR_HAD_CASE(256)
    ETR_HAD_CASE(512)
    ETR_HAD_CASE(1024)
#undef ETR_HAD_CASE
    default: return nullptr;
  }
}

const std::vector<float>* hadamard_expected(int n) {
  switch (n) {
#define ETR_HAD_CASE(N) \
  case N: return &kHad##N##Expected;
    ETR_HAD_CASE(1)
    ETR_HAD_CASE(2)
    ETR_HAD_CASE(4)
    ETR_HAD_CASE(8)
    ETR_HAD_CASE(16)
    ETR_HAD_CASE(32)
    ETR_HAD_CASE(64)
    ETR_HAD_CASE(128)
    ETR_HAD_CASE(256)
    ETR_HAD_CASE(512)
    ETR_HAD_CASE(1024)
#undef ETR_HAD_CASE
    default: return nullptr;
  }
}

TEST(LlmFastHadamardTransformTest, EveryPowerOfTwoUpTo1024) {
  for (ThreadPool* pool : pools()) {
    for (int k = 0; k <= kHadamardMaxLog2; ++k) {
      const int n = 1 << k;
      ASSERT_NE(hadamard_in(n), nullptr) << n;
      expect_close(run_fht(pool, {2, n}, *hadamard_in(n)), *hadamard_expected(n), 1e-5, 1e-6);
    }
  }
}

TEST(LlmFastHadamardTransformTest, ThreeDimsAndDouble) {
  expect_close(run_fht(nullptr, {2, 3, 16}, kHad3dIn), kHad3dExpected, 1e-5, 1e-6);
  HostTensor x = make_tensor<double>({2, 64}, kHadDoubleIn);
  HostTensor out = zeros_tensor(ScalarType::Double, {2, 64});
  KernelRunner r(llm_registry(), nullptr);
  ASSERT_EQ(r.run("llama::fast_hadamard_transform.out", {r.tensor(x), r.tensor(out)}), Error::Ok);
  expect_close(out.values<double>(), kHadDoubleExpected, 1e-12, 1e-14);
}

TEST(LlmFastHadamardTransformTest, LargeSizesAreTheirOwnInverse) {
  // H_n H_n = n I: applying the normalized transform twice gives x back.
  for (ThreadPool* pool : pools()) {
    for (int n : {2048, 16384}) {
      std::vector<float> x(static_cast<size_t>(3 * n));
      for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37f * static_cast<float>(i)) * 2;
      const std::vector<float> once = run_fht(pool, {3, n}, x);
      EXPECT_NE(once, x);
      expect_close(run_fht(pool, {3, n}, once), x, 1e-4, 1e-5);
    }
  }
}

TEST(LlmFastHadamardTransformTest, RefusesATransposedLayout) {
  HostTensor x = make_tensor<float>({4, 8}, std::vector<float>(32, 1.0f), {1, 0});
  HostTensor out = zeros_tensor(ScalarType::Float, {4, 8});
  KernelRunner r(llm_registry(), nullptr);
  EXPECT_EQ(r.run("llama::fast_hadamard_transform.out", {r.tensor(x), r.tensor(out)}),
            Error::NotSupported);
}

TEST(LlmFastHadamardTransformTest, RefusesSizesItDoesNotTake) {
  for (int n : {3, 6, 12, 100}) {
    Error e = Error::Ok;
    run_fht(nullptr, {2, n}, std::vector<float>(static_cast<size_t>(2 * n), 1.0f), &e);
    EXPECT_EQ(e, Error::InvalidArgument) << n;
  }
  // ExecuTorch's 28 * 2^k sizes run: op_hadamard28_test.cpp.
  // An int input: refused at load.
  HostTensor xi = zeros_tensor(ScalarType::Int, {2, 8});
  HostTensor oi = zeros_tensor(ScalarType::Int, {2, 8});
  KernelRunner r(llm_registry(), nullptr);
  EXPECT_NE(r.run("llama::fast_hadamard_transform.out", {r.tensor(xi), r.tensor(oi)}), Error::Ok);
}

}  // namespace
}  // namespace testing
}  // namespace etr
