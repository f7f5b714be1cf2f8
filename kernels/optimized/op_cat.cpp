// aten::cat.out (see layout.h) for default-layout inputs of out's dtype:
// each out row (one index of the dims before `dim`) is the inputs' blocks
// side by side, so the whole out is a run of plain byte copies. The out's
// bytes are cut into ranges spread over the thread pool; a range copies the
// parts of the input blocks it covers, so every out byte is written by one
// thread. Legacy empty inputs (1-D of size 0) are skipped, as in the
// portable kernel.
#include <cstring>

#include "kernels/optimized/layout.h"
#include "kernels/optimized/util/vec_broadcast.h"
#include "kernels/portable/util/checks.h"

namespace etr {
namespace {

// Out bytes per range handed to a thread.
constexpr size_t kGrainBytes = size_t{64} << 10;

bool is_skipped(const Tensor& t) { return t.dim() == 1 && t.size(0) == 0; }

// Bytes of one input's block in an out row: its dims from `d` on.
size_t block_bytes(const Tensor& t, size_t d) {
  size_t n = t.element_size();
  for (size_t k = d; k < t.dim(); ++k) n *= static_cast<size_t>(t.size(k));
  return n;
}

// Copies out bytes [begin, end) (rows of `row` bytes) from the inputs.
void copy_range(TensorList tensors, size_t d, size_t row, char* out, size_t begin, size_t end) {
  while (begin < end) {
    const size_t r = begin / row;
    const size_t lo = begin - r * row;
    const size_t hi = end - r * row < row ? end - r * row : row;
    size_t at = 0;  // where the current input's block starts in the row
    for (size_t i = 0; i < tensors.size() && at < hi; ++i) {
      const Tensor& t = tensors[i];
      if (is_skipped(t)) continue;
      const size_t b = block_bytes(t, d);
      if (at + b > lo) {
        const size_t from = lo > at ? lo : at;
        const size_t to = hi < at + b ? hi : at + b;
        std::memcpy(out + r * row + from,
                    static_cast<const char*>(t.const_data()) + r * b + from - at, to - from);
      }
      at += b;
    }
    begin = r * row + hi;
  }
}

}  // namespace

Error opt_cat_prepare(KernelPrepareContext&, TensorList tensors, int64_t dim, Tensor& out) {
  // An empty list, a dim out of range, other ranks, dtypes and layouts: the
  // portable kernel checks, converts or explains the refusal.
  const int64_t rank = static_cast<int64_t>(out.dim());
  if (tensors.size() == 0 || rank == 0 || dim < -rank || dim >= rank ||
      !opt::has_default_dim_order(out)) {
    return Error::NotSupported;
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (is_skipped(t)) continue;
    if (t.dim() != out.dim() || t.dtype() != out.dtype() || !opt::has_default_dim_order(t)) {
      return Error::NotSupported;
    }
  }
  return Error::Ok;
}

void opt_cat_out(KernelContext& ctx, TensorList tensors, int64_t dim, Tensor& out) {
  const char* op = ctx.op_name();
  const Tensor* ref = nullptr;
  for (size_t i = 0; i < tensors.size() && ref == nullptr; ++i) {
    if (!is_skipped(tensors[i])) ref = &tensors[i];
  }
  if (ref == nullptr) {  // every input is a legacy empty tensor: the result is [0]
    const int64_t zero[1] = {0};
    ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(zero, 1)));
    return;
  }
  const size_t rank = ref->dim();
  size_t d = 0;
  ETR_KERNEL_TRY(ctx, wrap_dim(op, dim, rank, &d));
  int64_t sizes[kTensorMaxDim];
  for (size_t k = 0; k < rank; ++k) sizes[k] = ref->size(k);
  sizes[d] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (is_skipped(t)) continue;
    bool match = t.dim() == rank && t.dtype() == out.dtype();
    for (size_t k = 0; match && k < rank; ++k) match = k == d || t.size(k) == ref->size(k);
    ETR_KERNEL_CHECK(ctx, match, Error::InvalidArgument,
                     "%s: tensor %zu %s does not match %s except in dim %zu (or its dtype "
                     "differs from out's)",
                     op, i, ShapeText(t).c_str(), ShapeText(*ref).c_str(), d);
    sizes[d] += t.size(d);
  }
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(sizes, rank)));
  const size_t total = static_cast<size_t>(out.numel()) * out.element_size();
  if (total == 0) return;
  const size_t row = block_bytes(out, d);
  char* dst = static_cast<char*>(out.mutable_data());
  const size_t units = (total + kGrainBytes - 1) / kGrainBytes;
  parallel_for(ctx.thread_pool(), units, 1, [&](size_t begin, size_t end) {
    const size_t last = end * kGrainBytes < total ? end * kGrainBytes : total;
    copy_range(tensors, d, row, dst, begin * kGrainBytes, last);
  });
}

}  // namespace etr
