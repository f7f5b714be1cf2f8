// embedding_byte / embedding_2bit / embedding_4bit (.out and .dtype_out):
// rows of a quantized 2-D weight gathered at Long or Int indices and
// dequantized as ExecuTorch's reference (exir/passes/_quant_patterns_and_
// replacements.py): w = unpacked weight (2 bit: byte b holds
// (b & 3) - 2, (b >> 2 & 3) - 2, ... low bits first; 4 bit: (b >> 4) - 8,
// then (b & 15) - 8), row r, column c in group g = c / (cols / groups):
//   out = ((w - zero_points[r][g]) * scales[r][g]).to(dtype)
// in the scales' type (Float); zero points are Float too, or None.
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/index_util.h"
#include "kernels/quantized/quantized.h"
#include "kernels/quantized/util/quant_util.h"

namespace etr {
namespace {

constexpr DtypeSet kEmbeddingOutTypes = DtypeSet::of(ScalarType::Float, ScalarType::Double);

// Number of groups per row (scales' second dim, or 1).
int64_t scale_groups(const Tensor& scales) { return scales.dim() == 2 ? scales.size(1) : 1; }

template <int Bits>
int64_t unpacked_cols(const Tensor& weight) {
  return weight.size(1) * (8 / Bits);
}

// The value of column c of a row of packed bytes.
template <int Bits>
int32_t unpack(const void* row, ScalarType dtype, int64_t c) {
  if constexpr (Bits == 8) {
    return dtype == ScalarType::Char ? static_cast<const int8_t*>(row)[c]
                                     : static_cast<const uint8_t*>(row)[c];
  } else if constexpr (Bits == 4) {
    const uint8_t b = static_cast<const uint8_t*>(row)[c / 2];
    return (c % 2 == 0 ? (b >> 4) : (b & 15)) - 8;
  } else {
    const uint8_t b = static_cast<const uint8_t*>(row)[c / 4];
    return ((b >> (2 * (c % 4))) & 3) - 2;
  }
}

template <int Bits>
Error embedding_common_prepare(const char* op, const Tensor& weight, const Tensor& scales,
                               const Tensor* zero_points, int64_t quant_min, int64_t quant_max,
                               const Tensor& indices, ScalarType out_dtype, const Tensor& out) {
  if constexpr (Bits == 8) {
    ETR_RETURN_IF_ERROR(check_dtype_in(op, "weight", weight.dtype(),
                                       DtypeSet::of(ScalarType::Byte, ScalarType::Char)));
  } else {
    ETR_RETURN_IF_ERROR(check_dtype(op, "weight", weight, ScalarType::Byte));
    const int64_t lo = -(int64_t{1} << (Bits - 1));
    ETR_CHECK_OR_FAIL(quant_min == lo && quant_max == -lo - 1, Error::InvalidArgument,
                      "%s: weight quant range must be [%lld, %lld]", op, static_cast<long long>(lo),
                      static_cast<long long>(-lo - 1));
  }
  ETR_RETURN_IF_ERROR(check_rank(op, "weight", weight, 2));
  ETR_RETURN_IF_ERROR(check_default_layout(op, "weight", weight));
  ETR_RETURN_IF_ERROR(
      check_param_tensor(op, "weight_scales", scales, DtypeSet::of(ScalarType::Float)));
  ETR_RETURN_IF_ERROR(check_rank_in(op, "weight_scales", scales, 1, 2));
  ETR_CHECK_OR_FAIL(scales.size(0) == weight.size(0), Error::InvalidArgument,
                    "%s: weight_scales has %lld rows, weight %lld", op,
                    static_cast<long long>(scales.size(0)), static_cast<long long>(weight.size(0)));
  const int64_t groups = scale_groups(scales);
  const int64_t cols = unpacked_cols<Bits>(weight);
  ETR_CHECK_OR_FAIL(groups > 0 && cols % groups == 0, Error::InvalidArgument,
                    "%s: %lld weight columns do not split into %lld groups", op,
                    static_cast<long long>(cols), static_cast<long long>(groups));
  if (zero_points != nullptr) {
    ETR_RETURN_IF_ERROR(check_param_tensor(op, "weight_zero_points", *zero_points,
                                           DtypeSet::of(ScalarType::Float)));
    ETR_RETURN_IF_ERROR(
        check_same_shape(op, "weight_zero_points", *zero_points, "weight_scales", scales));
  }
  ETR_RETURN_IF_ERROR(check_index_dtype(op, indices));
  ETR_CHECK_OR_FAIL(indices.dim() < kTensorMaxDim, Error::InvalidArgument,
                    "%s: indices rank %zu too large", op, indices.dim());
  ETR_RETURN_IF_ERROR(check_dtype_in(op, "dtype", out_dtype, kEmbeddingOutTypes));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, out_dtype));
  ETR_RETURN_IF_ERROR(check_rank(op, "out", out, indices.dim() + 1));
  return check_default_layout(op, "out", out);
}

template <int Bits, typename T>
void gather_rows(const Tensor& weight, const Tensor& scales, const Tensor* zero_points,
                 const Tensor& indices, T* y) {
  const int64_t cols = unpacked_cols<Bits>(weight);
  const int64_t groups = scale_groups(scales);
  const int64_t group_size = cols / groups;
  const float* s = scales.const_data_ptr<float>();
  const float* z = zero_points == nullptr ? nullptr : zero_points->const_data_ptr<float>();
  const char* w = static_cast<const char*>(weight.const_data());
  for (int64_t i = 0; i < indices.numel(); ++i) {
    const int64_t r = load_index(indices.const_data(), indices.dtype(), i);
    const void* row = w + r * weight.size(1);
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t g = r * groups + c / group_size;
      const float q = static_cast<float>(unpack<Bits>(row, weight.dtype(), c));
      y[i * cols + c] = convert<T>((z == nullptr ? q : q - z[g]) * s[g]);
    }
  }
}

template <int Bits>
void embedding_impl(KernelContext& ctx, const Tensor& weight, const Tensor& scales,
                    const Tensor* zero_points, const Tensor& indices, Tensor& out) {
  const char* op = ctx.op_name();
  const int64_t groups = scale_groups(scales);
  ETR_KERNEL_CHECK(ctx,
                   scales.size(0) == weight.size(0) && groups > 0 &&
                       unpacked_cols<Bits>(weight) % groups == 0 &&
                       (zero_points == nullptr || zero_points->numel() == scales.numel()),
                   Error::InvalidArgument, "%s: weight %s and weight_scales %s do not fit", op,
                   ShapeText(weight).c_str(), ShapeText(scales).c_str());
  ETR_KERNEL_TRY(ctx, check_indices(op, indices, weight.size(0), false));
  int64_t sizes[kTensorMaxDim];
  const size_t r = indices.dim();
  for (size_t k = 0; k < r; ++k) sizes[k] = indices.size(k);
  sizes[r] = unpacked_cols<Bits>(weight);
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(sizes, r + 1)));
  const bool known = dispatch_floating(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    gather_rows<Bits>(weight, scales, zero_points, indices, out.data_ptr<T>());
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, out.dtype()));
}

}  // namespace

template <int Bits>
Error embedding_xbit_prepare(KernelPrepareContext& ctx, const Tensor& weight,
                             const Tensor& weight_scales, const Tensor* weight_zero_points,
                             int64_t weight_quant_min, int64_t weight_quant_max,
                             const Tensor& indices, Tensor& out) {
  return embedding_common_prepare<Bits>(ctx.op_name(), weight, weight_scales, weight_zero_points,
                                        weight_quant_min, weight_quant_max, indices,
                                        weight_scales.dtype(), out);
}

template <int Bits>
void embedding_xbit_out(KernelContext& ctx, const Tensor& weight, const Tensor& weight_scales,
                        const Tensor* weight_zero_points, int64_t, int64_t, const Tensor& indices,
                        Tensor& out) {
  embedding_impl<Bits>(ctx, weight, weight_scales, weight_zero_points, indices, out);
}

template <int Bits>
Error embedding_xbit_dtype_prepare(KernelPrepareContext& ctx, const Tensor& weight,
                                   const Tensor& weight_scales, const Tensor* weight_zero_points,
                                   int64_t weight_quant_min, int64_t weight_quant_max,
                                   const Tensor& indices, std::optional<ScalarType> dtype,
                                   Tensor& out) {
  return embedding_common_prepare<Bits>(ctx.op_name(), weight, weight_scales, weight_zero_points,
                                        weight_quant_min, weight_quant_max, indices,
                                        dtype.value_or(weight_scales.dtype()), out);
}

template <int Bits>
void embedding_xbit_dtype_out(KernelContext& ctx, const Tensor& weight, const Tensor& weight_scales,
                              const Tensor* weight_zero_points, int64_t, int64_t,
                              const Tensor& indices, std::optional<ScalarType>, Tensor& out) {
  embedding_impl<Bits>(ctx, weight, weight_scales, weight_zero_points, indices, out);
}

// The three bit widths the table registers.
template Error embedding_xbit_prepare<8>(KernelPrepareContext&, const Tensor&, const Tensor&,
                                         const Tensor*, int64_t, int64_t, const Tensor&, Tensor&);
template void embedding_xbit_out<8>(KernelContext&, const Tensor&, const Tensor&, const Tensor*,
                                    int64_t, int64_t, const Tensor&, Tensor&);
template Error embedding_xbit_dtype_prepare<8>(KernelPrepareContext&, const Tensor&, const Tensor&,
                                               const Tensor*, int64_t, int64_t, const Tensor&,
                                               std::optional<ScalarType>, Tensor&);
template void embedding_xbit_dtype_out<8>(KernelContext&, const Tensor&, const Tensor&,
                                          const Tensor*, int64_t, int64_t, const Tensor&,
                                          std::optional<ScalarType>, Tensor&);
template Error embedding_xbit_prepare<4>(KernelPrepareContext&, const Tensor&, const Tensor&,
                                         const Tensor*, int64_t, int64_t, const Tensor&, Tensor&);
template void embedding_xbit_out<4>(KernelContext&, const Tensor&, const Tensor&, const Tensor*,
                                    int64_t, int64_t, const Tensor&, Tensor&);
template Error embedding_xbit_dtype_prepare<4>(KernelPrepareContext&, const Tensor&, const Tensor&,
                                               const Tensor*, int64_t, int64_t, const Tensor&,
                                               std::optional<ScalarType>, Tensor&);
template void embedding_xbit_dtype_out<4>(KernelContext&, const Tensor&, const Tensor&,
                                          const Tensor*, int64_t, int64_t, const Tensor&,
                                          std::optional<ScalarType>, Tensor&);
template Error embedding_xbit_prepare<2>(KernelPrepareContext&, const Tensor&, const Tensor&,
                                         const Tensor*, int64_t, int64_t, const Tensor&, Tensor&);
template void embedding_xbit_out<2>(KernelContext&, const Tensor&, const Tensor&, const Tensor*,
                                    int64_t, int64_t, const Tensor&, Tensor&);
template Error embedding_xbit_dtype_prepare<2>(KernelPrepareContext&, const Tensor&, const Tensor&,
                                               const Tensor*, int64_t, int64_t, const Tensor&,
                                               std::optional<ScalarType>, Tensor&);
template void embedding_xbit_dtype_out<2>(KernelContext&, const Tensor&, const Tensor&,
                                          const Tensor*, int64_t, int64_t, const Tensor&,
                                          std::optional<ScalarType>, Tensor&);

}  // namespace etr
