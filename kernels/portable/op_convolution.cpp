// aten::convolution.out: 1-D, 2-D and 3-D, grouped, strided, dilated,
// padded, and transposed. Float and double, any dim order for input, weight
// and out (default, channels-last, or a mix).
//
// Default layout (the common case): direct convolution per output plane:
// every (input channel, kernel tap) pair adds a scaled, shifted input row
// into the output row, with the valid range computed up front so the inner
// loop has no bounds checks and is contiguous for stride 1.
//
// Any other layout: every operand is addressed through its strides, output
// position by position with the output channels next and the input channels
// of the group innermost (contiguous for a channels-last input), each output
// element accumulated once and written once. Nothing is copied to a
// contiguous buffer.
#include <algorithm>

#include "kernels/portable/linear_algebra.h"
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/dtype_dispatch.h"

namespace etr {
namespace {

// Stride, padding, dilation and output padding are bounded so that every
// index product below fits comfortably in int64.
constexpr int64_t kMaxParam = INT32_MAX;

// Every convolution is a 3-D one: a 1-D one has D == KD == H == KH == 1, a
// 2-D one D == KD == 1 (with unit stride/dilation and no padding there).
struct ConvGeom {
  int64_t batch = 0, c_in = 0, id = 1, ih = 1, iw = 0;
  int64_t c_out = 0, kd = 1, kh = 1, kw = 0;
  int64_t od = 1, oh = 1, ow = 0;
  int64_t sd = 1, sh = 1, sw = 1, pd = 0, ph = 0, pw = 0, dd = 1, dh = 1, dw = 1;
  int64_t opd = 0, oph = 0, opw = 0;
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

// Fills the (d, h, w) parameters from the lists; the last `spatial` of them
// are read. Entries prepare refuses (malformed lists, out-of-range values)
// leave their defaults, so run never divides by a zero stride.
void read_params(const ConvParams& c, size_t spatial, ConvGeom* g) {
  int64_t* dst[4][3] = {{&g->sd, &g->sh, &g->sw},
                        {&g->pd, &g->ph, &g->pw},
                        {&g->dd, &g->dh, &g->dw},
                        {&g->opd, &g->oph, &g->opw}};
  if (spatial < 1 || spatial > 3) return;
  for (size_t p = 0; p < 4; ++p) {
    for (size_t i = 0; i < spatial; ++i) {
      int64_t v = 0;
      const bool ok =
          read_param(c, p, spatial, i, &v) && v >= ConvParams::kMins[p] && v <= kMaxParam;
      if (ok) *dst[p][3 - spatial + i] = v;
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
  const bool op_ok = (g.opd < g.sd || g.opd < g.dd) && (g.oph < g.sh || g.oph < g.dh) &&
                     (g.opw < g.sw || g.opw < g.dw);
  ETR_CHECK_OR_FAIL(!transposed || op_ok, Error::InvalidArgument,
                    "%s: output_padding must be smaller than either stride or dilation", op);
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
  ETR_CHECK_OR_FAIL(groups >= 1 && rank >= 3 && rank <= 5 && weight.dim() == rank, Error::Internal,
                    "%s: groups/rank reached run unchecked", op);
  g->groups = groups;
  g->batch = input.size(0);
  g->c_in = input.size(1);
  g->id = rank == 5 ? input.size(2) : 1;
  g->ih = rank >= 4 ? input.size(rank - 2) : 1;
  g->iw = input.size(rank - 1);
  g->kd = rank == 5 ? weight.size(2) : 1;
  g->kh = rank >= 4 ? weight.size(rank - 2) : 1;
  g->kw = weight.size(rank - 1);
  const int64_t w0 = weight.size(0), w1 = weight.size(1);
  const bool ok = g->transposed ? (w0 == g->c_in && g->c_in % groups == 0)
                                : (w1 * groups == g->c_in && w0 % groups == 0);
  ETR_CHECK_OR_FAIL(
      ok, Error::InvalidArgument, "%s: weight %s does not match input %s with groups=%lld", op,
      ShapeText(weight).c_str(), ShapeText(input).c_str(), static_cast<long long>(groups));
  g->c_out = g->transposed ? w1 * groups : w0;
  ETR_CHECK_OR_FAIL(g->kd >= 1 && g->kh >= 1 && g->kw >= 1, Error::InvalidArgument,
                    "%s: kernel %s has an empty spatial dim", op, ShapeText(weight).c_str());
  return Error::Ok;
}

// ---- default layout

// Range [lo, hi) of positions p in [0, count) with 0 <= p * s + off < limit.
void valid_range(int64_t count, int64_t s, int64_t off, int64_t limit, int64_t* lo, int64_t* hi) {
  *lo = off >= 0 ? 0 : (-off + s - 1) / s;
  const int64_t top = limit - 1 - off;
  *hi = top < 0 ? 0 : std::min(count, top / s + 1);
  if (*lo > *hi) *lo = *hi;
}

// One kernel tap (kd_, kh_, kw_).
struct Tap {
  int64_t d, h, w;
};

// out_vol[od, oh, ow] += wv * in_vol[od*sd - pd + kd*dd, oh*sh - ph + kh*dh, ow*sw - pw + kw*dw].
template <typename T>
void conv_tap(const ConvGeom& g, const T* in_vol, T* out_vol, T wv, Tap k) {
  int64_t d_lo, d_hi, h_lo, h_hi, w_lo, w_hi;
  const int64_t doff = k.d * g.dd - g.pd, hoff = k.h * g.dh - g.ph, woff = k.w * g.dw - g.pw;
  valid_range(g.od, g.sd, doff, g.id, &d_lo, &d_hi);
  valid_range(g.oh, g.sh, hoff, g.ih, &h_lo, &h_hi);
  valid_range(g.ow, g.sw, woff, g.iw, &w_lo, &w_hi);
  const int64_t n = w_hi - w_lo;
  for (int64_t od = d_lo; od < d_hi; ++od) {
    const T* in_plane = in_vol + (od * g.sd + doff) * g.ih * g.iw;
    T* out_plane = out_vol + od * g.oh * g.ow;
    for (int64_t oh = h_lo; oh < h_hi; ++oh) {
      const T* src = in_plane + (oh * g.sh + hoff) * g.iw + (w_lo * g.sw + woff);
      T* __restrict dst = out_plane + oh * g.ow + w_lo;
      if (g.sw == 1) {
        for (int64_t t = 0; t < n; ++t) dst[t] += wv * src[t];
      } else {
        for (int64_t t = 0; t < n; ++t) dst[t] += wv * src[t * g.sw];
      }
    }
  }
}

// Transposed tap: out_vol[id*sd - pd + kd*dd, ih*sh - ph + kh*dh, iw*sw - pw + kw*dw]
//   += wv * in_vol[id, ih, iw].
template <typename T>
void conv_transposed_tap(const ConvGeom& g, const T* in_vol, T* out_vol, T wv, Tap k) {
  int64_t d_lo, d_hi, h_lo, h_hi, w_lo, w_hi;
  const int64_t doff = k.d * g.dd - g.pd, hoff = k.h * g.dh - g.ph, woff = k.w * g.dw - g.pw;
  valid_range(g.id, g.sd, doff, g.od, &d_lo, &d_hi);
  valid_range(g.ih, g.sh, hoff, g.oh, &h_lo, &h_hi);
  valid_range(g.iw, g.sw, woff, g.ow, &w_lo, &w_hi);
  const int64_t n = w_hi - w_lo;
  for (int64_t id = d_lo; id < d_hi; ++id) {
    const T* in_plane = in_vol + id * g.ih * g.iw;
    T* out_plane = out_vol + (id * g.sd + doff) * g.oh * g.ow;
    for (int64_t ih = h_lo; ih < h_hi; ++ih) {
      const T* src = in_plane + ih * g.iw + w_lo;
      T* dst = out_plane + (ih * g.sh + hoff) * g.ow + (w_lo * g.sw + woff);
      for (int64_t t = 0; t < n; ++t) dst[t * g.sw] += wv * src[t];
    }
  }
}

template <typename T>
void conv_compute(const ConvGeom& g, const T* in, const T* weight, const T* bias, T* out) {
  const int64_t icg = g.c_in / g.groups, ocg = g.c_out / g.groups;
  const int64_t in_vol = g.id * g.ih * g.iw, out_vol = g.od * g.oh * g.ow;
  const int64_t taps = g.kd * g.kh * g.kw;
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t oc = 0; oc < g.c_out; ++oc) {
      const int64_t grp = oc / ocg, ocl = oc % ocg;
      T* op = out + (b * g.c_out + oc) * out_vol;
      const T init = bias == nullptr ? T(0) : bias[oc];
      for (int64_t i = 0; i < out_vol; ++i) op[i] = init;
      for (int64_t icl = 0; icl < icg; ++icl) {
        const int64_t ic = grp * icg + icl;
        const T* ip = in + (b * g.c_in + ic) * in_vol;
        // Weight layout: [c_out, icg, k...], or [c_in, ocg, k...] when transposed.
        const T* wp =
            g.transposed ? weight + (ic * ocg + ocl) * taps : weight + (oc * icg + icl) * taps;
        for (int64_t kd = 0; kd < g.kd; ++kd) {
          for (int64_t kh = 0; kh < g.kh; ++kh) {
            for (int64_t kw = 0; kw < g.kw; ++kw) {
              const T wv = wp[(kd * g.kh + kh) * g.kw + kw];
              if (g.transposed)
                conv_transposed_tap(g, ip, op, wv, Tap{kd, kh, kw});
              else
                conv_tap(g, ip, op, wv, Tap{kd, kh, kw});
            }
          }
        }
      }
    }
  }
}

// ---- any layout

// Element strides of a convolution operand as [dim 0, dim 1, d, h, w]; a
// spatial dim the rank lacks has stride 0 (and extent 1).
struct Strides5 {
  int64_t s0 = 0, s1 = 0, d = 0, h = 0, w = 0;
};

Strides5 strides5(const Tensor& t) {
  Strides5 s;
  const size_t r = t.dim();
  s.s0 = t.stride(0);
  s.s1 = t.stride(1);
  s.w = t.stride(r - 1);
  if (r >= 4) s.h = t.stride(r - 2);
  if (r == 5) s.d = t.stride(2);
  return s;
}

// Input position of output index o for tap k (non-transposed), or -1 when
// it falls in the padding.
inline int64_t in_pos(int64_t o, int64_t k, int64_t s, int64_t p, int64_t dil, int64_t in) {
  const int64_t i = o * s - p + k * dil;
  return i >= 0 && i < in ? i : -1;
}

// Input position feeding output index o through tap k of a transposed
// convolution (o = i * s - p + k * dil), or -1 when there is none.
inline int64_t in_pos_transposed(int64_t o, int64_t k, int64_t s, int64_t p, int64_t dil,
                                 int64_t in) {
  const int64_t t = o + p - k * dil;
  if (t < 0 || t % s != 0) return -1;
  const int64_t i = t / s;
  return i < in ? i : -1;
}

template <typename T>
void conv_compute_strided(const ConvGeom& g, const Tensor& input, const Tensor& weight,
                          const Tensor* bias, Tensor& out) {
  const Strides5 si = strides5(input), sw = strides5(weight), so = strides5(out);
  const T* in = input.const_data_ptr<T>();
  const T* w = weight.const_data_ptr<T>();
  const T* bp = bias == nullptr ? nullptr : bias->const_data_ptr<T>();
  const int64_t bstride = bias == nullptr ? 0 : bias->stride(0);
  T* o = out.data_ptr<T>();
  const int64_t icg = g.c_in / g.groups, ocg = g.c_out / g.groups;
  // Input channel icl of the group sits icl * ic_step further in the input;
  // its weight icl * w_step further (dim 1, or dim 0 when transposed).
  const int64_t ic_step = si.s1, w_step = g.transposed ? sw.s0 : sw.s1;
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t od = 0; od < g.od; ++od) {
      for (int64_t oh = 0; oh < g.oh; ++oh) {
        for (int64_t ow = 0; ow < g.ow; ++ow) {
          T* dst = o + b * so.s0 + od * so.d + oh * so.h + ow * so.w;
          for (int64_t oc = 0; oc < g.c_out; ++oc) {
            const int64_t grp = oc / ocg, ocl = oc % ocg;
            const T* in_grp = in + b * si.s0 + grp * icg * si.s1;
            const T* w_oc = g.transposed ? w + grp * icg * sw.s0 + ocl * sw.s1 : w + oc * sw.s0;
            T acc = bp == nullptr ? T(0) : bp[oc * bstride];
            for (int64_t kd = 0; kd < g.kd; ++kd) {
              const int64_t x_d = g.transposed ? in_pos_transposed(od, kd, g.sd, g.pd, g.dd, g.id)
                                               : in_pos(od, kd, g.sd, g.pd, g.dd, g.id);
              if (x_d < 0) continue;
              for (int64_t kh = 0; kh < g.kh; ++kh) {
                const int64_t x_h = g.transposed ? in_pos_transposed(oh, kh, g.sh, g.ph, g.dh, g.ih)
                                                 : in_pos(oh, kh, g.sh, g.ph, g.dh, g.ih);
                if (x_h < 0) continue;
                for (int64_t kw = 0; kw < g.kw; ++kw) {
                  const int64_t x_w = g.transposed
                                          ? in_pos_transposed(ow, kw, g.sw, g.pw, g.dw, g.iw)
                                          : in_pos(ow, kw, g.sw, g.pw, g.dw, g.iw);
                  if (x_w < 0) continue;
                  const T* x = in_grp + x_d * si.d + x_h * si.h + x_w * si.w;
                  const T* k = w_oc + kd * sw.d + kh * sw.h + kw * sw.w;
                  for (int64_t icl = 0; icl < icg; ++icl) acc += x[icl * ic_step] * k[icl * w_step];
                }
              }
            }
            dst[oc * so.s1] = acc;
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
  ETR_RETURN_IF_ERROR(check_rank_in(op, "input", input, 3, 5));
  ETR_RETURN_IF_ERROR(check_rank(op, "weight", weight, input.dim()));
  ETR_RETURN_IF_ERROR(check_rank(op, "out", out, input.dim()));
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
  const bool ok_d = out_extent(g, g.id, g.kd, g.sd, g.pd, g.dd, g.opd, &g.od);
  const bool ok_h = out_extent(g, g.ih, g.kh, g.sh, g.ph, g.dh, g.oph, &g.oh);
  const bool ok_w = out_extent(g, g.iw, g.kw, g.sw, g.pw, g.dw, g.opw, &g.ow);
  ETR_KERNEL_CHECK(ctx, ok_d && ok_h && ok_w, Error::InvalidArgument,
                   "%s: kernel %s (with dilation) is larger than padded input %s", op,
                   ShapeText(weight).c_str(), ShapeText(input).c_str());
  ETR_KERNEL_CHECK(ctx, bias == nullptr || bias->size(0) == g.c_out, Error::InvalidArgument,
                   "%s: bias %s must have %lld elements", op, ShapeText(*bias).c_str(),
                   static_cast<long long>(g.c_out));
  const size_t rank = input.dim();
  // [batch, c_out, (od,) (oh,) ow]: the last rank - 2 of (od, oh, ow).
  const int64_t all_sizes[5] = {g.batch, g.c_out, g.od, g.oh, g.ow};
  int64_t out_sizes[5] = {g.batch, g.c_out, 0, 0, 0};
  for (size_t i = 2; i < rank; ++i) out_sizes[i] = all_sizes[5 - rank + i];
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(out_sizes, rank)));
  // Checked after the resize: the layout test looks at the sizes.
  const bool dense = is_default_layout(input) && is_default_layout(weight) &&
                     is_default_layout(out) && (bias == nullptr || bias->stride(0) == 1);
  const bool known = dispatch_floating(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (dense) {
      conv_compute<T>(g, input.const_data_ptr<T>(), weight.const_data_ptr<T>(),
                      bias == nullptr ? nullptr : bias->const_data_ptr<T>(), out.data_ptr<T>());
    } else {
      conv_compute_strided<T>(g, input, weight, bias, out);
    }
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, out.dtype()));
}

}  // namespace etr
