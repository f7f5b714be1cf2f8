// aten::native_layer_norm.out for default-layout Float tensors: per row of
// the trailing normalized_shape dims, mean and variance accumulated in
// double, then (x - mean) * rstd * weight + bias in float (one FMA for the
// affine part) with the mean and rstd rounded to float, as written to the
// mean and rstd outputs. Rows
// run on the thread pool.
#include <cmath>

#include "kernels/cpu_math/vec_math.h"
#include "kernels/optimized/normalization.h"
#include "kernels/optimized/util/vec_broadcast.h"
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/shape_rules.h"

namespace etr {
namespace {

// Elements per chunk of rows: ViT-small's [197, 192] calls split in 2-3
// chunks (2 threads, Zen 4: 15 -> 9 us wall each; chunks of 65536 left
// them on one thread).
constexpr size_t kGrainElements = 16384;

bool float_default(const Tensor* t) {
  return t == nullptr || (t->dtype() == ScalarType::Float && opt::has_default_dim_order(*t));
}

}  // namespace

Error opt_native_layer_norm_prepare(KernelPrepareContext&, const Tensor& input,
                                    IntArrayRef normalized_shape, const Tensor* weight,
                                    const Tensor* bias, double, Tensor& out, Tensor& mean_out,
                                    Tensor& rstd_out) {
  const size_t k = normalized_shape.size();
  if (k < 1 || k > input.dim() || input.dtype() != ScalarType::Float) return Error::NotSupported;
  for (const Tensor* t :
       {&input, weight, bias, static_cast<const Tensor*>(&out),
        static_cast<const Tensor*>(&mean_out), static_cast<const Tensor*>(&rstd_out)}) {
    if (!float_default(t)) return Error::NotSupported;
  }
  if ((weight != nullptr && weight->dim() != k) || (bias != nullptr && bias->dim() != k)) {
    return Error::NotSupported;
  }
  return Error::Ok;
}

void opt_native_layer_norm_out(KernelContext& ctx, const Tensor& input,
                               IntArrayRef normalized_shape, const Tensor* weight,
                               const Tensor* bias, double eps, Tensor& out, Tensor& mean_out,
                               Tensor& rstd_out) {
  int64_t rows = 0;
  int64_t cols = 0;
  ETR_KERNEL_TRY(ctx, layer_norm_resize_outputs(ctx.op_name(), input, normalized_shape, weight,
                                                bias, out, mean_out, rstd_out, &rows, &cols));
  const size_t n = static_cast<size_t>(cols);
  const float* x = input.const_data_ptr<float>();
  const float* w = weight != nullptr ? weight->const_data_ptr<float>() : nullptr;
  const float* b = bias != nullptr ? bias->const_data_ptr<float>() : nullptr;
  float* y = out.data_ptr<float>();
  float* mean = mean_out.data_ptr<float>();
  float* rstd = rstd_out.data_ptr<float>();
  const size_t grain = n >= kGrainElements ? 1 : kGrainElements / (n == 0 ? 1 : n);
  parallel_for(ctx.thread_pool(), static_cast<size_t>(rows), grain, [&](size_t begin, size_t end) {
    for (size_t r = begin; r < end; ++r) {
      const float* xr = x + r * n;
      const double mu = opt::sum_f64(xr, n) / static_cast<double>(n);
      const double var = opt::sum_sq_dev_f64(xr, mu, n) / static_cast<double>(n);
      const double inv_std = 1.0 / std::sqrt(var + eps);
      const float mean_f = static_cast<float>(mu);
      const float rstd_f = static_cast<float>(inv_std);
      opt::normalize_f32(xr, mean_f, rstd_f, w, b, y + r * n, n);
      mean[r] = mean_f;
      rstd[r] = rstd_f;
    }
  });
}

}  // namespace etr
