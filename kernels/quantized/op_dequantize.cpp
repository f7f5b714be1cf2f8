// dequantize_per_tensor (.out, .Tensor_out), dequantize_per_channel,
// dequantize_per_token: integer input -> Float or Double out, as torch's
// quantized_decomposed reference ops:
//   per tensor:  (input.to(T) - zero_point) * scale, in the out type T;
//   per channel/token: (input - zero_points) * scales in the scale tensor's
//   type S (the difference is exact in int64), then .to(T).
#include <type_traits>

#include "kernels/portable/util/checks.h"
#include "kernels/quantized/quantized.h"
#include "kernels/quantized/util/quant_util.h"
#include "kernels/quantized/util/quant_vec.h"

namespace etr {
namespace {

constexpr DtypeSet kDequantOutTypes = DtypeSet::of(ScalarType::Float, ScalarType::Double);

// What every dequantize op checks at load: input has dtype `dtype` (a quant
// type) within a valid range; out is Float or Double (`out_dtype` when
// given, Float otherwise) with input's rank; all in the default dim order.
Error dequantize_common_prepare(const char* op, const Tensor& input, int64_t quant_min,
                                int64_t quant_max, ScalarType dtype, ScalarType out_dtype,
                                const Tensor& out) {
  ETR_RETURN_IF_ERROR(check_quant_dtype(op, "dtype", dtype));
  ETR_RETURN_IF_ERROR(check_dtype(op, "input", input, dtype));
  ETR_RETURN_IF_ERROR(check_default_layout(op, "input", input));
  ETR_RETURN_IF_ERROR(check_quant_range(op, quant_min, quant_max, dtype));
  ETR_RETURN_IF_ERROR(check_dtype_in(op, "out_dtype", out_dtype, kDequantOutTypes));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, out_dtype));
  ETR_RETURN_IF_ERROR(check_rank(op, "out", out, input.dim()));
  return check_default_layout(op, "out", out);
}

// Dequantizes input into out block by block: `inner` consecutive elements
// share group (block % groups), whose zero point and scale (of type S)
// param(group, &zp, &scale) gives; each element is convert<T>(S(q - zp) *
// scale), the difference taken in int64 (per channel and per token), or
// (T(q) - T(zp)) * scale when kPerTensor (S is then T). The two agree for
// 8- and 16-bit inputs, whose differences are exact either way. Chunks run
// on the pool; int8/uint8 into Float with Float arithmetic take quant_vec.h's
// loop.
template <typename S, bool kPerTensor, typename Param>
bool dequantize_blocks(ThreadPool* pool, const Tensor& input, int64_t inner, int64_t groups,
                       const Param& param, Tensor& out) {
  bool known_out = false;
  const bool known_in = dispatch_quant(input.dtype(), [&](auto qtag) {
    using Q = typename decltype(qtag)::type;
    const Q* q = input.const_data_ptr<Q>();
    known_out = dispatch_floating(out.dtype(), [&](auto ttag) {
      using T = typename decltype(ttag)::type;
      T* y = out.data_ptr<T>();
      if (inner == 0) return;
      const size_t block = static_cast<size_t>(inner);
      const size_t total = static_cast<size_t>(input.numel() / inner) * block;
      parallel_for(pool, total, qvec::kQuantGrain, [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end;) {
          const size_t b = i / block;
          const size_t stop = (b + 1) * block < end ? (b + 1) * block : end;
          int64_t zp = 0;
          S s = 0;
          param(static_cast<int64_t>(b % static_cast<size_t>(groups)), &zp, &s);
          if constexpr (std::is_same<S, float>::value && std::is_same<T, float>::value &&
                        sizeof(Q) == 1) {
            qvec::dequantize<Q>(q + i, y + i, stop - i, static_cast<float>(zp), s);
          } else {
            for (size_t k = i; k < stop; ++k) {
              if constexpr (kPerTensor) {
                y[k] = (static_cast<T>(q[k]) - static_cast<T>(zp)) * s;
              } else {
                y[k] = convert<T>(static_cast<S>(static_cast<int64_t>(q[k]) - zp) * s);
              }
            }
          }
          i = stop;
        }
      });
    });
  });
  return known_in && known_out;
}

// Per tensor, in the out type T: (T(q) - T(zero_point)) * T(scale), which is
// the formula above with S = T (the difference of two small integers is exact).
void dequantize_per_tensor_impl(KernelContext& ctx, const Tensor& input, double scale,
                                int64_t zero_point, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, resize_output(op, out, input.sizes()));
  bool known = false;
  if (out.dtype() == ScalarType::Double) {
    auto param = [&](int64_t, int64_t* zp, double* s) {
      *zp = zero_point;
      *s = scale;
    };
    known = dequantize_blocks<double, true>(ctx.thread_pool(), input, input.numel(), 1, param, out);
  } else {
    const float s32 = convert<float>(scale);
    auto param = [&](int64_t, int64_t* zp, float* s) {
      *zp = zero_point;
      *s = s32;
    };
    known = dequantize_blocks<float, true>(ctx.thread_pool(), input, input.numel(), 1, param, out);
  }
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, input.dtype()));
}

// Per group with scale and zero-point tensors (zero_points may be null:
// zero); scales of type S.
template <typename S>
bool dequantize_with_tensors(ThreadPool* pool, const Tensor& input, const Tensor& scales,
                             const Tensor* zero_points, int64_t inner, int64_t groups,
                             Tensor& out) {
  const S* sc = scales.const_data_ptr<S>();
  auto param = [&](int64_t g, int64_t* zp, S* s) {
    *zp = zero_points == nullptr ? 0 : load_zero_point(*zero_points, g);
    *s = sc[g];
  };
  return dequantize_blocks<S, false>(pool, input, inner, groups, param, out);
}

void dequantize_grouped(KernelContext& ctx, const Tensor& input, const Tensor& scales,
                        const Tensor* zero_points, int64_t inner, int64_t groups, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, resize_output(op, out, input.sizes()));
  if (input.numel() == 0) return;
  ThreadPool* pool = ctx.thread_pool();
  const bool known =
      scales.dtype() == ScalarType::Double
          ? dequantize_with_tensors<double>(pool, input, scales, zero_points, inner, groups, out)
          : dequantize_with_tensors<float>(pool, input, scales, zero_points, inner, groups, out);
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, input.dtype()));
}

Error qparam_tensors_prepare(const char* op, const Tensor& scales, const Tensor* zero_points) {
  ETR_RETURN_IF_ERROR(check_param_tensor(op, "scale", scales, kScaleTypes));
  if (zero_points == nullptr) return Error::Ok;
  return check_param_tensor(op, "zero_point", *zero_points, kZeroPointTypes);
}

}  // namespace

Error dequantize_per_tensor_prepare(KernelPrepareContext& ctx, const Tensor& input, double scale,
                                    int64_t zero_point, int64_t quant_min, int64_t quant_max,
                                    ScalarType dtype, std::optional<ScalarType> out_dtype,
                                    Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(dequantize_common_prepare(op, input, quant_min, quant_max, dtype,
                                                out_dtype.value_or(ScalarType::Float), out));
  ETR_RETURN_IF_ERROR(check_scale(op, "scale", scale));
  return check_zero_point(op, "zero_point", zero_point, quant_min, quant_max);
}

void dequantize_per_tensor_out(KernelContext& ctx, const Tensor& input, double scale,
                               int64_t zero_point, int64_t, int64_t, ScalarType,
                               std::optional<ScalarType>, Tensor& out) {
  dequantize_per_tensor_impl(ctx, input, scale, zero_point, out);
}

Error dequantize_per_tensor_tensor_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                           const Tensor& scale, const Tensor& zero_point,
                                           int64_t quant_min, int64_t quant_max, ScalarType dtype,
                                           std::optional<ScalarType> out_dtype, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(dequantize_common_prepare(op, input, quant_min, quant_max, dtype,
                                                out_dtype.value_or(ScalarType::Float), out));
  return qparam_tensors_prepare(op, scale, &zero_point);
}

// torch: dequantize_per_tensor(input, scale.item(), zero_point.item(), ...).
void dequantize_per_tensor_tensor_out(KernelContext& ctx, const Tensor& input, const Tensor& scale,
                                      const Tensor& zero_point, int64_t quant_min,
                                      int64_t quant_max, ScalarType, std::optional<ScalarType>,
                                      Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_scale_values(op, "scale", scale, 1));
  ETR_KERNEL_TRY(ctx,
                 check_zero_point_values(op, "zero_point", zero_point, 1, quant_min, quant_max));
  dequantize_per_tensor_impl(ctx, input, load_scale(scale, 0), load_zero_point(zero_point, 0), out);
}

Error dequantize_per_channel_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                     const Tensor& scales, const Tensor* zero_points, int64_t axis,
                                     int64_t quant_min, int64_t quant_max, ScalarType dtype,
                                     std::optional<ScalarType> out_dtype, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(dequantize_common_prepare(op, input, quant_min, quant_max, dtype,
                                                out_dtype.value_or(ScalarType::Float), out));
  ETR_CHECK_OR_FAIL(input.dim() > 0, Error::InvalidArgument, "%s: input must have rank >= 1", op);
  size_t d = 0;
  ETR_RETURN_IF_ERROR(wrap_dim(op, axis, input.dim(), &d));
  ETR_RETURN_IF_ERROR(qparam_tensors_prepare(op, scales, zero_points));
  ETR_RETURN_IF_ERROR(check_rank(op, "scales", scales, 1));
  return zero_points == nullptr ? Error::Ok : check_rank(op, "zero_points", *zero_points, 1);
}

void dequantize_per_channel_out(KernelContext& ctx, const Tensor& input, const Tensor& scales,
                                const Tensor* zero_points, int64_t axis, int64_t quant_min,
                                int64_t quant_max, ScalarType, std::optional<ScalarType>,
                                Tensor& out) {
  const char* op = ctx.op_name();
  const size_t d = wrapped_dim(axis, input.dim());
  const int64_t channels = input.size(d);
  int64_t inner = 1;
  for (size_t k = d + 1; k < input.dim(); ++k) inner *= input.size(k);
  ETR_KERNEL_TRY(ctx, check_scale_values(op, "scales", scales, channels));
  if (zero_points != nullptr) {
    ETR_KERNEL_TRY(ctx, check_zero_point_values(op, "zero_points", *zero_points, channels,
                                                quant_min, quant_max));
  }
  dequantize_grouped(ctx, input, scales, zero_points, inner, channels, out);
}

Error dequantize_per_token_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                   const Tensor& scales, const Tensor& zero_points,
                                   int64_t quant_min, int64_t quant_max, ScalarType dtype,
                                   ScalarType output_dtype, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(
      dequantize_common_prepare(op, input, quant_min, quant_max, dtype, output_dtype, out));
  return qparam_tensors_prepare(op, scales, &zero_points);
}

void dequantize_per_token_out(KernelContext& ctx, const Tensor& input, const Tensor& scales,
                              const Tensor& zero_points, int64_t quant_min, int64_t quant_max,
                              ScalarType, ScalarType, Tensor& out) {
  const char* op = ctx.op_name();
  const size_t rank = input.dim();
  const int64_t row = rank == 0 ? 1 : input.size(rank - 1);
  int64_t tokens = 1;
  for (size_t k = 0; k + 1 < rank; ++k) tokens *= input.size(k);
  // Any scale value is taken (0 gives 0), as torch's dequantize_per_token and
  // ExecuTorch's kernel do: a quantized KV cache is dequantized whole, and
  // its scale buffer holds 0 at the positions not written yet.
  ETR_KERNEL_CHECK(ctx, scales.numel() == tokens, Error::InvalidArgument,
                   "%s: scales has %lld elements, expected %lld (one per token)", op,
                   static_cast<long long>(scales.numel()), static_cast<long long>(tokens));
  ETR_KERNEL_TRY(
      ctx, check_zero_point_values(op, "zero_points", zero_points, tokens, quant_min, quant_max));
  dequantize_grouped(ctx, input, scales, &zero_points, row, tokens, out);
}

}  // namespace etr
