// attention_math.h: the row-block helpers give exactly the single-row
// functions' values (custom_sdpa's results must not change with them).
#include "kernels/llm/util/attention_math.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "kernels/cpu_math/cpu_features.h"

namespace etr {
namespace {

struct Impl {
  const char* name;
  float (*dot)(const float*, const float*, int64_t);
  void (*axpy)(float, const float*, float*, int64_t);
  void (*dot_rows)(const float*, const float*, int64_t, int64_t, int64_t, float*);
  void (*axpy_rows)(const float*, const float*, int64_t, int64_t, float*, int64_t);
};

TEST(AttentionMathTest, RowBlocksMatchSingleRowsBitForBit) {
  std::vector<Impl> impls = {{"generic", &llm::generic::dot, &llm::generic::axpy,
                              &llm::generic::dot_rows, &llm::generic::axpy_rows}};
  if (opt::cpu_features().avx2_fma) {
    impls.push_back(
        {"avx2", &llm::avx2::dot, &llm::avx2::axpy, &llm::avx2::dot_rows, &llm::avx2::axpy_rows});
  }
  std::mt19937 rng(5);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  for (const Impl& f : impls) {
    for (int64_t n : {1, 7, 8, 24, 32, 40, 64, 72, 128}) {
      for (int64_t count : {0, 1, 2, 3, 5, 128}) {
        SCOPED_TRACE(::testing::Message() << f.name << " n " << n << " rows " << count);
        const int64_t stride = n * 3 + 1;  // rows of several heads, as in a KV cache
        std::vector<float> q(n), k(stride * (count + 1)), p(count);
        for (float& v : q) v = nd(rng);
        for (float& v : k) v = nd(rng);
        for (float& v : p) v = nd(rng);
        std::vector<float> got(count + 1, -1.0f);
        f.dot_rows(q.data(), k.data(), stride, count, n, got.data());
        for (int64_t j = 0; j < count; ++j) {
          const float want = f.dot(q.data(), k.data() + j * stride, n);
          ASSERT_EQ(std::memcmp(&got[j], &want, sizeof want), 0) << "row " << j;
        }
        EXPECT_EQ(got[count], -1.0f);  // nothing past the rows
        std::vector<float> y(n), y_ref(n);
        for (int64_t i = 0; i < n; ++i) y[i] = y_ref[i] = nd(rng);
        f.axpy_rows(p.data(), k.data(), stride, count, y.data(), n);
        for (int64_t j = 0; j < count; ++j) f.axpy(p[j], k.data() + j * stride, y_ref.data(), n);
        ASSERT_EQ(std::memcmp(y.data(), y_ref.data(), n * sizeof(float)), 0);
      }
    }
  }
}

}  // namespace
}  // namespace etr
