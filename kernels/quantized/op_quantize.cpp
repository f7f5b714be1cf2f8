// quantize_per_tensor (.out, .Tensor_out), quantize_per_channel, quantize_per_token:
// Float input -> integer out, as torch's quantized_decomposed reference ops.
// The arithmetic type S is float, or double where torch promotes (Double
// scale tensors); the inverse scale is 1/scale computed as torch does.
#include <type_traits>

#include "kernels/portable/util/checks.h"
#include "kernels/quantized/quantized.h"
#include "kernels/quantized/util/quant_util.h"
#include "kernels/quantized/util/quant_vec.h"

namespace etr {
namespace {

// What every quantize op checks at load: a Float input, the target dtype and
// range, and out (dtype `dtype`, input's rank); all in the default dim order.
Error quantize_common_prepare(const char* op, const Tensor& input, int64_t quant_min,
                              int64_t quant_max, ScalarType dtype, const Tensor& out) {
  ETR_RETURN_IF_ERROR(check_dtype(op, "input", input, ScalarType::Float));
  ETR_RETURN_IF_ERROR(check_default_layout(op, "input", input));
  ETR_RETURN_IF_ERROR(check_quant_dtype(op, "dtype", dtype));
  ETR_RETURN_IF_ERROR(check_quant_range(op, quant_min, quant_max, dtype));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, dtype));
  ETR_RETURN_IF_ERROR(check_rank(op, "out", out, input.dim()));
  return check_default_layout(op, "out", out);
}

// Quantizes input into out block by block: `inner` consecutive elements
// share the parameters of group (block % groups), which param(group, &inv,
// &zp) gives. Chunks of the elements run on the pool; Float arithmetic into
// int8/uint8 takes quant_vec.h's loops. Returns false for an out dtype load
// refused.
template <typename S, typename Param>
bool quantize_blocks(ThreadPool* pool, const Tensor& input, Tensor& out, int64_t inner,
                     int64_t groups, const Param& param, int64_t quant_min, int64_t quant_max,
                     bool round_first) {
  return dispatch_quant(out.dtype(), [&](auto tag) {
    using Q = typename decltype(tag)::type;
    const float* x = input.const_data_ptr<float>();
    Q* q = out.data_ptr<Q>();
    const S lo = static_cast<S>(quant_min);
    const S hi = static_cast<S>(quant_max);
    if (inner == 0) return;
    const size_t block = static_cast<size_t>(inner);
    const size_t total = static_cast<size_t>(input.numel() / inner) * block;
    parallel_for(pool, total, qvec::kQuantGrain, [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end;) {
        const size_t b = i / block;
        const size_t stop = (b + 1) * block < end ? (b + 1) * block : end;
        S inv = 0;
        S zp = 0;
        param(static_cast<int64_t>(b % static_cast<size_t>(groups)), &inv, &zp);
        if constexpr (std::is_same<S, float>::value && sizeof(Q) == 1) {
          qvec::quantize<Q>(x + i, q + i, stop - i, inv, zp, lo, hi, round_first);
        } else {
          for (size_t k = i; k < stop; ++k) {
            q[k] = quantize_value<Q, S>(static_cast<S>(x[k]), inv, zp, lo, hi, round_first);
          }
        }
        i = stop;
      }
    });
  });
}

// torch: inv_scale = 1.0 / scale in double, used as a float scalar.
void quantize_per_tensor_impl(KernelContext& ctx, const Tensor& input, double scale,
                              int64_t zero_point, int64_t quant_min, int64_t quant_max,
                              Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, ScalarType::Float, {&input}));
  ETR_KERNEL_TRY(ctx, resize_output(op, out, input.sizes()));
  const float inv = internal::double_to_float(1.0 / scale);
  const float zp = static_cast<float>(zero_point);
  auto param = [&](int64_t, float* i, float* z) {
    *i = inv;
    *z = zp;
  };
  const bool known = quantize_blocks<float>(ctx.thread_pool(), input, out, input.numel(), 1, param,
                                            quant_min, quant_max, true);
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, out.dtype()));
}

// Per-group quantization with a scale tensor of dtype S and a zero-point
// tensor: inv = 1 / scales[g] computed in S (torch: 1.0 / scales).
template <typename S>
bool quantize_with_tensors(ThreadPool* pool, const Tensor& input, const Tensor& scales,
                           const Tensor& zero_points, int64_t inner, int64_t groups,
                           int64_t quant_min, int64_t quant_max, bool round_first, Tensor& out) {
  const S* s = scales.const_data_ptr<S>();
  auto param = [&](int64_t g, S* inv, S* zp) {
    *inv = S(1) / s[g];
    *zp = static_cast<S>(load_zero_point(zero_points, g));
  };
  return quantize_blocks<S>(pool, input, out, inner, groups, param, quant_min, quant_max,
                            round_first);
}

bool quantize_grouped(ThreadPool* pool, const Tensor& input, const Tensor& scales,
                      const Tensor& zero_points, int64_t inner, int64_t groups, int64_t quant_min,
                      int64_t quant_max, bool round_first, Tensor& out) {
  if (scales.dtype() == ScalarType::Double) {
    return quantize_with_tensors<double>(pool, input, scales, zero_points, inner, groups, quant_min,
                                         quant_max, round_first, out);
  }
  return quantize_with_tensors<float>(pool, input, scales, zero_points, inner, groups, quant_min,
                                      quant_max, round_first, out);
}

// Load-time checks of a scale tensor and a zero-point tensor.
Error qparam_tensors_prepare(const char* op, const Tensor& scales, const Tensor& zero_points) {
  ETR_RETURN_IF_ERROR(check_param_tensor(op, "scale", scales, kScaleTypes));
  return check_param_tensor(op, "zero_point", zero_points, kZeroPointTypes);
}

}  // namespace

Error quantize_per_tensor_prepare(KernelPrepareContext& ctx, const Tensor& input, double scale,
                                  int64_t zero_point, int64_t quant_min, int64_t quant_max,
                                  ScalarType dtype, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(quantize_common_prepare(op, input, quant_min, quant_max, dtype, out));
  ETR_RETURN_IF_ERROR(check_scale(op, "scale", scale));
  return check_zero_point(op, "zero_point", zero_point, quant_min, quant_max);
}

void quantize_per_tensor_out(KernelContext& ctx, const Tensor& input, double scale,
                             int64_t zero_point, int64_t quant_min, int64_t quant_max, ScalarType,
                             Tensor& out) {
  quantize_per_tensor_impl(ctx, input, scale, zero_point, quant_min, quant_max, out);
}

Error quantize_per_tensor_tensor_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                         const Tensor& scale, const Tensor& zero_point,
                                         int64_t quant_min, int64_t quant_max, ScalarType dtype,
                                         Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(quantize_common_prepare(op, input, quant_min, quant_max, dtype, out));
  return qparam_tensors_prepare(op, scale, zero_point);
}

// torch: quantize_per_tensor(input, scale.item(), zero_point.item(), ...).
void quantize_per_tensor_tensor_out(KernelContext& ctx, const Tensor& input, const Tensor& scale,
                                    const Tensor& zero_point, int64_t quant_min, int64_t quant_max,
                                    ScalarType, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_scale_values(op, "scale", scale, 1));
  ETR_KERNEL_TRY(ctx,
                 check_zero_point_values(op, "zero_point", zero_point, 1, quant_min, quant_max));
  quantize_per_tensor_impl(ctx, input, load_scale(scale, 0), load_zero_point(zero_point, 0),
                           quant_min, quant_max, out);
}

Error quantize_per_channel_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                   const Tensor& scales, const Tensor& zero_points, int64_t axis,
                                   int64_t quant_min, int64_t quant_max, ScalarType dtype,
                                   Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(quantize_common_prepare(op, input, quant_min, quant_max, dtype, out));
  ETR_CHECK_OR_FAIL(input.dim() > 0, Error::InvalidArgument, "%s: input must have rank >= 1", op);
  size_t d = 0;
  ETR_RETURN_IF_ERROR(wrap_dim(op, axis, input.dim(), &d));
  ETR_RETURN_IF_ERROR(qparam_tensors_prepare(op, scales, zero_points));
  ETR_RETURN_IF_ERROR(check_rank(op, "scales", scales, 1));
  return check_rank(op, "zero_points", zero_points, 1);
}

void quantize_per_channel_out(KernelContext& ctx, const Tensor& input, const Tensor& scales,
                              const Tensor& zero_points, int64_t axis, int64_t quant_min,
                              int64_t quant_max, ScalarType, Tensor& out) {
  const char* op = ctx.op_name();
  const size_t d = wrapped_dim(axis, input.dim());
  const int64_t channels = input.size(d);
  int64_t inner = 1;
  for (size_t k = d + 1; k < input.dim(); ++k) inner *= input.size(k);
  ETR_KERNEL_TRY(ctx, check_scale_values(op, "scales", scales, channels));
  ETR_KERNEL_TRY(
      ctx, check_zero_point_values(op, "zero_points", zero_points, channels, quant_min, quant_max));
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, ScalarType::Float, {&input}));
  ETR_KERNEL_TRY(ctx, resize_output(op, out, input.sizes()));
  if (channels == 0) return;
  const bool known = quantize_grouped(ctx.thread_pool(), input, scales, zero_points, inner,
                                      channels, quant_min, quant_max, true, out);
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, out.dtype()));
}

Error quantize_per_token_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                 const Tensor& scales, const Tensor& zero_points, int64_t quant_min,
                                 int64_t quant_max, ScalarType dtype, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(quantize_common_prepare(op, input, quant_min, quant_max, dtype, out));
  return qparam_tensors_prepare(op, scales, zero_points);
}

// torch: input.mul(1.0 / scales).add(zero_points).round().clamp(...).to(dtype),
// one (scale, zero point) per row of the last dim.
void quantize_per_token_out(KernelContext& ctx, const Tensor& input, const Tensor& scales,
                            const Tensor& zero_points, int64_t quant_min, int64_t quant_max,
                            ScalarType, Tensor& out) {
  const char* op = ctx.op_name();
  const size_t rank = input.dim();
  const int64_t row = rank == 0 ? 1 : input.size(rank - 1);
  int64_t tokens = 1;
  for (size_t k = 0; k + 1 < rank; ++k) tokens *= input.size(k);
  ETR_KERNEL_TRY(ctx, check_scale_values(op, "scales", scales, tokens));
  ETR_KERNEL_TRY(
      ctx, check_zero_point_values(op, "zero_points", zero_points, tokens, quant_min, quant_max));
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, ScalarType::Float, {&input}));
  ETR_KERNEL_TRY(ctx, resize_output(op, out, input.sizes()));
  if (input.numel() == 0) return;
  const bool known = quantize_grouped(ctx.thread_pool(), input, scales, zero_points, row, tokens,
                                      quant_min, quant_max, false, out);
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, out.dtype()));
}

}  // namespace etr
