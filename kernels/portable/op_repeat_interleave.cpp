// aten::repeat_interleave.Tensor_out: for a 1-D Int or Long `repeats`, out
// holds i repeated repeats[i] times, for i = 0, 1, ... (out has repeats'
// dtype). The length is the sum of repeats, known only from the data: out
// must be a dynamic-shape tensor unless output_size gives the length (then
// the sum must equal it, as in PyTorch).
#include <cstdint>

#include "kernels/portable/indexing.h"
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/index_util.h"

namespace etr {

Error repeat_interleave_tensor_prepare(KernelPrepareContext& ctx, const Tensor& repeats,
                                       std::optional<int64_t> output_size, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_index_dtype(op, repeats));
  ETR_RETURN_IF_ERROR(check_rank(op, "repeats", repeats, 1));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, repeats.dtype()));
  ETR_RETURN_IF_ERROR(check_rank(op, "out", out, 1));
  ETR_CHECK_OR_FAIL(output_size.has_value() || out.shape_dynamism() != ShapeDynamism::Static,
                    Error::NotSupported,
                    "%s: without output_size, out must be a dynamic-shape tensor (its length "
                    "depends on repeats' values); out %s is static",
                    op, ShapeText(out).c_str());
  return Error::Ok;
}

void repeat_interleave_tensor_out(KernelContext& ctx, const Tensor& repeats,
                                  std::optional<int64_t> output_size, Tensor& out) {
  const char* op = ctx.op_name();
  const ScalarType t = repeats.dtype();
  ETR_KERNEL_CHECK(ctx, (t == ScalarType::Long || t == ScalarType::Int) && repeats.dim() == 1,
                   Error::Internal, "%s: repeats not prepared", op);
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, t, {&out}));
  const int64_t n = repeats.size(0);
  const int64_t stride = repeats.stride(0);
  const void* data = repeats.const_data();
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = load_index(data, t, i * stride);
    ETR_KERNEL_CHECK(ctx, r >= 0, Error::InvalidArgument,
                     "%s: repeats[%lld] is %lld; repeats cannot be negative", op,
                     static_cast<long long>(i), static_cast<long long>(r));
    ETR_KERNEL_CHECK(ctx, !__builtin_add_overflow(total, r, &total), Error::InvalidArgument,
                     "%s: the sum of repeats overflows int64", op);
  }
  ETR_KERNEL_CHECK(ctx, !output_size.has_value() || *output_size == total, Error::InvalidArgument,
                   "%s: output_size %lld does not match the sum of repeats %lld", op,
                   static_cast<long long>(output_size.value_or(0)), static_cast<long long>(total));
  const int64_t sizes[1] = {total};
  ETR_KERNEL_TRY(ctx, resize_output(op, out, IntArrayRef(sizes, 1)));
  const int64_t out_stride = out.stride(0);
  int64_t k = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = load_index(data, t, i * stride);
    for (int64_t j = 0; j < r; ++j, ++k) {
      if (t == ScalarType::Long) {
        out.data_ptr<int64_t>()[k * out_stride] = i;
      } else {
        out.data_ptr<int32_t>()[k * out_stride] = static_cast<int32_t>(i);
      }
    }
  }
}

}  // namespace etr
