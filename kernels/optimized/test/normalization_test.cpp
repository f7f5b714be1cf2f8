// The optimized _softmax/_log_softmax (last dim), native_layer_norm,
// _native_batch_norm_legit_no_training and mean.out (trailing dims) against
// the portable kernels on seeded random shapes, with NaN/inf rows, empty
// tensors and threaded sizes, on one and two threads.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/cpu_math/vec_math.h"
#include "kernels/optimized/test/compare_util.h"

namespace etr {
namespace testing {
namespace {

const std::vector<ThreadPool*> kPools() { return {nullptr, test_thread_pool()}; }

TEST(OptimizedNormalization, SoftmaxLastDimMatchesPortable) {
  std::mt19937 rng(11);
  std::vector<std::vector<int32_t>> shapes = {{1},         {7},        {9},   {3, 8},
                                              {2, 3, 300}, {1000, 77}, {0, 5}};
  for (size_t rank = 1; rank <= 4; ++rank) shapes.push_back(random_shape(rng, rank, 1, 20));
  for (const auto& shape : shapes) {
    HostTensor x = random_float_tensor(shape, rng, -12.0f, 12.0f);
    if (x.tensor().numel() > 40) sprinkle_specials(x, rng);
    for (const char* op : {"aten::_softmax.out", "aten::_log_softmax.out"}) {
      for (int64_t dim : {int64_t{-1}, static_cast<int64_t>(shape.size()) - 1}) {
        OpCall call;
        call.op = op;
        call.outs = {{ScalarType::Float, shape}};
        call.args = [&x, dim](KernelRunner& r, std::vector<HostTensor>& o) {
          return std::vector<EValue*>{r.tensor(x), r.i(dim), r.b(false), r.tensor(o[0])};
        };
        for (ThreadPool* pool : kPools()) {
          check_against_portable(call, pool, 2e-6, 1e-6, "optimized",
                                 std::string(op) + " " + shape_str(shape));
        }
      }
    }
  }
  // Not the last dim: portable.
  HostTensor x = random_float_tensor({4, 5}, rng);
  OpCall call;
  call.op = "aten::_softmax.out";
  call.outs = {{ScalarType::Float, {4, 5}}};
  call.args = [&x](KernelRunner& r, std::vector<HostTensor>& o) {
    return std::vector<EValue*>{r.tensor(x), r.i(0), r.b(false), r.tensor(o[0])};
  };
  check_against_portable(call, test_thread_pool(), 0.0, 0.0, "portable", "softmax dim 0");
}

// etr::safe_softmax.fused (the exporter's _safe_softmax chain fused at load)
// against a float64 reference: softmax over the last dim, zeros for rows that
// are -inf throughout, NaN for rows holding a NaN; rows partly -inf (a causal
// mask) keep their softmax.
TEST(OptimizedNormalization, SafeSoftmaxMatchesFloat64Reference) {
  std::mt19937 rng(17);
  const float kNegInf = -std::numeric_limits<float>::infinity();
  const std::vector<std::vector<int32_t>> shapes = {
      {1, 3, 197, 197}, {4, 128, 128}, {5, 7}, {2, 9}, {1, 1}};
  for (const auto& shape : shapes) {
    HostTensor x = random_float_tensor(shape, rng, -12.0f, 12.0f);
    const size_t n = static_cast<size_t>(shape.back());
    const size_t rows = static_cast<size_t>(x.tensor().numel()) / n;
    float* p = x.tensor().data_ptr<float>();
    // Row 0 fully masked, row 1 causally masked (when there are such rows),
    // the last row with a NaN (when it is not row 0).
    for (size_t j = 0; j < n; ++j) p[j] = kNegInf;
    if (rows > 1) {
      for (size_t j = 1; j < n; ++j) p[n + j] = kNegInf;
    }
    if (rows > 2) p[(rows - 1) * n + n / 2] = std::nanf("");
    std::vector<double> want(rows * n);
    for (size_t r = 0; r < rows; ++r) {
      const float* xr = p + r * n;
      bool masked = true, has_nan = false;
      double m = -INFINITY;
      for (size_t j = 0; j < n; ++j) {
        masked = masked && xr[j] == kNegInf;
        has_nan = has_nan || std::isnan(xr[j]);
        m = std::max(m, static_cast<double>(xr[j]));
      }
      double sum = 0.0;
      for (size_t j = 0; j < n; ++j) sum += std::exp(static_cast<double>(xr[j]) - m);
      for (size_t j = 0; j < n; ++j) {
        want[r * n + j] = masked    ? 0.0
                          : has_nan ? std::nan("")
                                    : std::exp(static_cast<double>(xr[j]) - m) / sum;
      }
    }
    const int64_t last = static_cast<int64_t>(shape.size()) - 1;
    for (int64_t dim : {int64_t{-1}, last}) {
      for (ThreadPool* pool : kPools()) {
        OpCall call;
        call.op = "etr::safe_softmax.fused";
        call.outs = {{ScalarType::Float, shape}, {ScalarType::Float, shape}};
        call.args = [&x, dim](KernelRunner& r, std::vector<HostTensor>& o) {
          return std::vector<EValue*>{r.tensor(x), r.i(dim),       r.b(false),
                                      r.i(dim),    r.tensor(o[1]), r.tensor(o[0])};
        };
        const OpResult got = run_call(call, test_kernel_registry(), pool);
        ASSERT_EQ(got.error, Error::Ok) << shape_str(shape);
        EXPECT_EQ(got.library, "optimized");
        const std::vector<float> y = got.outs[0].values<float>();
        double max_err = 0.0;
        size_t bad = 0;
        for (size_t i = 0; i < y.size(); ++i) {
          if (std::isnan(want[i])) {
            bad += std::isnan(y[i]) ? 0 : 1;
            continue;
          }
          const double err = std::abs(static_cast<double>(y[i]) - want[i]);
          max_err = std::max(max_err, err);
          if (!(err <= 1e-6 + 2e-6 * want[i])) ++bad;
        }
        std::printf("safe softmax %s dim %lld: max abs error %.3g\n", shape_str(shape).c_str(),
                    static_cast<long long>(dim), max_err);
        EXPECT_EQ(bad, 0u) << shape_str(shape);
        // The fully masked row is exactly zero.
        for (size_t j = 0; j < n; ++j) EXPECT_EQ(y[j], 0.0f) << shape_str(shape);
      }
    }
  }
  // The any() over another dim than the softmax's: declined (no other library
  // has the fused kernel, so the call fails to load).
  HostTensor x = random_float_tensor({3, 4}, rng);
  OpCall call;
  call.op = "etr::safe_softmax.fused";
  call.outs = {{ScalarType::Float, {3, 4}}, {ScalarType::Float, {3, 4}}};
  call.args = [&x](KernelRunner& r, std::vector<HostTensor>& o) {
    return std::vector<EValue*>{r.tensor(x), r.i(-1),        r.b(false),
                                r.i(0),      r.tensor(o[1]), r.tensor(o[0])};
  };
  EXPECT_NE(run_call(call, test_kernel_registry(), nullptr).error, Error::Ok);
}

// etr::softmax_guard.fused (the guard around a delegated softmax s of scores
// x): s with the rows of x that are -inf throughout zeroed (a NaN or a single
// finite score keeps the row), with out apart, equal to s, and over x shifted
// either way (the memory plan may reuse x's bytes, dead after the eq).
TEST(OptimizedNormalization, SoftmaxGuardZeroesFullyMaskedRows) {
  std::mt19937 rng(18);
  const float kNegInf = -std::numeric_limits<float>::infinity();
  const size_t rows = 6, n = 9;
  std::vector<float> xv(rows * n), sv(rows * n);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  for (float& v : xv) v = dist(rng);
  for (float& v : sv) v = dist(rng);
  // Rows 0, 1 and 4 masked (adjacent masked rows: a result row written over
  // x before the next row of x was read would unmask it), row 3 with one
  // finite score and row 5 with a NaN kept (NaN == -inf is false).
  for (size_t r : {0, 1, 3, 4, 5}) {
    for (size_t j = 0; j < n; ++j) xv[r * n + j] = kNegInf;
  }
  xv[3 * n + 5] = 0.5f;
  xv[5 * n + 8] = std::nanf("");
  std::vector<float> want(sv);
  for (size_t r : {0, 1, 4}) {
    for (size_t j = 0; j < n; ++j) want[r * n + j] = 0.0f;
  }
  const std::vector<int32_t> shape = {2, 3, 9};
  // where: 0 apart, 1 out == s, 2/3 out over x starting 4 elements after /
  // before it.
  for (int where = 0; where < 4; ++where) {
    std::vector<float> buf(3 * rows * n, 7.0f);
    float* base = buf.data() + rows * n;
    HostTensor x = make_tensor<float>(shape, xv);
    HostTensor s = make_tensor<float>(shape, sv);
    HostTensor out = zeros_tensor(ScalarType::Float, shape);
    if (where == 1) out.tensor().set_data(s.tensor().mutable_data(), s.tensor().nbytes());
    if (where >= 2) {
      std::memcpy(base, xv.data(), xv.size() * sizeof(float));
      x.tensor().set_data(base, xv.size() * sizeof(float));
      out.tensor().set_data(base + (where == 2 ? 4 : -4), xv.size() * sizeof(float));
    }
    KernelRunner runner(test_kernel_registry(), nullptr);
    const Error err = runner.run("etr::softmax_guard.fused", {runner.tensor(x), runner.tensor(s),
                                                              runner.i(-1), runner.tensor(out)});
    ASSERT_EQ(err, Error::Ok) << where;
    EXPECT_STREQ(runner.chosen_library(), "optimized");
    const float* y = out.tensor().const_data_ptr<float>();
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(y[i], want[i]) << where << " " << i;
  }
}

TEST(OptimizedNormalization, LayerNormMatchesPortable) {
  std::mt19937 rng(12);
  struct Case {
    std::vector<int32_t> shape;
    size_t k;  // normalized dims
  };
  const Case cases[] = {{{5, 7}, 1},     {{3, 4, 33}, 1}, {{2, 6, 5}, 2},
                        {{1200, 64}, 1}, {{0, 8}, 1},     {{9}, 1}};
  for (const Case& c : cases) {
    HostTensor x = random_float_tensor(c.shape, rng, -3.0f, 5.0f);
    std::vector<int32_t> ns(c.shape.end() - static_cast<long>(c.k), c.shape.end());
    std::vector<int32_t> stat(c.shape);
    for (size_t d = c.shape.size() - c.k; d < c.shape.size(); ++d) stat[d] = 1;
    HostTensor w = random_float_tensor(ns, rng, 0.5f, 1.5f);
    HostTensor b = random_float_tensor(ns, rng);
    for (int affine = 0; affine < 2; ++affine) {
      OpCall call;
      call.op = "aten::native_layer_norm.out";
      call.outs = {
          {ScalarType::Float, c.shape}, {ScalarType::Float, stat}, {ScalarType::Float, stat}};
      call.args = [&, affine](KernelRunner& r, std::vector<HostTensor>& o) {
        std::vector<int64_t> ns64(ns.begin(), ns.end());
        return std::vector<EValue*>{r.tensor(x),
                                    r.int_list(ns64),
                                    affine ? r.tensor(w) : r.none(),
                                    affine ? r.tensor(b) : r.none(),
                                    r.d(1e-5),
                                    r.tensor(o[0]),
                                    r.tensor(o[1]),
                                    r.tensor(o[2])};
      };
      for (ThreadPool* pool : kPools()) {
        check_against_portable(call, pool, 1e-6, 1e-6, "optimized",
                               "layer_norm " + shape_str(c.shape) + (affine ? " affine" : ""));
      }
    }
  }
}

// The optimized layer norm (statistics in double, the affine part in float)
// against float64 on a ViT-sized [197, 192] input with a row mean of 2 and
// unit-scale rows: within 1e-6 + 1e-6 |y|, the max error printed.
TEST(OptimizedNormalization, LayerNormMatchesFloat64Reference) {
  std::mt19937 rng(19);
  const int32_t rows = 197, n = 192;
  HostTensor x = random_float_tensor({rows, n}, rng, 0.0f, 4.0f);
  HostTensor w = random_float_tensor({n}, rng, 0.5f, 1.5f);
  HostTensor b = random_float_tensor({n}, rng, -1.0f, 1.0f);
  OpCall call;
  call.op = "aten::native_layer_norm.out";
  call.outs = {{ScalarType::Float, {rows, n}},
               {ScalarType::Float, {rows, 1}},
               {ScalarType::Float, {rows, 1}}};
  call.args = [&](KernelRunner& r, std::vector<HostTensor>& o) {
    return std::vector<EValue*>{r.tensor(x), r.int_list({n}), r.tensor(w),    r.tensor(b),
                                r.d(1e-5),   r.tensor(o[0]),  r.tensor(o[1]), r.tensor(o[2])};
  };
  const std::vector<float> xv = x.values<float>(), wv = w.values<float>(), bv = b.values<float>();
  // On 1 thread, and on 2 (the rows then split over the pool).
  for (ThreadPool* pool : kPools()) {
    const OpResult got = run_call(call, test_kernel_registry(), pool);
    ASSERT_EQ(got.error, Error::Ok);
    EXPECT_EQ(got.library, "optimized");
    const std::vector<float> y = got.outs[0].values<float>();
    double max_err = 0.0;
    size_t bad = 0;
    for (int32_t r = 0; r < rows; ++r) {
      double mean = 0.0, var = 0.0;
      for (int32_t j = 0; j < n; ++j) mean += xv[r * n + j];
      mean /= n;
      for (int32_t j = 0; j < n; ++j) var += (xv[r * n + j] - mean) * (xv[r * n + j] - mean);
      const double rstd = 1.0 / std::sqrt(var / n + 1e-5);
      for (int32_t j = 0; j < n; ++j) {
        const double want = (xv[r * n + j] - mean) * rstd * wv[j] + bv[j];
        const double err = std::abs(static_cast<double>(y[r * n + j]) - want);
        max_err = std::max(max_err, err);
        if (!(err <= 1e-6 + 1e-6 * std::abs(want))) ++bad;
      }
    }
    std::printf("layer norm [197, 192], %s: max abs error %.3g\n",
                pool == nullptr ? "1 thread" : "2 threads", max_err);
    EXPECT_EQ(bad, 0u);
  }
}

TEST(OptimizedNormalization, BatchNormMatchesPortable) {
  std::mt19937 rng(13);
  const std::vector<std::vector<int32_t>> shapes = {{2, 5},          {3, 4, 9},    {2, 7, 5, 3},
                                                    {1, 64, 56, 56}, {0, 3, 2, 2}, {2, 3, 0, 4}};
  for (const auto& shape : shapes) {
    const int32_t ch = shape[1];
    HostTensor x = random_float_tensor(shape, rng, -3.0f, 3.0f);
    sprinkle_specials(x, rng);
    HostTensor w = random_float_tensor({ch}, rng, 0.5f, 1.5f);
    HostTensor b = random_float_tensor({ch}, rng);
    HostTensor mean = random_float_tensor({ch}, rng);
    HostTensor var = random_float_tensor({ch}, rng, 0.1f, 2.0f);
    for (int affine = 0; affine < 2; ++affine) {
      OpCall call;
      call.op = "aten::_native_batch_norm_legit_no_training.out";
      call.outs = {{ScalarType::Float, shape}, {ScalarType::Float, {0}}, {ScalarType::Float, {0}}};
      call.args = [&, affine](KernelRunner& r, std::vector<HostTensor>& o) {
        return std::vector<EValue*>{r.tensor(x),
                                    affine ? r.tensor(w) : r.none(),
                                    affine ? r.tensor(b) : r.none(),
                                    r.tensor(mean),
                                    r.tensor(var),
                                    r.d(0.1),
                                    r.d(1e-5),
                                    r.tensor(o[0]),
                                    r.tensor(o[1]),
                                    r.tensor(o[2])};
      };
      for (ThreadPool* pool : kPools()) {
        check_against_portable(call, pool, 0.0, 0.0, "optimized",
                               "batch_norm " + shape_str(shape) + (affine ? " affine" : ""));
      }
    }
  }
}

// etr::batch_norm_relu.fused (batch norm then relu in one pass) against
// float64: max((x - mean) / sqrt(var + eps) * w + b, 0), with and without
// weight and bias, planes shorter and longer than the kernel's block and
// not a multiple of it, a threaded size, in place (out over x) and out of
// place, on one and two threads. The kernel rounds like the two unfused
// kernels (scale and shift in double, then x * scale + shift in float), so
// the bound is a few float roundings of the output's magnitude.
TEST(OptimizedNormalization, BatchNormReluFusedMatchesFloat64) {
  std::mt19937 rng(15);
  const std::vector<std::vector<int32_t>> shapes = {
      {2, 5}, {3, 4, 9}, {2, 7, 45, 47}, {1, 64, 56, 56}, {1, 3, 2049}};
  const double eps = 1e-5;
  for (const auto& shape : shapes) {
    const int32_t ch = shape[1];
    size_t plane = 1;
    for (size_t d = 2; d < shape.size(); ++d) plane *= static_cast<size_t>(shape[d]);
    const HostTensor x = random_float_tensor(shape, rng, -3.0f, 3.0f);
    HostTensor w = random_float_tensor({ch}, rng, 0.5f, 1.5f);
    HostTensor b = random_float_tensor({ch}, rng);
    HostTensor mean = random_float_tensor({ch}, rng);
    HostTensor var = random_float_tensor({ch}, rng, 0.1f, 2.0f);
    const std::vector<float> xv = x.values<float>();
    for (int affine = 0; affine < 2; ++affine) {
      std::vector<double> want(xv.size());
      size_t positive = 0;
      for (size_t i = 0; i < xv.size(); ++i) {
        const size_t c = i / plane % static_cast<size_t>(ch);
        double z = (xv[i] - static_cast<double>(mean.values<float>()[c])) /
                   std::sqrt(static_cast<double>(var.values<float>()[c]) + eps);
        if (affine) z = z * w.values<float>()[c] + b.values<float>()[c];
        want[i] = z > 0.0 ? z : 0.0;
        positive += z > 0.0 ? 1 : 0;
      }
      ASSERT_GT(positive, 0u);  // both sides of the clamp are exercised
      ASSERT_LT(positive, xv.size());
      for (ThreadPool* pool : kPools()) {
        for (int in_place = 0; in_place < 2; ++in_place) {
          HostTensor xin = make_tensor<float>(shape, xv);
          HostTensor out = zeros_tensor(ScalarType::Float, shape);
          HostTensor& y = in_place ? xin : out;
          KernelRunner r(test_kernel_registry(), pool);
          ASSERT_EQ(
              r.run("etr::batch_norm_relu.fused", {r.tensor(xin), affine ? r.tensor(w) : r.none(),
                                                   affine ? r.tensor(b) : r.none(), r.tensor(mean),
                                                   r.tensor(var), r.d(0.1), r.d(eps), r.tensor(y)}),
              Error::Ok)
              << shape_str(shape);
          EXPECT_STREQ(r.chosen_library(), "optimized");
          const std::vector<float> got = y.values<float>();
          double worst = 0.0;
          for (size_t i = 0; i < got.size(); ++i) {
            const double err = std::abs(got[i] - want[i]) / (1.0 + std::abs(want[i]));
            worst = std::max(worst, err);
          }
          std::printf("batch_norm_relu %s%s%s: max error %.3g\n", shape_str(shape).c_str(),
                      affine ? " affine" : "", in_place ? " in place" : "", worst);
          EXPECT_LE(worst, 1e-6) << shape_str(shape) << (affine ? " affine" : "")
                                 << (in_place ? " in place" : "");
        }
      }
    }
  }
}

TEST(OptimizedNormalization, MeanTrailingDimsMatchesPortable) {
  std::mt19937 rng(14);
  struct Case {
    std::vector<int32_t> shape;
    std::vector<int64_t> dims;
  };
  const Case cases[] = {{{2, 16, 7, 7}, {-1, -2}}, {{1, 40, 112, 112}, {2, 3}}, {{3, 5, 9}, {-1}},
                        {{4, 3, 5}, {-2, -1}},     {{2, 3, 0, 4}, {-1, -2}},    {{6, 10}, {1}},
                        {{2, 200, 3, 3}, {3, 2}}};
  for (const Case& c : cases) {
    HostTensor x = random_float_tensor(c.shape, rng, -2.0f, 3.0f);
    for (bool keepdim : {false, true}) {
      std::vector<int32_t> out_shape;
      for (size_t d = 0; d < c.shape.size(); ++d) {
        if (d < c.shape.size() - c.dims.size()) {
          out_shape.push_back(c.shape[d]);
        } else if (keepdim) {
          out_shape.push_back(1);
        }
      }
      OpCall call;
      call.op = "aten::mean.out";
      call.outs = {{ScalarType::Float, out_shape}};
      call.args = [&, keepdim](KernelRunner& r, std::vector<HostTensor>& o) {
        return std::vector<EValue*>{r.tensor(x), r.int_list(c.dims), r.b(keepdim), r.none(),
                                    r.tensor(o[0])};
      };
      for (ThreadPool* pool : kPools()) {
        check_against_portable(call, pool, 1e-6, 0.0, "optimized",
                               "mean " + shape_str(c.shape) + (keepdim ? " keepdim" : ""));
      }
    }
  }
  // Leading dim: portable.
  HostTensor x = random_float_tensor({4, 5}, rng);
  OpCall call;
  call.op = "aten::mean.out";
  call.outs = {{ScalarType::Float, {5}}};
  call.args = [&x](KernelRunner& r, std::vector<HostTensor>& o) {
    return std::vector<EValue*>{r.tensor(x), r.int_list({0}), r.b(false), r.none(), r.tensor(o[0])};
  };
  check_against_portable(call, test_thread_pool(), 0.0, 0.0, "portable", "mean dim 0");
}

// opt::row_means (the mean over trailing dims): row counts that leave 1-3
// rows after the groups of 4, lengths with and without a tail of n % 8
// (MobileNetV3's 7x7 and 14x14 planes among them), against float64.
TEST(OptimizedNormalization, RowMeansMatchFloat64Reference) {
  std::mt19937 rng(23);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  double worst = 0.0;
  for (size_t rows : {1, 3, 4, 5, 7, 96, 131}) {
    for (size_t n : {1, 5, 8, 13, 49, 196, 784}) {
      std::vector<float> x(rows * n);
      for (float& v : x) v = dist(rng);
      std::vector<float> y(rows, -7.0f);
      opt::row_means(x.data(), rows, n, static_cast<double>(n), y.data());
      for (size_t r = 0; r < rows; ++r) {
        double s = 0.0;
        for (size_t i = 0; i < n; ++i) s += x[r * n + i];
        const double want = s / static_cast<double>(n);
        const double err = std::abs(y[r] - want);
        worst = std::max(worst, err);
        EXPECT_LE(err, 1e-6 * std::max(1.0, std::abs(want)))
            << "rows " << rows << " n " << n << " row " << r;
      }
    }
  }
  std::printf("row_means: max |error| %.3g against float64\n", worst);
}

}  // namespace
}  // namespace testing
}  // namespace etr
