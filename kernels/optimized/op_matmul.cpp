// aten::mm.out, aten::bmm.out, aten::addmm.out and aten::linear.out on the
// GEMM engine. Prepare accepts Float tensors in the default dim order only and
// packs the operands that are program constants (weights); run() checks the
// sizes the way the portable kernels do, resizes out and calls gemm(), which
// packs the other operands from the temp allocator and uses the thread pool.
// A linear layer over one row with constant weights (a classifier head) runs
// as the panel matrix-vector product of cpu_math/gemv.h instead.
#include "kernels/cpu_math/cpu_features.h"
#include "kernels/cpu_math/gemm.h"
#include "kernels/cpu_math/gemv.h"
#include "kernels/optimized/linear_algebra.h"
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/convert.h"
#include "kernels/portable/util/shape_rules.h"

namespace etr {
namespace {

// Constant operands packed at prepare (absent when not constant, or when
// method memory had no room: then run packs them like any other operand).
struct MatmulState {
  opt::PackedMatrix a;
  opt::PackedMatrix b;
  bool has_a = false;
  bool has_b = false;
  // A linear layer over one row with constant weights [gemv_n, gemv_k]:
  // the weights packed for gemv_panels_avx2 (cpu_math/gemv.h), or null.
  const float* gemv = nullptr;
  int64_t gemv_n = 0, gemv_k = 0;
};

bool float_default(const Tensor& t) {
  return t.dtype() == ScalarType::Float && is_default_layout(t);
}

// Packs A (pack_b: B) [rows, cols] into method memory; false when empty or
// out of memory (packing is only an optimization).
bool pack_constant(KernelPrepareContext& ctx, opt::MatrixView v, int64_t rows, int64_t cols,
                   bool as_b, opt::PackedMatrix* out) {
  const size_t bytes = as_b ? opt::packed_b_bytes(rows, cols) : opt::packed_a_bytes(rows, cols);
  if (bytes == 0) return false;
  float* dst = static_cast<float*>(ctx.allocate(bytes, 64));
  if (dst == nullptr) return false;
  *out = as_b ? opt::pack_b(v, rows, cols, dst) : opt::pack_a(v, rows, cols, dst);
  return true;
}

// Builds the state for constant operands a / b (null: not constant); Ok with
// no state when nothing is packed. Packing is optional (run reads unpacked
// operands as well), so a full method allocator leaves an operand unpacked
// rather than failing the load.
Error prepare_state(KernelPrepareContext& ctx, const opt::MatrixView* a, int64_t m, int64_t k,
                    const opt::MatrixView* b, int64_t n) {
  if (a == nullptr && b == nullptr) return Error::Ok;
  MatmulState* st = ctx.make_state<MatmulState>();
  if (st == nullptr) return Error::Ok;
  if (a != nullptr) st->has_a = pack_constant(ctx, *a, m, k, false, &st->a);
  if (b != nullptr) st->has_b = pack_constant(ctx, *b, k, n, true, &st->b);
  ctx.set_state(st);
  return Error::Ok;
}

// Runs the product with the state's packed operands where they match the
// current sizes; records a failure in ctx.
void run_gemm(KernelContext& ctx, opt::GemmArgs& g) {
  const MatmulState* st = ctx.state<MatmulState>();
  if (st != nullptr && st->has_a && st->a.rows == g.m && st->a.cols == g.k) g.packed_a = &st->a;
  if (st != nullptr && st->has_b && st->b.rows == g.k && st->b.cols == g.n) g.packed_b = &st->b;
  if (g.m == 0 || g.n == 0 || g.batch == 0) return;
  const Error e = opt::gemm(g, ctx.temp_allocator(), ctx.thread_pool());
  if (e != Error::Ok) {
    const ThreadPool* pool = ctx.thread_pool();
    ETR_LOG(Error,
            "%s: [%lld x %lld] @ [%lld x %lld] failed (%s); its packing scratch is %zu bytes "
            "of temp memory",
            ctx.op_name(), static_cast<long long>(g.m), static_cast<long long>(g.k),
            static_cast<long long>(g.k), static_cast<long long>(g.n), to_string(e),
            opt::gemm_scratch_bytes(g, pool == nullptr ? 1 : pool->num_threads()));
    ctx.fail(e);
  }
}

opt::GemmArgs row_major_args(const Tensor& a, const Tensor& b, Tensor& out, int64_t m, int64_t k,
                             int64_t n) {
  opt::GemmArgs g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.a = opt::MatrixView{a.const_data_ptr<float>(), k, 1};
  g.b = opt::MatrixView{b.const_data_ptr<float>(), n, 1};
  g.c = out.data_ptr<float>();
  g.ldc = n;
  return g;
}

// True when `self` (at most 2-D) broadcasts to [m, n].
bool broadcasts_to(const Tensor& self, int64_t m, int64_t n) {
  const int64_t target[2] = {m, n};
  for (size_t d = 0; d < self.dim(); ++d) {
    const int64_t s = self.size(d);
    if (s != 1 && s != target[2 - self.dim() + d]) return false;
  }
  return true;
}

// addmm's `beta * self` term as epilogue fields: a column or row bias when
// beta is 1 and self is one row or one column, else self broadcast into c
// (unless it is c already) with epilogue beta.
void set_addmm_bias(const Tensor& self, float beta, opt::GemmArgs& g) {
  if (beta == 0.0f) return;  // self is ignored, NaN included, as in PyTorch
  const float* s = self.const_data_ptr<float>();
  const int64_t rows = self.dim() == 2 ? self.size(0) : 1;
  const int64_t cols = self.dim() >= 1 ? self.size(self.dim() - 1) : 1;
  if (beta == 1.0f && rows == 1 && cols == g.n) {
    g.epilogue.col_bias = s;
    return;
  }
  if (beta == 1.0f && cols == 1 && rows == g.m) {
    g.epilogue.row_bias = s;
    return;
  }
  g.epilogue.beta = beta;
  if (s == g.c && rows == g.m && cols == g.n) return;
  const int64_t rs = rows == 1 ? 0 : cols, cs = cols == 1 ? 0 : 1;
  for (int64_t i = 0; i < g.m; ++i) {
    for (int64_t j = 0; j < g.n; ++j) g.c[i * g.ldc + j] = s[i * rs + j * cs];
  }
}

}  // namespace

// ---- mm

Error opt_mm_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& mat2,
                     Tensor& out) {
  if (!float_default(self) || !float_default(mat2) || !float_default(out) || self.dim() != 2 ||
      mat2.dim() != 2) {
    return Error::NotSupported;
  }
  const int64_t m = self.size(0), k = self.size(1), n = mat2.size(1);
  const opt::MatrixView a{self.const_data_ptr<float>(), k, 1};
  const opt::MatrixView b{mat2.const_data_ptr<float>(), n, 1};
  const bool ca = ctx.is_constant_arg(0), cb = ctx.is_constant_arg(1) && mat2.size(0) == k;
  return prepare_state(ctx, ca ? &a : nullptr, m, k, cb ? &b : nullptr, n);
}

void opt_mm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, ScalarType::Float, {&self, &mat2, &out}));
  ETR_KERNEL_CHECK(ctx, self.size(1) == mat2.size(0), Error::InvalidArgument,
                   "%s: inner dims differ: %s x %s", op, ShapeText(self).c_str(),
                   ShapeText(mat2).c_str());
  const int64_t sizes[2] = {self.size(0), mat2.size(1)};
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(sizes, 2)));
  opt::GemmArgs g = row_major_args(self, mat2, out, sizes[0], self.size(1), sizes[1]);
  run_gemm(ctx, g);
}

// ---- bmm

Error opt_bmm_prepare(KernelPrepareContext&, const Tensor& self, const Tensor& mat2, Tensor& out) {
  if (!float_default(self) || !float_default(mat2) || !float_default(out) || self.dim() != 3 ||
      mat2.dim() != 3) {
    return Error::NotSupported;
  }
  return Error::Ok;
}

void opt_bmm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, ScalarType::Float, {&self, &mat2, &out}));
  ETR_KERNEL_CHECK(ctx, self.size(0) == mat2.size(0) && self.size(2) == mat2.size(1),
                   Error::InvalidArgument, "%s: batch or inner dims differ: %s x %s", op,
                   ShapeText(self).c_str(), ShapeText(mat2).c_str());
  const int64_t sizes[3] = {self.size(0), self.size(1), mat2.size(2)};
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(sizes, 3)));
  const int64_t m = sizes[1], k = self.size(2), n = sizes[2];
  opt::GemmArgs g = row_major_args(self, mat2, out, m, k, n);
  g.batch = sizes[0];
  g.batch_stride_a = m * k;
  g.batch_stride_b = k * n;
  g.batch_stride_c = m * n;
  run_gemm(ctx, g);
}

// ---- addmm

Error opt_addmm_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& mat1,
                        const Tensor& mat2, Scalar, Scalar, Tensor& out) {
  if (!float_default(self) || !float_default(mat1) || !float_default(mat2) || !float_default(out) ||
      self.dim() > 2 || mat1.dim() != 2 || mat2.dim() != 2) {
    return Error::NotSupported;
  }
  const int64_t m = mat1.size(0), k = mat1.size(1), n = mat2.size(1);
  const opt::MatrixView a{mat1.const_data_ptr<float>(), k, 1};
  const opt::MatrixView b{mat2.const_data_ptr<float>(), n, 1};
  const bool ca = ctx.is_constant_arg(1), cb = ctx.is_constant_arg(2) && mat2.size(0) == k;
  return prepare_state(ctx, ca ? &a : nullptr, m, k, cb ? &b : nullptr, n);
}

void opt_addmm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat1, const Tensor& mat2,
                   Scalar beta, Scalar alpha, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, ScalarType::Float, {&self, &mat1, &mat2, &out}));
  ETR_KERNEL_CHECK(ctx, mat1.size(1) == mat2.size(0), Error::InvalidArgument,
                   "%s: inner dims differ: %s x %s", op, ShapeText(mat1).c_str(),
                   ShapeText(mat2).c_str());
  const int64_t sizes[2] = {mat1.size(0), mat2.size(1)};
  ETR_KERNEL_CHECK(ctx, broadcasts_to(self, sizes[0], sizes[1]), Error::InvalidArgument,
                   "%s: self %s does not broadcast to %s", op, ShapeText(self).c_str(),
                   ShapeText(Span<const int64_t>(sizes, 2)).c_str());
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(sizes, 2)));
  if (out.numel() == 0) return;
  opt::GemmArgs g = row_major_args(mat1, mat2, out, sizes[0], mat1.size(1), sizes[1]);
  g.epilogue.alpha = convert<float>(alpha.to_double());
  set_addmm_bias(self, convert<float>(beta.to_double()), g);
  run_gemm(ctx, g);
}

// ---- linear

Error opt_linear_prepare(KernelPrepareContext& ctx, const Tensor& input, const Tensor& weight,
                         const Tensor* bias, Tensor& out) {
  if (!float_default(input) || !float_default(weight) || !float_default(out) || input.dim() < 1 ||
      weight.dim() != 2) {
    return Error::NotSupported;
  }
  if (bias != nullptr && (!float_default(*bias) || bias->dim() > 1)) return Error::NotSupported;
  // B = weight^T: element (p, j) is weight[j, p].
  const int64_t n = weight.size(0), k = weight.size(1);
  if (ctx.is_constant_arg(1) && opt::cpu_features().avx2_fma && k > 0 && n > 0 &&
      input.size(input.dim() - 1) == k && input.numel() == k) {
    // One row (a classifier head): the weights packed in 16-row panels for
    // the matrix-vector product, one stream over them per call (Zen 4, in
    // MobileNetV3: 25 -> ~35 GB/s against the GEMM's packed panels).
    const size_t floats = opt::gemv_panels_floats(n, k);
    MatmulState* st = floats == 0 ? nullptr : ctx.make_state<MatmulState>();
    float* dst =
        st == nullptr ? nullptr : static_cast<float*>(ctx.allocate(floats * sizeof(float), 64));
    if (dst != nullptr) {
      opt::gemv_pack_panels(weight.const_data_ptr<float>(), n, k, dst);
      st->gemv = dst;
      st->gemv_n = n;
      st->gemv_k = k;
      ctx.set_state(st);
      return Error::Ok;
    }
  }
  const opt::MatrixView b{weight.const_data_ptr<float>(), 1, k};
  return prepare_state(ctx, nullptr, 0, k, ctx.is_constant_arg(1) ? &b : nullptr, n);
}

void opt_linear_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                    const Tensor* bias, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, ScalarType::Float, {&input, &weight, bias, &out}));
  const size_t r = input.dim();
  const int64_t k = input.size(r - 1);
  const int64_t n = weight.size(0);
  ETR_KERNEL_TRY(ctx, linear_resize_output(op, input, weight, bias, out));
  if (out.numel() == 0) return;
  const int64_t m = out.numel() / n;
  const MatmulState* st = ctx.state<MatmulState>();
  if (m == 1 && st != nullptr && st->gemv != nullptr && st->gemv_n == n && st->gemv_k == k &&
      (bias == nullptr || bias->numel() == n)) {
    opt::gemv_panels_avx2(st->gemv, n, k, input.const_data_ptr<float>(),
                          bias == nullptr ? nullptr : bias->const_data_ptr<float>(),
                          opt::DepthwiseEpilogue{}, out.data_ptr<float>(), ctx.thread_pool());
    return;
  }
  opt::GemmArgs g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.a = opt::MatrixView{input.const_data_ptr<float>(), k, 1};
  g.b = opt::MatrixView{weight.const_data_ptr<float>(), 1, k};
  g.c = out.data_ptr<float>();
  g.ldc = n;
  if (bias != nullptr && bias->numel() == n) {
    g.epilogue.col_bias = bias->const_data_ptr<float>();
  } else if (bias != nullptr) {
    // One bias value for every feature: n copies.
    float* col = static_cast<float*>(ctx.allocate_temp(static_cast<size_t>(n) * sizeof(float)));
    ETR_KERNEL_CHECK(ctx, col != nullptr, Error::MemoryAllocationFailed,
                     "%s: cannot allocate %zu bytes of temp memory for the bias", op,
                     static_cast<size_t>(n) * sizeof(float));
    const float v = bias->const_data_ptr<float>()[0];
    for (int64_t j = 0; j < n; ++j) col[j] = v;
    g.epilogue.col_bias = col;
  }
  run_gemm(ctx, g);
}

Error opt_linear_nobias_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                const Tensor& weight, Tensor& out) {
  return opt_linear_prepare(ctx, input, weight, nullptr, out);
}

void opt_linear_nobias_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                           Tensor& out) {
  opt_linear_out(ctx, input, weight, nullptr, out);
}

}  // namespace etr
