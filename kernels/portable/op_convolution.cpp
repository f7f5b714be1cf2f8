// aten::convolution.out: 1-D and 2-D, grouped, strided, dilated, padded, and
// transposed. Direct convolution: for each output plane, every (input
// channel, kernel tap) pair adds a scaled, shifted input row into the output
// row, with the valid range computed up front so the inner loop has no bounds
// checks and is contiguous for stride 1. Float and double, default layout.
#include <algorithm>

#include "kernels/portable/linear_algebra.h"
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/dtype_dispatch.h"

namespace etr {
namespace {

// Stride, padding, dilation and output padding are bounded so that every
// index product below fits comfortably in int64.
constexpr int64_t kMaxParam = INT32_MAX;

// A 1-D convolution is a 2-D one with H == KH == 1.
struct ConvGeom {
  int64_t batch = 0, c_in = 0, h = 1, w = 0;
  int64_t c_out = 0, kh = 1, kw = 0;
  int64_t oh = 1, ow = 0;
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1, oph = 0, opw = 0;
  int64_t groups = 1;
  bool transposed = false;
};

// Reads spatial parameter i of `list` (length 1 broadcasts). False when absent.
bool param_at(IntArrayRef list, size_t spatial, size_t i, int64_t* value) {
  if (list.size() == 1) {
    *value = list[0];
    return true;
  }
  if (list.size() != spatial) return false;
  *value = list[i];
  return true;
}

// The four parameter lists of a call, with their names and minimum values.
struct ConvParams {
  IntArrayRef lists[4];  // stride, padding, dilation, output_padding
  static constexpr const char* kNames[4] = {"stride", "padding", "dilation", "output_padding"};
  static constexpr int64_t kMins[4] = {1, 0, 1, 0};
};

// Reads parameter p, spatial index i (an empty output_padding reads 0).
// False when the list has neither 1 nor `spatial` entries.
bool read_param(const ConvParams& c, size_t p, size_t spatial, size_t i, int64_t* v) {
  *v = 0;
  return (p == 3 && c.lists[p].size() == 0) || param_at(c.lists[p], spatial, i, v);
}

// Fills the (h, w) parameters from the lists; for 1-D only w is read.
// Entries prepare refuses (malformed lists, out-of-range values) leave their
// defaults, so run never divides by a zero stride.
void read_params(const ConvParams& c, size_t spatial, ConvGeom* g) {
  int64_t* dst[4][2] = {{&g->sh, &g->sw}, {&g->ph, &g->pw}, {&g->dh, &g->dw}, {&g->oph, &g->opw}};
  for (size_t p = 0; p < 4; ++p) {
    for (size_t i = 0; i < spatial; ++i) {
      int64_t v = 0;
      const bool ok =
          read_param(c, p, spatial, i, &v) && v >= ConvParams::kMins[p] && v <= kMaxParam;
      if (ok) *dst[p][spatial == 1 ? 1 : i] = v;
    }
  }
}

// Prepare: every list has 1 or `spatial` entries within range, and a
// transposed output_padding is smaller than its stride or dilation.
Error check_params(const char* op, const ConvParams& c, size_t spatial, bool transposed) {
  for (size_t p = 0; p < 4; ++p) {
    for (size_t i = 0; i < spatial; ++i) {
      int64_t v = 0;
      ETR_CHECK_OR_FAIL(read_param(c, p, spatial, i, &v), Error::InvalidArgument,
                        "%s: %s has %zu entries, expected 1 or %zu", op, ConvParams::kNames[p],
                        c.lists[p].size(), spatial);
      ETR_CHECK_OR_FAIL(v >= ConvParams::kMins[p] && v <= kMaxParam, Error::InvalidArgument,
                        "%s: %s %lld out of range [%lld, %lld]", op, ConvParams::kNames[p],
                        static_cast<long long>(v), static_cast<long long>(ConvParams::kMins[p]),
                        static_cast<long long>(kMaxParam));
    }
  }
  ConvGeom g;
  read_params(c, spatial, &g);
  ETR_CHECK_OR_FAIL(
      !transposed || ((g.oph < g.sh || g.oph < g.dh) && (g.opw < g.sw || g.opw < g.dw)),
      Error::InvalidArgument, "%s: output_padding must be smaller than either stride or dilation",
      op);
  return Error::Ok;
}

// Output extent of one spatial dim; false when negative or too large.
bool out_extent(const ConvGeom& g, int64_t in, int64_t k, int64_t s, int64_t p, int64_t d,
                int64_t op, int64_t* out) {
  if (g.transposed) {
    // (in - 1) * s and d * (k - 1) are each below 2^62; only the sums can overflow.
    int64_t sum = 0;
    if (__builtin_add_overflow((in - 1) * s, d * (k - 1), &sum) ||
        __builtin_add_overflow(sum, op + 1 - 2 * p, out)) {
      return false;
    }
  } else {
    const int64_t span = in + 2 * p - d * (k - 1) - 1;
    *out = span < 0 ? -1 : span / s + 1;
  }
  return *out >= 0 && *out <= INT32_MAX;
}

// Run: fills the geometry from the sizes, checking that weight matches the
// input's channels and groups and has a non-empty kernel.
Error make_geom(const char* op, const Tensor& input, const Tensor& weight, int64_t groups,
                ConvGeom* g) {
  const size_t rank = input.dim();
  // Safety net: prepare refuses these (and the division below needs groups > 0).
  ETR_CHECK_OR_FAIL(groups >= 1 && (rank == 3 || rank == 4) && weight.dim() == rank,
                    Error::Internal, "%s: groups/rank reached run unchecked", op);
  g->groups = groups;
  g->batch = input.size(0);
  g->c_in = input.size(1);
  g->h = rank == 4 ? input.size(2) : 1;
  g->w = input.size(rank - 1);
  g->kh = rank == 4 ? weight.size(2) : 1;
  g->kw = weight.size(rank - 1);
  const int64_t w0 = weight.size(0), w1 = weight.size(1);
  const bool ok = g->transposed ? (w0 == g->c_in && g->c_in % groups == 0)
                                : (w1 * groups == g->c_in && w0 % groups == 0);
  ETR_CHECK_OR_FAIL(
      ok, Error::InvalidArgument, "%s: weight %s does not match input %s with groups=%lld", op,
      ShapeText(weight).c_str(), ShapeText(input).c_str(), static_cast<long long>(groups));
  g->c_out = g->transposed ? w1 * groups : w0;
  ETR_CHECK_OR_FAIL(g->kh >= 1 && g->kw >= 1, Error::InvalidArgument,
                    "%s: kernel %s has an empty spatial dim", op, ShapeText(weight).c_str());
  return Error::Ok;
}

// Range [lo, hi) of positions p in [0, count) with 0 <= p * s + off < limit.
void valid_range(int64_t count, int64_t s, int64_t off, int64_t limit, int64_t* lo, int64_t* hi) {
  *lo = off >= 0 ? 0 : (-off + s - 1) / s;
  const int64_t top = limit - 1 - off;
  *hi = top < 0 ? 0 : std::min(count, top / s + 1);
  if (*lo > *hi) *lo = *hi;
}

// out_plane[oh, ow] += wv * in_plane[oh*sh - ph + ki*dh, ow*sw - pw + kj*dw].
template <typename T>
void conv_tap(const ConvGeom& g, const T* in_plane, T* out_plane, T wv, int64_t ki, int64_t kj) {
  int64_t h_lo, h_hi, w_lo, w_hi;
  const int64_t hoff = ki * g.dh - g.ph, woff = kj * g.dw - g.pw;
  valid_range(g.oh, g.sh, hoff, g.h, &h_lo, &h_hi);
  valid_range(g.ow, g.sw, woff, g.w, &w_lo, &w_hi);
  const int64_t n = w_hi - w_lo;
  for (int64_t oh = h_lo; oh < h_hi; ++oh) {
    const T* src = in_plane + (oh * g.sh + hoff) * g.w + (w_lo * g.sw + woff);
    T* __restrict dst = out_plane + oh * g.ow + w_lo;
    if (g.sw == 1) {
      for (int64_t t = 0; t < n; ++t) dst[t] += wv * src[t];
    } else {
      for (int64_t t = 0; t < n; ++t) dst[t] += wv * src[t * g.sw];
    }
  }
}

// Transposed tap: out_plane[ih*sh - ph + ki*dh, iw*sw - pw + kj*dw] += wv * in_plane[ih, iw].
template <typename T>
void conv_transposed_tap(const ConvGeom& g, const T* in_plane, T* out_plane, T wv, int64_t ki,
                         int64_t kj) {
  int64_t h_lo, h_hi, w_lo, w_hi;
  const int64_t hoff = ki * g.dh - g.ph, woff = kj * g.dw - g.pw;
  valid_range(g.h, g.sh, hoff, g.oh, &h_lo, &h_hi);
  valid_range(g.w, g.sw, woff, g.ow, &w_lo, &w_hi);
  const int64_t n = w_hi - w_lo;
  for (int64_t ih = h_lo; ih < h_hi; ++ih) {
    const T* src = in_plane + ih * g.w + w_lo;
    T* dst = out_plane + (ih * g.sh + hoff) * g.ow + (w_lo * g.sw + woff);
    for (int64_t t = 0; t < n; ++t) dst[t * g.sw] += wv * src[t];
  }
}

template <typename T>
void conv_compute(const ConvGeom& g, const T* in, const T* weight, const T* bias, T* out) {
  const int64_t icg = g.c_in / g.groups, ocg = g.c_out / g.groups;
  const int64_t in_plane = g.h * g.w, out_plane = g.oh * g.ow, taps = g.kh * g.kw;
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t oc = 0; oc < g.c_out; ++oc) {
      const int64_t grp = oc / ocg, ocl = oc % ocg;
      T* op = out + (b * g.c_out + oc) * out_plane;
      const T init = bias == nullptr ? T(0) : bias[oc];
      for (int64_t i = 0; i < out_plane; ++i) op[i] = init;
      for (int64_t icl = 0; icl < icg; ++icl) {
        const int64_t ic = grp * icg + icl;
        const T* ip = in + (b * g.c_in + ic) * in_plane;
        // Weight layout: [c_out, icg, kh, kw], or [c_in, ocg, kh, kw] when transposed.
        const T* wp =
            g.transposed ? weight + (ic * ocg + ocl) * taps : weight + (oc * icg + icl) * taps;
        for (int64_t ki = 0; ki < g.kh; ++ki) {
          for (int64_t kj = 0; kj < g.kw; ++kj) {
            const T wv = wp[ki * g.kw + kj];
            if (g.transposed)
              conv_transposed_tap(g, ip, op, wv, ki, kj);
            else
              conv_tap(g, ip, op, wv, ki, kj);
          }
        }
      }
    }
  }
}

}  // namespace

Error convolution_prepare(KernelPrepareContext& ctx, const Tensor& input, const Tensor& weight,
                          const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                          IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                          int64_t groups, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_dtype_in(op, "out", out.dtype(), kFloatingTypes));
  ETR_RETURN_IF_ERROR(check_dtype(op, "input", input, out.dtype()));
  ETR_RETURN_IF_ERROR(check_dtype(op, "weight", weight, out.dtype()));
  if (bias != nullptr) {
    ETR_RETURN_IF_ERROR(check_dtype(op, "bias", *bias, out.dtype()));
    ETR_RETURN_IF_ERROR(check_rank(op, "bias", *bias, 1));
  }
  ETR_RETURN_IF_ERROR(check_default_layout(op, "input", input));
  ETR_RETURN_IF_ERROR(check_default_layout(op, "weight", weight));
  ETR_RETURN_IF_ERROR(check_default_layout(op, "out", out));
  ETR_RETURN_IF_ERROR(check_rank_in(op, "input", input, 3, 4));
  ETR_RETURN_IF_ERROR(check_rank(op, "weight", weight, input.dim()));
  ETR_CHECK_OR_FAIL(groups >= 1 && groups <= kMaxParam, Error::InvalidArgument,
                    "%s: groups must be positive, got %lld", op, static_cast<long long>(groups));
  const ConvParams params{{stride, padding, dilation, output_padding}};
  return check_params(op, params, input.dim() - 2, transposed);
}

void convolution_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                     const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                     IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                     int64_t groups, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, out.dtype(), {&input, &weight, bias}));
  ConvGeom g;
  g.transposed = transposed;
  ETR_KERNEL_TRY(ctx, make_geom(op, input, weight, groups, &g));
  read_params(ConvParams{{stride, padding, dilation, output_padding}}, input.dim() - 2, &g);
  const bool ok_h = out_extent(g, g.h, g.kh, g.sh, g.ph, g.dh, g.oph, &g.oh);
  const bool ok_w = out_extent(g, g.w, g.kw, g.sw, g.pw, g.dw, g.opw, &g.ow);
  ETR_KERNEL_CHECK(ctx, ok_h && ok_w, Error::InvalidArgument,
                   "%s: kernel %s (with dilation) is larger than padded input %s", op,
                   ShapeText(weight).c_str(), ShapeText(input).c_str());
  ETR_KERNEL_CHECK(ctx, bias == nullptr || bias->size(0) == g.c_out, Error::InvalidArgument,
                   "%s: bias %s must have %lld elements", op, ShapeText(*bias).c_str(),
                   static_cast<long long>(g.c_out));
  const size_t rank = input.dim();
  // 1-D: [batch, c_out, ow]; 2-D: [batch, c_out, oh, ow].
  const int64_t out_sizes[4] = {g.batch, g.c_out, rank == 4 ? g.oh : g.ow, g.ow};
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(out_sizes, rank)));
  const bool known = dispatch_floating(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    conv_compute<T>(g, input.const_data_ptr<T>(), weight.const_data_ptr<T>(),
                    bias == nullptr ? nullptr : bias->const_data_ptr<T>(), out.data_ptr<T>());
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, out.dtype()));
}

}  // namespace etr
