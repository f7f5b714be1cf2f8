// aten::reflection_pad{1,2,3}d.out and aten::replication_pad{1,2,3}d.out:
// pad (or, with negative amounts, crop) the last k = 1, 2, 3 dims of a
// (k+1)-d or (k+2)-d input. padding is [left, right, top, bottom, front,
// back] (the last dim first). Reflection mirrors around the edge element and
// needs every pad smaller than its dim; replication repeats the edge
// element. The leading (batch, channel) dims may be empty, the padded dims
// may not, as in PyTorch. Real dtypes, any dim order; element bytes are moved.
#include <cstring>

#include "kernels/portable/shape.h"
#include "kernels/portable/util/checks.h"

namespace etr {
namespace {

enum class PadMode { kReflect, kReplicate };

// The padded dims (innermost last, missing ones of size 1 without padding)
// and up to two leading dims.
struct PadGeometry {
  size_t lead = 0;
  int64_t lead_size[2] = {1, 1};
  int64_t lead_in_stride[2] = {0, 0};
  int64_t lead_out_stride[2] = {0, 0};
  int64_t in[3] = {1, 1, 1};
  int64_t out[3] = {1, 1, 1};
  int64_t before[3] = {0, 0, 0};
  int64_t in_stride[3] = {0, 0, 0};
  int64_t out_stride[3] = {0, 0, 0};
};

Error pad_prepare(const char* op, const Tensor& self, IntArrayRef padding, size_t k,
                  const Tensor& out) {
  ETR_RETURN_IF_ERROR(check_rank_in(op, "self", self, k + 1, k + 2));
  ETR_CHECK_OR_FAIL(padding.size() == 2 * k, Error::InvalidArgument,
                    "%s: padding must have %zu values, got %zu", op, 2 * k, padding.size());
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, self.dtype()));
  return check_rank(op, "out", out, self.dim());
}

// Run: checks the sizes against the padding, fills *g and resizes out.
Error pad_geometry(const char* op, const Tensor& self, IntArrayRef padding, size_t k, PadMode mode,
                   Tensor& out, PadGeometry* g) {
  const size_t r = self.dim();
  int64_t sizes[kTensorMaxDim];
  g->lead = r - k;
  for (size_t i = 0; i < r; ++i) {
    sizes[i] = self.size(i);
    // Only a batch dim (the first of k + 2) may be empty.
    ETR_CHECK_OR_FAIL(sizes[i] > 0 || (i == 0 && g->lead == 2), Error::InvalidArgument,
                      "%s: input %s may only have an empty batch dim", op, ShapeText(self).c_str());
  }
  for (size_t j = 0; j < k; ++j) {
    const size_t d = g->lead + j;      // tensor dim
    const size_t p = 2 * (k - 1 - j);  // its padding pair
    const int64_t w = self.size(d);
    const int64_t lo = padding[p], hi = padding[p + 1];
    ETR_CHECK_OR_FAIL(lo >= -w && lo <= INT32_MAX && hi >= -w && hi <= INT32_MAX,
                      Error::InvalidArgument, "%s: padding %s is out of range for input %s", op,
                      ShapeText(padding).c_str(), ShapeText(self).c_str());
    ETR_CHECK_OR_FAIL(mode == PadMode::kReplicate || (lo < w && hi < w), Error::InvalidArgument,
                      "%s: padding %s must be less than the padded dim (%lld) of input %s", op,
                      ShapeText(padding).c_str(), static_cast<long long>(w),
                      ShapeText(self).c_str());
    sizes[d] = w + lo + hi;
    ETR_CHECK_OR_FAIL(sizes[d] >= 1, Error::InvalidArgument,
                      "%s: padding %s leaves no output along dim %zu of input %s", op,
                      ShapeText(padding).c_str(), d, ShapeText(self).c_str());
    g->in[3 - k + j] = w;
    g->out[3 - k + j] = sizes[d];
    g->before[3 - k + j] = lo;
  }
  ETR_RETURN_IF_ERROR(check_operand_dtypes(op, self.dtype(), {&out}));
  ETR_RETURN_IF_ERROR(resize_output(op, out, Span<const int64_t>(sizes, r)));
  for (size_t i = 0; i < g->lead; ++i) {
    g->lead_size[i] = self.size(i);
    g->lead_in_stride[i] = self.stride(i);
    g->lead_out_stride[i] = out.stride(i);
  }
  for (size_t j = 0; j < k; ++j) {
    g->in_stride[3 - k + j] = self.stride(g->lead + j);
    g->out_stride[3 - k + j] = out.stride(g->lead + j);
  }
  return Error::Ok;
}

// The input position read for output position o along a dim of size w.
int64_t source_index(int64_t o, int64_t before, int64_t w, PadMode mode) {
  int64_t i = o - before;
  if (mode == PadMode::kReflect) {
    if (i < 0) i = -i;
    if (i >= w) i = 2 * (w - 1) - i;
    return i;
  }
  return i < 0 ? 0 : (i >= w ? w - 1 : i);
}

void pad_copy(const Tensor& self, const PadGeometry& g, PadMode mode, Tensor& out) {
  const int64_t elem = static_cast<int64_t>(self.element_size());
  const char* src = static_cast<const char*>(self.const_data());
  char* dst = static_cast<char*>(out.mutable_data());
  for (int64_t a = 0; a < g.lead_size[0]; ++a) {
    for (int64_t b = 0; b < g.lead_size[1]; ++b) {
      const int64_t in0 = a * g.lead_in_stride[0] + b * g.lead_in_stride[1];
      const int64_t out0 = a * g.lead_out_stride[0] + b * g.lead_out_stride[1];
      for (int64_t z = 0; z < g.out[0]; ++z) {
        const int64_t iz = source_index(z, g.before[0], g.in[0], mode);
        for (int64_t y = 0; y < g.out[1]; ++y) {
          const int64_t iy = source_index(y, g.before[1], g.in[1], mode);
          const int64_t in1 = in0 + iz * g.in_stride[0] + iy * g.in_stride[1];
          const int64_t out1 = out0 + z * g.out_stride[0] + y * g.out_stride[1];
          for (int64_t x = 0; x < g.out[2]; ++x) {
            const int64_t ix = source_index(x, g.before[2], g.in[2], mode);
            std::memcpy(dst + (out1 + x * g.out_stride[2]) * elem,
                        src + (in1 + ix * g.in_stride[2]) * elem, static_cast<size_t>(elem));
          }
        }
      }
    }
  }
}

void pad_run(KernelContext& ctx, const Tensor& self, IntArrayRef padding, size_t k, PadMode mode,
             Tensor& out) {
  PadGeometry g;
  ETR_KERNEL_TRY(ctx, pad_geometry(ctx.op_name(), self, padding, k, mode, out, &g));
  if (out.numel() == 0) return;
  pad_copy(self, g, mode, out);
}

}  // namespace

Error reflection_pad1d_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef padding,
                               Tensor& out) {
  return pad_prepare(ctx.op_name(), self, padding, 1, out);
}
Error reflection_pad2d_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef padding,
                               Tensor& out) {
  return pad_prepare(ctx.op_name(), self, padding, 2, out);
}
Error reflection_pad3d_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef padding,
                               Tensor& out) {
  return pad_prepare(ctx.op_name(), self, padding, 3, out);
}

void reflection_pad1d_out(KernelContext& ctx, const Tensor& self, IntArrayRef padding,
                          Tensor& out) {
  pad_run(ctx, self, padding, 1, PadMode::kReflect, out);
}
void reflection_pad2d_out(KernelContext& ctx, const Tensor& self, IntArrayRef padding,
                          Tensor& out) {
  pad_run(ctx, self, padding, 2, PadMode::kReflect, out);
}
void reflection_pad3d_out(KernelContext& ctx, const Tensor& self, IntArrayRef padding,
                          Tensor& out) {
  pad_run(ctx, self, padding, 3, PadMode::kReflect, out);
}
void replication_pad1d_out(KernelContext& ctx, const Tensor& self, IntArrayRef padding,
                           Tensor& out) {
  pad_run(ctx, self, padding, 1, PadMode::kReplicate, out);
}
void replication_pad2d_out(KernelContext& ctx, const Tensor& self, IntArrayRef padding,
                           Tensor& out) {
  pad_run(ctx, self, padding, 2, PadMode::kReplicate, out);
}
void replication_pad3d_out(KernelContext& ctx, const Tensor& self, IntArrayRef padding,
                           Tensor& out) {
  pad_run(ctx, self, padding, 3, PadMode::kReplicate, out);
}

}  // namespace etr
