// aten::where.self_out (Bool/Byte condition, Float values, any broadcast of
// default-layout operands) and aten::logical_not.out (Bool to Bool).
#include "kernels/cpu_math/vec_math.h"
#include "kernels/optimized/elementwise.h"
#include "kernels/optimized/util/vec_broadcast.h"
#include "kernels/portable/util/broadcast.h"
#include "kernels/portable/util/checks.h"

namespace etr {
namespace {

constexpr size_t kGrain = 131072;  // elements per thread, at least

bool is_default(const Tensor& t, ScalarType dtype) {
  return t.dtype() == dtype && opt::has_default_dim_order(t);
}

}  // namespace

Error opt_where_prepare(KernelPrepareContext&, const Tensor& condition, const Tensor& self,
                        const Tensor& other, Tensor& out) {
  const bool cond_ok =
      is_default(condition, ScalarType::Bool) || is_default(condition, ScalarType::Byte);
  if (!cond_ok || !is_default(self, ScalarType::Float) || !is_default(other, ScalarType::Float) ||
      !is_default(out, ScalarType::Float)) {
    return Error::NotSupported;
  }
  return Error::Ok;
}

void opt_where_self_out(KernelContext& ctx, const Tensor& condition, const Tensor& self,
                        const Tensor& other, Tensor& out) {
  const Tensor* ins[] = {&condition, &self, &other};
  ETR_KERNEL_TRY(ctx, resize_to_broadcast(ctx.op_name(), out, ins));
  opt::BroadcastPlan plan;
  opt::make_broadcast_plan(ins, out, &plan);
  const uint8_t* c = static_cast<const uint8_t*>(condition.const_data());
  const float* a = self.const_data_ptr<float>();
  const float* b = other.const_data_ptr<float>();
  float* y = out.data_ptr<float>();
  const size_t sc = plan.inner_stride(0), sa = plan.inner_stride(1), sb = plan.inner_stride(2);
  parallel_for(ctx.thread_pool(), static_cast<size_t>(plan.numel), kGrain,
               [&](size_t begin, size_t end) {
                 opt::for_each_run(plan, static_cast<int64_t>(begin), static_cast<int64_t>(end),
                                   [&](int64_t o, const int64_t* off, int64_t len) {
                                     opt::select(c + off[0], sc, a + off[1], sa, b + off[2], sb,
                                                 y + o, static_cast<size_t>(len));
                                   });
               });
}

Error opt_logical_not_prepare(KernelPrepareContext&, const Tensor& self, Tensor& out) {
  if (!is_default(self, ScalarType::Bool) || !is_default(out, ScalarType::Bool)) {
    return Error::NotSupported;
  }
  return Error::Ok;
}

void opt_logical_not_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, self.sizes()));
  const uint8_t* x = static_cast<const uint8_t*>(self.const_data());
  uint8_t* y = static_cast<uint8_t*>(out.mutable_data());
  parallel_for(ctx.thread_pool(), static_cast<size_t>(self.numel()), kGrain * 4,
               [&](size_t begin, size_t end) {
                 for (size_t i = begin; i < end; ++i) y[i] = x[i] == 0 ? 1 : 0;
               });
}

}  // namespace etr
