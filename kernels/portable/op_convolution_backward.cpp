// aten::convolution_backward.out for 1-D and 2-D, grouped, strided,
// dilated and padded convolutions, plain and transposed.
// With out[b, oc, oh, ow] = bias[oc] + sum over (icl, ki, kj) of
//   weight[oc, icl, ki, kj] * input[b, ic, oh*sh - ph + ki*dh, ow*sw - pw + kj*dw]
// (ic = group(oc) * icg + icl), the three gradients are
//   grad_input[b, ic, ih, iw]    = sum of grad_output * weight over the taps reading it,
//   grad_weight[oc, icl, ki, kj] = sum over (b, oh, ow) of grad_output * input,
//   grad_bias[oc]                = sum over (b, oh, ow) of grad_output,
// each computed (and its out resized) only when its output_mask entry is
// true; an out whose entry is false is left untouched. A transposed
// convolution is the adjoint of the plain one whose input has the transposed
// output's shape and whose output has the transposed input's shape (same
// weight, stride, padding, dilation, groups): its gradients are the plain
// forward convolution of grad_output (grad_input), the same tap sums with
// the roles of input and grad_output swapped (grad_weight), and channel sums
// of grad_output (grad_bias). Float and Double, every tensor of
// grad_output's dtype and in the default layout.
#include <algorithm>
#include <cstdint>

#include "kernels/portable/linear_algebra.h"
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/dtype_dispatch.h"

namespace etr {
namespace {

constexpr int64_t kMaxConvParam = INT32_MAX;

// A 1-D convolution is a 2-D one with H == KH == OH == 1.
struct BackGeom {
  int64_t batch = 0, c_in = 0, h = 1, w = 0, c_out = 0, kh = 1, kw = 0, oh = 1, ow = 0;
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1, groups = 1;
};

// Entry i of a per-spatial-dim list (length 1 broadcasts); false when the
// list has neither 1 nor `spatial` entries or the value is outside [lo, kMaxConvParam].
bool list_param(IntArrayRef list, size_t spatial, size_t i, int64_t lo, int64_t* v) {
  if (list.size() != 1 && list.size() != spatial) return false;
  *v = list.size() == 1 ? list[0] : list[i];
  return *v >= lo && *v <= kMaxConvParam;
}

// Reads stride, padding and dilation into g; false when one is malformed.
bool read_back_params(IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, size_t spatial,
                      BackGeom* g) {
  int64_t* dst[3][2] = {{&g->sh, &g->sw}, {&g->ph, &g->pw}, {&g->dh, &g->dw}};
  const IntArrayRef lists[3] = {stride, padding, dilation};
  const int64_t mins[3] = {1, 0, 1};
  for (size_t p = 0; p < 3; ++p) {
    for (size_t i = 0; i < spatial; ++i) {
      if (!list_param(lists[p], spatial, i, mins[p], dst[p][spatial == 1 ? 1 : i])) return false;
    }
  }
  return true;
}

// Positions o in [0, count) with 0 <= o * s + off < limit: [*lo, *hi).
void tap_range(int64_t count, int64_t s, int64_t off, int64_t limit, int64_t* lo, int64_t* hi) {
  *lo = off >= 0 ? 0 : (-off + s - 1) / s;
  const int64_t top = limit - 1 - off;
  *hi = top < 0 ? 0 : std::min(count, top / s + 1);
  if (*lo > *hi) *lo = *hi;
}

// Run: fills g from the tensors' sizes, checking weight against input and
// grad_output against the convolution's output shape.
Error make_back_geom(const char* op, const Tensor& grad_output, const Tensor& input,
                     const Tensor& weight, BackGeom* g) {
  const size_t rank = input.dim();
  g->batch = input.size(0);
  g->c_in = input.size(1);
  g->h = rank == 4 ? input.size(2) : 1;
  g->w = input.size(rank - 1);
  g->c_out = weight.size(0);
  g->kh = rank == 4 ? weight.size(2) : 1;
  g->kw = weight.size(rank - 1);
  ETR_CHECK_OR_FAIL(
      weight.size(1) * g->groups == g->c_in && g->c_out % g->groups == 0 && g->kh >= 1 &&
          g->kw >= 1,
      Error::InvalidArgument, "%s: weight %s does not match input %s with groups=%lld", op,
      ShapeText(weight).c_str(), ShapeText(input).c_str(), static_cast<long long>(g->groups));
  const int64_t span_h = g->h + 2 * g->ph - g->dh * (g->kh - 1) - 1;
  const int64_t span_w = g->w + 2 * g->pw - g->dw * (g->kw - 1) - 1;
  g->oh = span_h < 0 ? -1 : span_h / g->sh + 1;
  g->ow = span_w < 0 ? -1 : span_w / g->sw + 1;
  const int64_t expected[4] = {g->batch, g->c_out, rank == 4 ? g->oh : g->ow, g->ow};
  bool match = g->oh >= 0 && g->ow >= 0;
  for (size_t d = 0; d < rank && match; ++d) match = grad_output.size(d) == expected[d];
  ETR_CHECK_OR_FAIL(match, Error::InvalidArgument,
                    "%s: grad_output %s is not the output shape %s of input %s and weight %s", op,
                    ShapeText(grad_output).c_str(),
                    ShapeText(Span<const int64_t>(expected, rank)).c_str(),
                    ShapeText(input).c_str(), ShapeText(weight).c_str());
  return Error::Ok;
}

// Reads a transposed convolution's output_padding into (oph, opw); false
// when the list has neither 1 nor `spatial` entries, or an entry is negative
// or not smaller than its stride or its dilation (PyTorch's rule).
bool read_output_padding(IntArrayRef list, size_t spatial, const BackGeom& g, int64_t* oph,
                         int64_t* opw) {
  *oph = *opw = 0;
  if (list.size() == 0) return true;
  const int64_t strides[2] = {spatial == 1 ? g.sw : g.sh, g.sw};
  const int64_t dilations[2] = {spatial == 1 ? g.dw : g.dh, g.dw};
  int64_t* dst[2] = {spatial == 1 ? opw : oph, opw};
  for (size_t i = 0; i < spatial; ++i) {
    int64_t v = 0;
    if (!list_param(list, spatial, i, 0, &v)) return false;
    if (v >= strides[i] && v >= dilations[i]) return false;
    *dst[i] = v;
  }
  return true;
}

// Run, transposed: g becomes the plain convolution whose input has
// grad_output's shape and whose output has the input's shape; checks the
// weight against the input and grad_output against the transposed output.
Error make_transposed_geom(const char* op, const Tensor& grad_output, const Tensor& input,
                           const Tensor& weight, int64_t oph, int64_t opw, BackGeom* g) {
  const size_t rank = input.dim();
  g->batch = input.size(0);
  g->c_out = input.size(1);
  g->oh = rank == 4 ? input.size(2) : 1;
  g->ow = input.size(rank - 1);
  g->c_in = weight.size(1) * g->groups;
  g->kh = rank == 4 ? weight.size(2) : 1;
  g->kw = weight.size(rank - 1);
  ETR_CHECK_OR_FAIL(
      weight.size(0) == g->c_out && g->c_out % g->groups == 0 && g->c_in >= 1 && g->kh >= 1 &&
          g->kw >= 1,
      Error::InvalidArgument, "%s: transposed weight %s does not match input %s with groups=%lld",
      op, ShapeText(weight).c_str(), ShapeText(input).c_str(), static_cast<long long>(g->groups));
  // (in - 1) * s - 2 * p + d * (k - 1) + output_padding + 1; every factor is
  // below 2^31, so no intermediate leaves int64.
  g->h = (g->oh - 1) * g->sh - 2 * g->ph + g->dh * (g->kh - 1) + oph + 1;
  g->w = (g->ow - 1) * g->sw - 2 * g->pw + g->dw * (g->kw - 1) + opw + 1;
  const int64_t expected[4] = {g->batch, g->c_in, rank == 4 ? g->h : g->w, g->w};
  bool match = g->h >= 1 && g->w >= 1 && g->oh >= 1 && g->ow >= 1;
  for (size_t d = 0; d < rank && match; ++d) match = grad_output.size(d) == expected[d];
  ETR_CHECK_OR_FAIL(match, Error::InvalidArgument,
                    "%s: grad_output %s is not the transposed output shape %s of input %s and "
                    "weight %s",
                    op, ShapeText(grad_output).c_str(),
                    ShapeText(Span<const int64_t>(expected, rank)).c_str(),
                    ShapeText(input).c_str(), ShapeText(weight).c_str());
  return Error::Ok;
}

// Visits every (b, oc, icl, ki, kj) tap and valid output row oh:
// fn(out_off, in_off, n, widx), where output element out_off + t (t < n)
// pairs with the input element at in_off + t * sw and widx is the tap's
// weight index (offsets into default-layout [b, c, h, w] buffers).
template <typename F>
void for_each_tap(const BackGeom& g, F&& fn) {
  const int64_t icg = g.c_in / g.groups, ocg = g.c_out / g.groups, taps = g.kh * g.kw;
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t oc = 0; oc < g.c_out; ++oc) {
      const int64_t out_plane = (b * g.c_out + oc) * g.oh * g.ow;
      for (int64_t icl = 0; icl < icg; ++icl) {
        const int64_t ic = (oc / ocg) * icg + icl;
        const int64_t in_plane = (b * g.c_in + ic) * g.h * g.w;
        for (int64_t ki = 0; ki < g.kh; ++ki) {
          for (int64_t kj = 0; kj < g.kw; ++kj) {
            int64_t h_lo, h_hi, w_lo, w_hi;
            const int64_t hoff = ki * g.dh - g.ph, woff = kj * g.dw - g.pw;
            tap_range(g.oh, g.sh, hoff, g.h, &h_lo, &h_hi);
            tap_range(g.ow, g.sw, woff, g.w, &w_lo, &w_hi);
            const int64_t widx = (oc * icg + icl) * taps + ki * g.kw + kj;
            for (int64_t oh = h_lo; oh < h_hi; ++oh) {
              fn(out_plane + oh * g.ow + w_lo,
                 in_plane + (oh * g.sh + hoff) * g.w + (w_lo * g.sw + woff), w_hi - w_lo, widx);
            }
          }
        }
      }
    }
  }
}

// gw[widx] = sum over the taps of out[out_off + t] * in[in_off + t * sw].
template <typename T>
void tap_products(const BackGeom& g, const T* out, const T* in, T* gw) {
  std::fill(gw, gw + g.c_out * (g.c_in / g.groups) * g.kh * g.kw, T(0));
  for_each_tap(g, [&](int64_t out_off, int64_t in_off, int64_t n, int64_t widx) {
    const T* o = out + out_off;
    const T* src = in + in_off;
    T acc = 0;
    for (int64_t t = 0; t < n; ++t) acc += o[t] * src[t * g.sw];
    gw[widx] += acc;
  });
}

// sums[c] = sum over (b, i) of x[(b * channels + c) * plane + i].
template <typename T>
void channel_sums(const T* x, int64_t batch, int64_t channels, int64_t plane, T* sums) {
  for (int64_t c = 0; c < channels; ++c) {
    T acc = 0;
    for (int64_t b = 0; b < batch; ++b) {
      const T* p = x + (b * channels + c) * plane;
      for (int64_t i = 0; i < plane; ++i) acc += p[i];
    }
    sums[c] = acc;
  }
}

template <typename T>
void backward_compute(const BackGeom& g, const T* go, const T* in, const T* weight, T* gin, T* gw,
                      T* gb) {
  if (gin != nullptr) {
    std::fill(gin, gin + g.batch * g.c_in * g.h * g.w, T(0));
    for_each_tap(g, [&](int64_t go_off, int64_t in_off, int64_t n, int64_t widx) {
      const T wv = weight[widx];
      const T* go_row = go + go_off;
      T* dst = gin + in_off;
      for (int64_t t = 0; t < n; ++t) dst[t * g.sw] += wv * go_row[t];
    });
  }
  if (gw != nullptr) tap_products(g, go, in, gw);
  if (gb != nullptr) channel_sums(go, g.batch, g.c_out, g.oh * g.ow, gb);
}

// The transposed convolution's gradients; g is the plain convolution whose
// input has grad_output's shape and whose output has the input's shape.
template <typename T>
void transposed_backward_compute(const BackGeom& g, const T* go, const T* in, const T* weight,
                                 T* gin, T* gw, T* gb) {
  if (gin != nullptr) {
    std::fill(gin, gin + g.batch * g.c_out * g.oh * g.ow, T(0));
    for_each_tap(g, [&](int64_t x_off, int64_t go_off, int64_t n, int64_t widx) {
      const T wv = weight[widx];
      const T* src = go + go_off;
      T* dst = gin + x_off;
      for (int64_t t = 0; t < n; ++t) dst[t] += wv * src[t * g.sw];
    });
  }
  if (gw != nullptr) tap_products(g, in, go, gw);
  if (gb != nullptr) channel_sums(go, g.batch, g.c_in, g.h * g.w, gb);
}

}  // namespace

Error convolution_backward_prepare(KernelPrepareContext& ctx, const Tensor& grad_output,
                                   const Tensor& input, const Tensor& weight,
                                   std::optional<IntArrayRef>, IntArrayRef stride,
                                   IntArrayRef padding, IntArrayRef dilation, bool transposed,
                                   IntArrayRef output_padding, int64_t groups,
                                   Span<const bool> output_mask, Tensor& grad_input,
                                   Tensor& grad_weight, Tensor& grad_bias) {
  const char* op = ctx.op_name();
  ETR_CHECK_OR_FAIL(output_mask.size() == 3, Error::InvalidArgument,
                    "%s: output_mask has %zu entries, expected 3", op, output_mask.size());
  const ScalarType t = grad_output.dtype();
  ETR_RETURN_IF_ERROR(check_dtype_in(op, "grad_output", t, kFloatingTypes));
  ETR_RETURN_IF_ERROR(check_dtype(op, "input", input, t));
  ETR_RETURN_IF_ERROR(check_dtype(op, "weight", weight, t));
  ETR_RETURN_IF_ERROR(check_rank_in(op, "input", input, 3, 4));
  const size_t rank = input.dim();
  ETR_RETURN_IF_ERROR(check_rank(op, "weight", weight, rank));
  ETR_RETURN_IF_ERROR(check_rank(op, "grad_output", grad_output, rank));
  const Tensor* ins[] = {&grad_output, &input, &weight};
  const char* in_names[] = {"grad_output", "input", "weight"};
  for (size_t i = 0; i < 3; ++i)
    ETR_RETURN_IF_ERROR(check_default_layout(op, in_names[i], *ins[i]));
  Tensor* outs[] = {&grad_input, &grad_weight, &grad_bias};
  const char* out_names[] = {"grad_input", "grad_weight", "grad_bias"};
  const size_t out_ranks[] = {rank, rank, 1};
  for (size_t i = 0; i < 3; ++i) {
    if (!output_mask[i]) continue;
    ETR_RETURN_IF_ERROR(check_dtype(op, out_names[i], *outs[i], t));
    ETR_RETURN_IF_ERROR(check_rank(op, out_names[i], *outs[i], out_ranks[i]));
    ETR_RETURN_IF_ERROR(check_default_layout(op, out_names[i], *outs[i]));
  }
  ETR_CHECK_OR_FAIL(groups >= 1 && groups <= kMaxConvParam, Error::InvalidArgument,
                    "%s: groups must be positive, got %lld", op, static_cast<long long>(groups));
  BackGeom g;
  ETR_CHECK_OR_FAIL(read_back_params(stride, padding, dilation, rank - 2, &g),
                    Error::InvalidArgument,
                    "%s: stride %s, padding %s or dilation %s is malformed (1 or %zu entries; "
                    "stride, dilation >= 1, padding >= 0)",
                    op, ShapeText(stride).c_str(), ShapeText(padding).c_str(),
                    ShapeText(dilation).c_str(), rank - 2);
  int64_t oph = 0, opw = 0;
  ETR_CHECK_OR_FAIL(!transposed || read_output_padding(output_padding, rank - 2, g, &oph, &opw),
                    Error::InvalidArgument,
                    "%s: output_padding %s is malformed (1 or %zu entries, each >= 0 and smaller "
                    "than its stride or dilation)",
                    op, ShapeText(output_padding).c_str(), rank - 2);
  return Error::Ok;
}

void convolution_backward_out(KernelContext& ctx, const Tensor& grad_output, const Tensor& input,
                              const Tensor& weight, std::optional<IntArrayRef>, IntArrayRef stride,
                              IntArrayRef padding, IntArrayRef dilation, bool transposed,
                              IntArrayRef output_padding, int64_t groups,
                              Span<const bool> output_mask, Tensor& grad_input, Tensor& grad_weight,
                              Tensor& grad_bias) {
  const char* op = ctx.op_name();
  const ScalarType t = grad_output.dtype();
  const size_t rank = input.dim();
  ETR_KERNEL_CHECK(ctx,
                   output_mask.size() == 3 && groups >= 1 && (rank == 3 || rank == 4) &&
                       weight.dim() == rank && grad_output.dim() == rank,
                   Error::Internal, "%s: arguments not prepared", op);
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, t, {&input, &weight}));
  Tensor* outs[] = {&grad_input, &grad_weight, &grad_bias};
  for (size_t i = 0; i < 3; ++i) {
    if (output_mask[i]) ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, t, {outs[i]}));
  }
  BackGeom g;
  g.groups = groups;
  ETR_KERNEL_CHECK(ctx, read_back_params(stride, padding, dilation, rank - 2, &g), Error::Internal,
                   "%s: parameters not prepared", op);
  if (transposed) {
    int64_t oph = 0, opw = 0;
    ETR_KERNEL_CHECK(ctx, read_output_padding(output_padding, rank - 2, g, &oph, &opw),
                     Error::Internal, "%s: output_padding not prepared", op);
    ETR_KERNEL_TRY(ctx, make_transposed_geom(op, grad_output, input, weight, oph, opw, &g));
  } else {
    ETR_KERNEL_TRY(ctx, make_back_geom(op, grad_output, input, weight, &g));
  }
  if (output_mask[0]) ETR_KERNEL_TRY(ctx, resize_output(op, grad_input, input.sizes()));
  if (output_mask[1]) ETR_KERNEL_TRY(ctx, resize_output(op, grad_weight, weight.sizes()));
  const int64_t bias_size[1] = {transposed ? g.c_in : g.c_out};
  if (output_mask[2]) {
    ETR_KERNEL_TRY(ctx, resize_output(op, grad_bias, IntArrayRef(bias_size, 1)));
  }
  const bool known = dispatch_floating(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto* compute = transposed ? &transposed_backward_compute<T> : &backward_compute<T>;
    compute(g, grad_output.const_data_ptr<T>(), input.const_data_ptr<T>(),
            weight.const_data_ptr<T>(), output_mask[0] ? grad_input.data_ptr<T>() : nullptr,
            output_mask[1] ? grad_weight.data_ptr<T>() : nullptr,
            output_mask[2] ? grad_bias.data_ptr<T>() : nullptr);
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, t));
}

}  // namespace etr
