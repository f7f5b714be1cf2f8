// aten::native_group_norm.out: input holds N x C x HxW elements; channels
// are split into `group` groups of C / group channels, each normalized with
// its own mean and biased variance, then scaled and shifted per channel.
// Also returns the per-(n, group) mean and rstd = 1 / sqrt(var + eps) with
// shape [N, group]. Sums accumulate in double, in the logical (channel,
// then spatial) order whatever the layout, so a channels-last input gives
// the same bits as a contiguous one. Float and double; input and out in any
// dim order (read and written through their strides), the rest contiguous.
#include <cmath>

#include "kernels/portable/normalization.h"
#include "kernels/portable/util/elementwise.h"
#include "runtime/core/checked_math.h"

namespace etr {
namespace {

Error check_operand(const char* op, const char* what, const Tensor* t, ScalarType dtype,
                    bool any_layout = false) {
  if (t == nullptr) return Error::Ok;
  ETR_RETURN_IF_ERROR(check_dtype(op, what, *t, dtype));
  return any_layout ? Error::Ok : check_default_layout(op, what, *t);
}

// Element offsets of a [N, C, spatial...] tensor in any dim order: the
// spatial index s (row-major over dims 2..) maps to a sum of strides.
struct StridedPlanes {
  const Tensor* t;
  int64_t spatial_offset(int64_t s) const {
    int64_t off = 0;
    for (size_t d = t->dim(); d-- > 2;) {
      off += (s % t->size(d)) * t->stride(d);
      s /= t->size(d);
    }
    return off;
  }
  int64_t at(int64_t n, int64_t c, int64_t s) const {
    return n * t->stride(0) + c * t->stride(1) + spatial_offset(s);
  }
};

// Run: the symbolic sizes against the tensors; resizes the three outputs.
Error group_norm_sizes(const char* op, const Tensor& input, const Tensor* weight,
                       const Tensor* bias, int64_t n, int64_t c, int64_t hxw, int64_t group,
                       Tensor& out, Tensor& mean, Tensor& rstd) {
  ETR_CHECK_OR_FAIL(n >= 0 && c >= 0 && hxw >= 0, Error::InvalidArgument,
                    "%s: N, C, HxW must not be negative", op);
  ETR_CHECK_OR_FAIL(c % group == 0, Error::InvalidArgument,
                    "%s: C (%lld) is not divisible by group (%lld)", op, static_cast<long long>(c),
                    static_cast<long long>(group));
  // N, C and HxW are program values: their product is overflow-checked.
  int64_t nc = 0;
  int64_t total = 0;
  const bool fits = checked_mul_i64(n, c, &nc) && checked_mul_i64(nc, hxw, &total);
  const bool channels_ok =
      (is_default_layout(input) && is_default_layout(out)) || (c == 0 || input.size(1) == c);
  ETR_CHECK_OR_FAIL(
      fits && total == input.numel() && (input.dim() == 0 || input.size(0) == n) && channels_ok,
      Error::InvalidArgument, "%s: input %s does not hold N=%lld x C=%lld x HxW=%lld elements", op,
      ShapeText(input).c_str(), static_cast<long long>(n), static_cast<long long>(c),
      static_cast<long long>(hxw));
  for (const Tensor* t : {weight, bias}) {
    ETR_CHECK_OR_FAIL(t == nullptr || (t->dim() == 1 && t->size(0) == c), Error::InvalidArgument,
                      "%s: weight/bias %s must have C=%lld elements", op, ShapeText(*t).c_str(),
                      static_cast<long long>(c));
  }
  ETR_RETURN_IF_ERROR(resize_output(op, out, input.sizes()));
  const int64_t stat_sizes[2] = {n, group};
  ETR_RETURN_IF_ERROR(resize_output(op, mean, Span<const int64_t>(stat_sizes, 2)));
  return resize_output(op, rstd, Span<const int64_t>(stat_sizes, 2));
}

// Any layout: the same arithmetic as group_norm below, reading and writing
// through the strides.
template <typename T>
void group_norm_strided(const Tensor& input, const Tensor* weight, const Tensor* bias, int64_t c,
                        int64_t hxw, int64_t group, double eps, Tensor& out, Tensor& mean,
                        Tensor& rstd) {
  const T* x = input.const_data_ptr<T>();
  const T* w = weight != nullptr ? weight->const_data_ptr<T>() : nullptr;
  const T* b = bias != nullptr ? bias->const_data_ptr<T>() : nullptr;
  T* y = out.data_ptr<T>();
  const StridedPlanes in{&input}, on{&out};
  const int64_t per_group = c / group;
  const int64_t len = per_group * hxw;
  const int64_t n = input.size(0);
  for (int64_t i = 0; i < n * group; ++i) {
    const int64_t nn = i / group, c0 = (i % group) * per_group;
    double sum = 0.0;
    for (int64_t ch = c0; ch < c0 + per_group; ++ch) {
      for (int64_t sp = 0; sp < hxw; ++sp) sum += static_cast<double>(x[in.at(nn, ch, sp)]);
    }
    const double mu = len == 0 ? 0.0 : sum / static_cast<double>(len);
    double squares = 0.0;
    for (int64_t ch = c0; ch < c0 + per_group; ++ch) {
      for (int64_t sp = 0; sp < hxw; ++sp) {
        const double d = static_cast<double>(x[in.at(nn, ch, sp)]) - mu;
        squares += d * d;
      }
    }
    const double var = len == 0 ? 0.0 : squares / static_cast<double>(len);
    const double inv_std = 1.0 / std::sqrt(var + eps);
    for (int64_t ch = c0; ch < c0 + per_group; ++ch) {
      const double scale = w != nullptr ? static_cast<double>(w[ch]) : 1.0;
      const double shift = b != nullptr ? static_cast<double>(b[ch]) : 0.0;
      for (int64_t sp = 0; sp < hxw; ++sp) {
        y[on.at(nn, ch, sp)] = static_cast<T>(
            (static_cast<double>(x[in.at(nn, ch, sp)]) - mu) * inv_std * scale + shift);
      }
    }
    mean.data_ptr<T>()[i] = static_cast<T>(mu);
    rstd.data_ptr<T>()[i] = static_cast<T>(inv_std);
  }
}

template <typename T>
void group_norm(const Tensor& input, const Tensor* weight, const Tensor* bias, int64_t n, int64_t c,
                int64_t hxw, int64_t group, double eps, Tensor& out, Tensor& mean, Tensor& rstd) {
  const T* x = input.const_data_ptr<T>();
  const T* w = weight != nullptr ? weight->const_data_ptr<T>() : nullptr;
  const T* b = bias != nullptr ? bias->const_data_ptr<T>() : nullptr;
  T* y = out.data_ptr<T>();
  const int64_t per_group = c / group;
  const int64_t len = per_group * hxw;
  for (int64_t i = 0; i < n * group; ++i) {
    const T* xs = x + i * len;
    double sum = 0.0;
    for (int64_t k = 0; k < len; ++k) sum += static_cast<double>(xs[k]);
    const double mu = len == 0 ? 0.0 : sum / static_cast<double>(len);
    double squares = 0.0;
    for (int64_t k = 0; k < len; ++k) {
      const double d = static_cast<double>(xs[k]) - mu;
      squares += d * d;
    }
    const double var = len == 0 ? 0.0 : squares / static_cast<double>(len);
    const double inv_std = 1.0 / std::sqrt(var + eps);
    for (int64_t ch = 0; ch < per_group; ++ch) {
      const int64_t channel = (i % group) * per_group + ch;
      const double scale = w != nullptr ? static_cast<double>(w[channel]) : 1.0;
      const double shift = b != nullptr ? static_cast<double>(b[channel]) : 0.0;
      for (int64_t k = ch * hxw; k < (ch + 1) * hxw; ++k) {
        y[i * len + k] =
            static_cast<T>((static_cast<double>(xs[k]) - mu) * inv_std * scale + shift);
      }
    }
    mean.data_ptr<T>()[i] = static_cast<T>(mu);
    rstd.data_ptr<T>()[i] = static_cast<T>(inv_std);
  }
}

}  // namespace

Error native_group_norm_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                const Tensor* weight, const Tensor* bias, int64_t /*n*/,
                                int64_t /*c*/, int64_t /*hxw*/, int64_t group, double /*eps*/,
                                Tensor& out, Tensor& mean_out, Tensor& rstd_out) {
  const char* op = ctx.op_name();
  const ScalarType dtype = input.dtype();
  ETR_CHECK_OR_FAIL(group > 0, Error::InvalidArgument, "%s: group must be positive, got %lld", op,
                    static_cast<long long>(group));
  ETR_RETURN_IF_ERROR(check_dtype_in(op, "input", dtype, kFloatingTypes));
  ETR_RETURN_IF_ERROR(check_rank_in(op, "input", input, 2, kTensorMaxDim));
  ETR_RETURN_IF_ERROR(check_operand(op, "input", &input, dtype, /*any_layout=*/true));
  ETR_RETURN_IF_ERROR(check_operand(op, "weight", weight, dtype));
  ETR_RETURN_IF_ERROR(check_operand(op, "bias", bias, dtype));
  ETR_RETURN_IF_ERROR(check_operand(op, "out", &out, dtype, /*any_layout=*/true));
  ETR_RETURN_IF_ERROR(check_operand(op, "mean", &mean_out, dtype));
  ETR_RETURN_IF_ERROR(check_operand(op, "rstd", &rstd_out, dtype));
  ETR_RETURN_IF_ERROR(check_rank(op, "mean", mean_out, 2));
  return check_rank(op, "rstd", rstd_out, 2);
}

void native_group_norm_out(KernelContext& ctx, const Tensor& input, const Tensor* weight,
                           const Tensor* bias, int64_t n, int64_t c, int64_t hxw, int64_t group,
                           double eps, Tensor& out, Tensor& mean_out, Tensor& rstd_out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_CHECK(ctx, group > 0, Error::InvalidArgument, "%s: group must be positive", op);
  ETR_KERNEL_TRY(
      ctx, check_operand_dtypes(op, input.dtype(), {weight, bias, &out, &mean_out, &rstd_out}));
  ETR_KERNEL_TRY(
      ctx, group_norm_sizes(op, input, weight, bias, n, c, hxw, group, out, mean_out, rstd_out));
  const bool flat = is_default_layout(input) && is_default_layout(out);
  const bool known = dispatch_floating(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (flat) {
      group_norm<T>(input, weight, bias, n, c, hxw, group, eps, out, mean_out, rstd_out);
    } else {
      group_norm_strided<T>(input, weight, bias, c, hxw, group, eps, out, mean_out, rstd_out);
    }
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, input.dtype()));
}

}  // namespace etr
