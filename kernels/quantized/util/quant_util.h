// What the quantized kernels share: the argument checks (quant dtype and
// range, scales, zero points, qparam tensors) and the element formulas of
// PyTorch's quantized_decomposed reference ops. Checks return Error after
// logging "<op>: ..." like kernels/portable/util/checks.h.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/convert.h"
#include "kernels/portable/util/dtype_dispatch.h"

namespace etr {

// The integer dtypes a quantized tensor may have.
constexpr DtypeSet kQuantTypes =
    DtypeSet::of(ScalarType::Byte, ScalarType::Char, ScalarType::Short, ScalarType::Int);
constexpr DtypeSet kScaleTypes = DtypeSet::of(ScalarType::Float, ScalarType::Double);
constexpr DtypeSet kZeroPointTypes = DtypeSet::of(ScalarType::Long, ScalarType::Int);

// InvalidType unless `dtype` (the argument `what`) is Byte, Char, Short or Int.
[[nodiscard]] Error check_quant_dtype(const char* op, const char* what, ScalarType dtype);
// InvalidArgument unless quant_min <= quant_max and both lie in `dtype`'s range.
[[nodiscard]] Error check_quant_range(const char* op, int64_t quant_min, int64_t quant_max,
                                      ScalarType dtype);
// InvalidArgument unless `scale` is finite and > 0.
[[nodiscard]] Error check_scale(const char* op, const char* what, double scale);
// InvalidArgument unless quant_min <= zero_point <= quant_max.
[[nodiscard]] Error check_zero_point(const char* op, const char* what, int64_t zero_point,
                                     int64_t quant_min, int64_t quant_max);
// For prepare: `t` has a dtype in `allowed` and the default dim order.
[[nodiscard]] Error check_param_tensor(const char* op, const char* what, const Tensor& t,
                                       DtypeSet allowed);
// For run(): `t` (a scale tensor) has `n` elements, each finite and > 0.
[[nodiscard]] Error check_scale_values(const char* op, const char* what, const Tensor& t,
                                       int64_t n);
// For run(): `t` (a zero-point tensor) has `n` elements, each in [quant_min, quant_max].
[[nodiscard]] Error check_zero_point_values(const char* op, const char* what, const Tensor& t,
                                            int64_t n, int64_t quant_min, int64_t quant_max);

// Element i of a Float/Double tensor as double, of a Long/Int tensor as int64.
inline double load_scale(const Tensor& t, int64_t i) {
  return t.dtype() == ScalarType::Double ? t.const_data_ptr<double>()[i]
                                         : t.const_data_ptr<float>()[i];
}
inline int64_t load_zero_point(const Tensor& t, int64_t i) {
  return t.dtype() == ScalarType::Long ? t.const_data_ptr<int64_t>()[i]
                                       : t.const_data_ptr<int32_t>()[i];
}

// Byte, Char, Short, Int.
template <typename F>
bool dispatch_quant(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Byte: f(TypeTag<uint8_t>{}); return true;
    case ScalarType::Char: f(TypeTag<int8_t>{}); return true;
    case ScalarType::Short: f(TypeTag<int16_t>{}); return true;
    case ScalarType::Int: f(TypeTag<int32_t>{}); return true;
    default: return false;
  }
}

// torch.clamp(v, lo, hi) for floating v: NaN stays NaN.
template <typename S>
inline S clamp_keep_nan(S v, S lo, S hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

// One quantized value, computed in S (float, or double when torch promotes):
// clamp(round(x * inv_scale) + zero_point, qmin, qmax).to(Q) when
// `round_first` (quantize_per_tensor/_channel), else
// clamp(round(x * inv_scale + zero_point), qmin, qmax).to(Q) (quantize_per_token).
// std::nearbyint in the default rounding mode is torch.round (half to even).
template <typename Q, typename S>
inline Q quantize_value(S x, S inv_scale, S zero_point, S qmin, S qmax, bool round_first) {
  const S v = round_first ? std::nearbyint(x * inv_scale) + zero_point
                          : std::nearbyint(x * inv_scale + zero_point);
  return convert<Q>(clamp_keep_nan(v, qmin, qmax));
}

}  // namespace etr
