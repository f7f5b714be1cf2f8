#include "kernels/portable/util/index_util.h"

namespace etr {

Error check_index_dtype(const char* op, const Tensor& index) {
  return check_dtype_in(op, "index tensor", index.dtype(), kIndexTypes);
}

Error check_indices(const char* op, const Tensor& index, int64_t size, bool allow_negative) {
  ETR_RETURN_IF_ERROR(check_dispatched(op, kIndexTypes.contains(index.dtype()), index.dtype()));
  ETR_RETURN_IF_ERROR(check_default_layout(op, "index tensor", index));
  const int64_t lo = allow_negative ? -size : 0;
  for (int64_t i = 0; i < index.numel(); ++i) {
    const int64_t v = load_index(index.const_data(), index.dtype(), i);
    ETR_CHECK_OR_FAIL(v >= lo && v < size, Error::InvalidArgument,
                      "%s: index %lld out of range for a dim of size %lld", op,
                      static_cast<long long>(v), static_cast<long long>(size));
  }
  return Error::Ok;
}

}  // namespace etr
