// aten::mean.out over the trailing dims of a default-layout Float tensor
// (e.g. H, W of [N, C, H, W], keepdim or not): one contiguous row per output
// element, summed in double (opt::row_means), rows spread over the thread
// pool.
#include "kernels/cpu_math/vec_math.h"
#include "kernels/optimized/normalization.h"
#include "kernels/optimized/util/vec_broadcast.h"
#include "kernels/portable/util/checks.h"

namespace etr {
namespace {

// Elements per chunk of rows: a squeeze-excite block's mean over
// [672, 14, 14] (12 us on one thread, Zen 4) splits in 4 chunks.
constexpr size_t kGrainElements = 32768;

// The number of trailing dims `dims` names (each once, any order), or 0 when
// they are not exactly the last k dims of a rank-`rank` tensor.
size_t trailing_dims(IntArrayRef dims, size_t rank) {
  const size_t k = dims.size();
  if (k == 0 || k > rank) return 0;
  uint32_t seen = 0;
  for (int64_t d : dims) {
    const int64_t w = d < 0 ? d + static_cast<int64_t>(rank) : d;
    if (w < static_cast<int64_t>(rank - k) || w >= static_cast<int64_t>(rank)) return 0;
    const uint32_t bit = uint32_t{1} << w;
    if ((seen & bit) != 0) return 0;
    seen |= bit;
  }
  return k;
}

}  // namespace

Error opt_mean_prepare(KernelPrepareContext&, const Tensor& self, std::optional<IntArrayRef> dim,
                       bool, std::optional<ScalarType> dtype, Tensor& out) {
  const bool ok = self.dtype() == ScalarType::Float && out.dtype() == ScalarType::Float &&
                  (!dtype.has_value() || *dtype == ScalarType::Float) &&
                  opt::has_default_dim_order(self) && opt::has_default_dim_order(out) &&
                  dim.has_value() && self.dim() <= 32 && trailing_dims(*dim, self.dim()) > 0;
  return ok ? Error::Ok : Error::NotSupported;
}

void opt_mean_out(KernelContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                  bool keepdim, std::optional<ScalarType>, Tensor& out) {
  const size_t rank = self.dim();
  const size_t k = trailing_dims(*dim, rank);
  int64_t sizes[kTensorMaxDim];
  size_t out_rank = 0;
  int64_t rows = 1;
  int64_t cols = 1;
  for (size_t d = 0; d < rank; ++d) {
    if (d < rank - k) {
      sizes[out_rank++] = self.size(d);
      rows *= self.size(d);
    } else {
      cols *= self.size(d);
      if (keepdim) sizes[out_rank++] = 1;
    }
  }
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, Span<const int64_t>(sizes, out_rank)));
  const float* x = self.const_data_ptr<float>();
  float* y = out.data_ptr<float>();
  const size_t n = static_cast<size_t>(cols);
  const size_t grain = n >= kGrainElements ? 1 : kGrainElements / (n == 0 ? 1 : n);
  parallel_for(ctx.thread_pool(), static_cast<size_t>(rows), grain, [&](size_t begin, size_t end) {
    opt::row_means(x + begin * n, end - begin, n, static_cast<double>(cols), y + begin);
  });
}

}  // namespace etr
