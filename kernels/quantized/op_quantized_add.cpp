// quantized_decomposed::add.out: out = quantize(dequantize(a) + dequantize(b))
// elementwise, each step as torch's per-tensor reference ops in float32:
// dequantize (q - zp) * scale, quantize clamp(round(v * float(1 / scale)) + zp).
// a, b and out share their shape and dtype (Byte or Char).
#include "kernels/portable/util/checks.h"
#include "kernels/quantized/quantized.h"
#include "kernels/quantized/util/quant_util.h"

namespace etr {
namespace {

Error check_operand(const char* op, const char* scale_what, const char* zp_what, double scale,
                    int64_t zero_point, int64_t quant_min, int64_t quant_max, ScalarType dtype) {
  ETR_RETURN_IF_ERROR(check_quant_range(op, quant_min, quant_max, dtype));
  ETR_RETURN_IF_ERROR(check_scale(op, scale_what, scale));
  return check_zero_point(op, zp_what, zero_point, quant_min, quant_max);
}

}  // namespace

Error quantized_add_prepare(KernelPrepareContext& ctx, const Tensor& a, double a_scale,
                            int64_t a_zero_point, int64_t a_quant_min, int64_t a_quant_max,
                            const Tensor& b, double b_scale, int64_t b_zero_point,
                            int64_t b_quant_min, int64_t b_quant_max, double out_scale,
                            int64_t out_zero_point, int64_t out_quant_min, int64_t out_quant_max,
                            Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(
      check_dtype_in(op, "a", a.dtype(), DtypeSet::of(ScalarType::Byte, ScalarType::Char)));
  ETR_RETURN_IF_ERROR(check_dtype(op, "b", b, a.dtype()));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, a.dtype()));
  ETR_RETURN_IF_ERROR(check_rank(op, "b", b, a.dim()));
  ETR_RETURN_IF_ERROR(check_rank(op, "out", out, a.dim()));
  ETR_RETURN_IF_ERROR(check_default_layout(op, "a", a));
  ETR_RETURN_IF_ERROR(check_default_layout(op, "b", b));
  ETR_RETURN_IF_ERROR(check_default_layout(op, "out", out));
  ETR_RETURN_IF_ERROR(check_operand(op, "a_scale", "a_zero_point", a_scale, a_zero_point,
                                    a_quant_min, a_quant_max, a.dtype()));
  ETR_RETURN_IF_ERROR(check_operand(op, "b_scale", "b_zero_point", b_scale, b_zero_point,
                                    b_quant_min, b_quant_max, a.dtype()));
  return check_operand(op, "out_scale", "out_zero_point", out_scale, out_zero_point, out_quant_min,
                       out_quant_max, a.dtype());
}

void quantized_add_out(KernelContext& ctx, const Tensor& a, double a_scale, int64_t a_zero_point,
                       int64_t, int64_t, const Tensor& b, double b_scale, int64_t b_zero_point,
                       int64_t, int64_t, double out_scale, int64_t out_zero_point,
                       int64_t out_quant_min, int64_t out_quant_max, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_same_shape(op, "a", a, "b", b));
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, a.dtype(), {&b, &out}));
  ETR_KERNEL_TRY(ctx, resize_output(op, out, a.sizes()));
  const float sa = internal::double_to_float(a_scale);
  const float sb = internal::double_to_float(b_scale);
  const float za = static_cast<float>(a_zero_point);
  const float zb = static_cast<float>(b_zero_point);
  const float inv = internal::double_to_float(1.0 / out_scale);
  const float zo = static_cast<float>(out_zero_point);
  const float lo = static_cast<float>(out_quant_min);
  const float hi = static_cast<float>(out_quant_max);
  const bool known = dispatch_quant(a.dtype(), [&](auto tag) {
    using Q = typename decltype(tag)::type;
    const Q* qa = a.const_data_ptr<Q>();
    const Q* qb = b.const_data_ptr<Q>();
    Q* y = out.data_ptr<Q>();
    for (int64_t i = 0; i < a.numel(); ++i) {
      const float v = (static_cast<float>(qa[i]) - za) * sa + (static_cast<float>(qb[i]) - zb) * sb;
      y[i] = quantize_value<Q, float>(v, inv, zo, lo, hi, true);
    }
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, a.dtype()));
}

}  // namespace etr
