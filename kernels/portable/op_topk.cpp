// aten::topk.values: the k largest (or smallest) elements of every slice of
// self along `dim`, with their indices. NaN ranks above every number, as in
// PyTorch. Real dtypes (PyTorch refuses Bool on CPU); indices are Long. With
// scratch memory for a slice's indices (the temp allocator) a slice goes
// through the same standard algorithms PyTorch's CPU kernel uses, with the
// same value-only comparison (a partial sort when k * 64 <= n, else the k-th
// element selected and the entries before it sorted when `sorted`), so tied
// values come out with PyTorch's indices; without scratch the k entries are
// selected one by one in sorted order (O(n * k), no memory), equal values
// then keeping the lower index first.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/portable/reduction.h"
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/dtype_dispatch.h"
#include "runtime/core/checked_math.h"

namespace etr {
namespace {

template <typename T>
bool is_nan_value(T v) {
  if constexpr (std::is_floating_point<T>::value) {
    return std::isnan(v);
  } else {
    (void)v;
    return false;
  }
}

// Strict total order of (value, index) pairs: true when element i of the
// slice ranks before element j.
template <typename T>
struct RankBefore {
  const T* data;
  int64_t stride;
  bool largest;
  bool operator()(int64_t i, int64_t j) const {
    const T a = data[i * stride], b = data[j * stride];
    const bool na = is_nan_value(a), nb = is_nan_value(b);
    if (na != nb) return largest ? na : nb;
    if (!na && a != b) return largest ? a > b : a < b;
    return i < j;
  }
};

// The value-only order PyTorch's CPU topk sorts with (NaN first when
// largest, last when smallest); equal values are not ordered.
template <typename T>
struct ValueBefore {
  const T* data;
  int64_t stride;
  bool largest;
  bool operator()(int64_t i, int64_t j) const {
    const T a = data[i * stride], b = data[j * stride];
    if (largest) return (is_nan_value(a) && !is_nan_value(b)) || a > b;
    return (!is_nan_value(a) && is_nan_value(b)) || a < b;
  }
};

// Calls emit(r, i) for the first k ranks r of one slice of n elements:
// PyTorch's algorithm on scratch (n entries) when given, else selection of
// each next rank by a scan (O(n * k), no memory).
template <typename T, typename Emit>
void select_slice(const RankBefore<T>& before, int64_t n, int64_t k, bool sorted, int64_t* scratch,
                  Emit&& emit) {
  if (scratch != nullptr) {
    const ValueBefore<T> by_value{before.data, before.stride, before.largest};
    for (int64_t i = 0; i < n; ++i) scratch[i] = i;
    if (k > 0 && k * 64 <= n) {
      std::partial_sort(scratch, scratch + k, scratch + n, by_value);
    } else if (k > 0) {
      std::nth_element(scratch, scratch + k - 1, scratch + n, by_value);
      if (sorted) std::sort(scratch, scratch + k - 1, by_value);
    }
    for (int64_t r = 0; r < k; ++r) emit(r, scratch[r]);
    return;
  }
  int64_t prev = -1;
  for (int64_t r = 0; r < k; ++r) {
    int64_t best = -1;
    for (int64_t i = 0; i < n; ++i) {
      if (prev >= 0 && !before(prev, i)) continue;  // ranked already
      if (best < 0 || before(i, best)) best = i;
    }
    emit(r, best);
    prev = best;
  }
}

// Advances idx over every dim of t but `skip` (odometer); false after the last.
bool next_slice(const Tensor& t, size_t skip, int64_t* idx) {
  for (size_t i = t.dim(); i-- > 0;) {
    if (i == skip) continue;
    if (++idx[i] < t.size(i)) return true;
    idx[i] = 0;
  }
  return false;
}

}  // namespace

Error topk_values_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t, int64_t dim, bool,
                          bool, Tensor& values, Tensor& indices) {
  const char* op = ctx.op_name();
  size_t d = 0;
  ETR_RETURN_IF_ERROR(check_dtype_in(op, "self", self.dtype(), kRealTypes));
  ETR_RETURN_IF_ERROR(wrap_dim(op, dim, self.dim(), &d));
  ETR_RETURN_IF_ERROR(check_dtype(op, "values", values, self.dtype()));
  ETR_RETURN_IF_ERROR(check_dtype(op, "indices", indices, ScalarType::Long));
  ETR_RETURN_IF_ERROR(check_rank(op, "values", values, self.dim()));
  return check_rank(op, "indices", indices, self.dim());
}

void topk_values(KernelContext& ctx, const Tensor& self, int64_t k, int64_t dim, bool largest,
                 bool sorted, Tensor& values, Tensor& indices) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&values}));
  ETR_KERNEL_TRY(ctx, check_dtype(op, "indices", indices, ScalarType::Long));
  const size_t d = wrapped_dim(dim, self.dim());
  const int64_t n = self.dim() == 0 ? 1 : self.size(d);
  ETR_KERNEL_CHECK(ctx, k >= 0 && k <= n, Error::InvalidArgument,
                   "%s: k %lld out of range for a dim of size %lld", op, static_cast<long long>(k),
                   static_cast<long long>(n));
  int64_t sizes[kTensorMaxDim];
  for (size_t i = 0; i < self.dim(); ++i) sizes[i] = i == d ? k : self.size(i);
  ETR_KERNEL_TRY(ctx, resize_output(op, values, IntArrayRef(sizes, self.dim())));
  ETR_KERNEL_TRY(ctx, resize_output(op, indices, IntArrayRef(sizes, self.dim())));
  // A 0-d self gives 0-d outputs holding its value whatever k is (as PyTorch).
  const int64_t take = self.dim() == 0 ? 1 : k;
  if (values.numel() == 0 || take == 0) return;
  const int64_t in_stride = self.dim() == 0 ? 1 : self.stride(d);
  const int64_t v_stride = self.dim() == 0 ? 1 : values.stride(d);
  const int64_t i_stride = self.dim() == 0 ? 1 : indices.stride(d);
  size_t scratch_bytes = 0;
  int64_t* scratch = nullptr;
  if (checked_mul(static_cast<size_t>(n), sizeof(int64_t), &scratch_bytes)) {
    scratch = static_cast<int64_t*>(ctx.allocate_temp(scratch_bytes, alignof(int64_t)));
  }
  const bool known = dispatch_real(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = self.const_data_ptr<T>();
    T* vo = values.data_ptr<T>();
    int64_t* io = indices.data_ptr<int64_t>();
    int64_t idx[kTensorMaxDim] = {};
    do {
      int64_t in_off = 0, v_off = 0, i_off = 0;
      for (size_t i = 0; i < self.dim(); ++i) {
        if (i == d) continue;
        in_off += idx[i] * self.stride(i);
        v_off += idx[i] * values.stride(i);
        i_off += idx[i] * indices.stride(i);
      }
      const RankBefore<T> before{in + in_off, in_stride, largest};
      select_slice(before, n, take, sorted, scratch, [&](int64_t r, int64_t i) {
        io[i_off + r * i_stride] = i;
        vo[v_off + r * v_stride] = in[in_off + i * in_stride];
      });
    } while (next_slice(self, d, idx));
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, self.dtype()));
}

}  // namespace etr
