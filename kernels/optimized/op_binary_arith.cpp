// aten::add/sub/mul/div .out for Float: any broadcast of default-layout
// operands, walked as contiguous runs (vec_broadcast.h) and vectorized by
// vec_math.h; threaded over the flat output for large tensors.
#include "kernels/cpu_math/vec_math.h"
#include "kernels/optimized/elementwise.h"
#include "kernels/optimized/util/vec_broadcast.h"
#include "kernels/portable/util/broadcast.h"
#include "kernels/portable/util/convert.h"

namespace etr {
namespace {

// Below this many output elements a call stays on one thread (memory bound:
// smaller pieces cost more to hand to a thread than to compute).
constexpr size_t kGrain = 32768;

bool float_default(const Tensor& t) {
  return t.dtype() == ScalarType::Float && opt::has_default_dim_order(t);
}

Error check_operands(const Tensor& self, const Tensor& other, const Tensor& out) {
  if (!float_default(self) || !float_default(other) || !float_default(out)) {
    return Error::NotSupported;
  }
  return Error::Ok;
}

void run_binary(KernelContext& ctx, const opt::BinaryParams& params, const Tensor& self,
                const Tensor& other, Tensor& out) {
  const Tensor* ins[] = {&self, &other};
  ETR_KERNEL_TRY(ctx, resize_to_broadcast(ctx.op_name(), out, ins));
  opt::BroadcastPlan plan;
  opt::make_broadcast_plan(ins, out, &plan);
  const float* a = self.const_data_ptr<float>();
  const float* b = other.const_data_ptr<float>();
  float* y = out.data_ptr<float>();
  const size_t sa = plan.inner_stride(0), sb = plan.inner_stride(1);
  parallel_for(ctx.thread_pool(), static_cast<size_t>(plan.numel), kGrain,
               [&](size_t begin, size_t end) {
                 opt::for_each_run(plan, static_cast<int64_t>(begin), static_cast<int64_t>(end),
                                   [&](int64_t o, const int64_t* off, int64_t len) {
                                     opt::binary(params, a + off[0], sa, b + off[1], sb, y + o,
                                                 static_cast<size_t>(len));
                                   });
               });
}

opt::BinaryParams add_params(opt::BinaryKind kind, const Scalar& alpha) {
  opt::BinaryParams p;
  p.kind = kind;
  p.alpha = scalar_to<float>(alpha);
  p.use_alpha = p.alpha != 1.0f;
  return p;
}

}  // namespace

Error opt_add_sub_prepare(KernelPrepareContext&, const Tensor& self, const Tensor& other,
                          Scalar alpha, Tensor& out) {
  // A bool alpha is an error for Float results: the portable kernel reports it.
  if (alpha.is_bool()) return Error::NotSupported;
  return check_operands(self, other, out);
}

Error opt_mul_div_prepare(KernelPrepareContext&, const Tensor& self, const Tensor& other,
                          Tensor& out) {
  return check_operands(self, other, out);
}

void opt_add_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Scalar alpha,
                 Tensor& out) {
  run_binary(ctx, add_params(opt::BinaryKind::kAdd, alpha), self, other, out);
}

void opt_sub_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Scalar alpha,
                 Tensor& out) {
  run_binary(ctx, add_params(opt::BinaryKind::kSub, alpha), self, other, out);
}

void opt_mul_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  opt::BinaryParams p;
  p.kind = opt::BinaryKind::kMul;
  run_binary(ctx, p, self, other, out);
}

void opt_div_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  opt::BinaryParams p;
  p.kind = opt::BinaryKind::kDiv;
  run_binary(ctx, p, self, other, out);
}

}  // namespace etr
