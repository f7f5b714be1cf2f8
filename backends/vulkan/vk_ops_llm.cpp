#include "backends/vulkan/vk_ops_llm.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "runtime/platform/log.h"

namespace etr {
namespace vulkan {
namespace {

// What a planner needs to name the place of a refusal.
struct Call {
  const Graph& g;
  const Operator& op;
  const DispatchLimits& limits;
  std::vector<Step>* steps;
  size_t d() const { return g.delegate_index; }
  const char* name() const { return op.name.c_str(); }
  uint32_t id(size_t a) const { return op.args[a]; }
  const Value& value(size_t a) const { return g.values[op.args[a]]; }
};

#define CALL_FAIL(c, err, fmt, ...)                                                           \
  ETR_FAIL(err, "VulkanBackend: delegate %zu: operator %u (%s): " fmt, (c).d(), (c).op.index, \
           (c).name(), ##__VA_ARGS__)

Error expect_args(const Call& c, size_t n) {
  if (c.op.args.size() != n) {
    CALL_FAIL(c, Error::InvalidProgram, "%zu arguments, expected %zu", c.op.args.size(), n);
  }
  return Error::Ok;
}

// Argument `a` as a tensor whose device dtype is `want` (Unset: any).
Error tensor_arg(const Call& c, size_t a, const char* field, Dtype want, const TensorInfo** out) {
  const Value& v = c.value(a);
  if (v.kind != Kind::Tensor) {
    CALL_FAIL(c, Error::InvalidProgram, "argument %zu (%s): value %u is a %s, not a tensor", a,
              field, c.id(a), to_string(v.kind));
  }
  if (want != Dtype::Unset && v.tensor.device != want) {
    CALL_FAIL(c, Error::NotSupported, "argument %zu (%s): value %u is %s, expected %s", a, field,
              c.id(a), to_string(v.tensor.dtype), to_string(want));
  }
  *out = &v.tensor;
  return Error::Ok;
}

Error int_arg(const Call& c, size_t a, const char* field, int64_t* out) {
  const Value& v = c.value(a);
  if (v.kind != Kind::Int) {
    CALL_FAIL(c, Error::InvalidProgram, "argument %zu (%s): value %u is a %s, not an int", a, field,
              c.id(a), to_string(v.kind));
  }
  *out = v.int_value;
  return Error::Ok;
}

// A tensor argument that every output row reads from its start: the
// tensor's first `n` elements must exist.
Error expect_len(const Call& c, size_t a, const char* field, const TensorInfo& t, uint64_t n) {
  if (t.numel < n) {
    CALL_FAIL(c, Error::InvalidProgram, "argument %zu (%s): %llu elements, at least %llu needed", a,
              field, static_cast<unsigned long long>(t.numel), static_cast<unsigned long long>(n));
  }
  return Error::Ok;
}

// Splits `invocations` over 64-wide workgroups in x and y (common.glsl's
// flat_index) within the device's limits.
Error groups_1d(const Call& c, uint64_t invocations, Step* s) {
  const uint64_t n = (invocations + 63) / 64;
  const uint64_t max_x = c.limits.max_groups[0];
  const uint64_t x = n < max_x ? n : max_x;
  const uint64_t y = x == 0 ? 0 : (n + x - 1) / x;
  if (y > c.limits.max_groups[1]) {
    CALL_FAIL(c, Error::NotSupported,
              "dispatch of %llu workgroups exceeds the device's limits (%u x %u)",
              static_cast<unsigned long long>(n), c.limits.max_groups[0], c.limits.max_groups[1]);
  }
  s->groups[0] = static_cast<uint32_t>(x == 0 ? 1 : x);
  s->groups[1] = static_cast<uint32_t>(y == 0 ? 1 : y);
  s->groups[2] = 1;
  return Error::Ok;
}

Step dispatch(const Call& c, Shader shader, std::initializer_list<uint32_t> buffers) {
  Step s;
  s.kind = Step::Kind::Dispatch;
  s.shader = shader;
  s.op_index = c.op.index;
  for (uint32_t b : buffers) s.buffers[s.num_buffers++] = b;
  return s;
}

uint32_t f2u(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

bool same_dims(const TensorInfo& a, const TensorInfo& b) {
  if (a.ndim != b.ndim) return false;
  for (uint32_t i = 0; i < a.ndim; ++i) {
    if (a.dims[i] != b.dims[i]) return false;
  }
  return true;
}

// ---- 4-bit group-wise quantized linear -------------------------------------

struct Q4Args {
  size_t x, weights, scales, group, bias, out;
};

// Checks the shared arguments of linear_q4gsw and linear_dq8ca_q4gsw and
// appends the dispatch; dyn_act selects the per-row int8 activations.
Error plan_q4gsw(const Call& c, const Q4Args& a, bool dyn_act) {
  const TensorInfo *x, *w, *scales, *out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, a.x, "input", Dtype::Float32, &x));
  ETR_RETURN_IF_ERROR(tensor_arg(c, a.weights, "weights", Dtype::UInt8, &w));
  ETR_RETURN_IF_ERROR(tensor_arg(c, a.scales, "weight_scales", Dtype::Float32, &scales));
  ETR_RETURN_IF_ERROR(tensor_arg(c, a.out, "out", Dtype::Float32, &out));
  int64_t group = 0;
  ETR_RETURN_IF_ERROR(int_arg(c, a.group, "group_size", &group));
  if (x->ndim < 1 || x->dims[x->ndim - 1] == 0) {
    CALL_FAIL(c, Error::InvalidProgram, "argument %zu (input): needs a non-empty last dim", a.x);
  }
  const uint32_t K = x->dims[x->ndim - 1];
  const uint64_t M = x->numel / K;
  if (group <= 0 || K % static_cast<uint64_t>(group) != 0) {
    CALL_FAIL(c, Error::InvalidProgram,
              "argument %zu (group_size): %lld does not divide the input's %u channels", a.group,
              static_cast<long long>(group), K);
  }
  if (w->ndim != 2 || static_cast<uint64_t>(w->dims[1]) * 2 < K) {
    CALL_FAIL(c, Error::InvalidProgram,
              "argument %zu (weights): must be [N, >= K/2] packed 4-bit bytes for K = %u",
              a.weights, K);
  }
  const uint32_t N = w->dims[0];
  if (out->ndim != x->ndim || out->dims[out->ndim - 1] != N || out->numel != M * N) {
    CALL_FAIL(c, Error::InvalidProgram,
              "argument %zu (out): must be the input's shape with last dim N = %u", a.out, N);
  }
  const uint64_t groups = K / static_cast<uint64_t>(group);
  if (scales->ndim != 2 || scales->dims[0] < groups || scales->dims[1] < N) {
    CALL_FAIL(c, Error::InvalidProgram,
              "argument %zu (weight_scales): must be [groups >= %llu, >= N = %u]", a.scales,
              static_cast<unsigned long long>(groups), N);
  }
  uint32_t bias_id = c.id(a.x);  // bound but unread without a bias
  if (c.value(a.bias).kind != Kind::Null) {
    const TensorInfo* bias;
    ETR_RETURN_IF_ERROR(tensor_arg(c, a.bias, "bias", Dtype::Float32, &bias));
    if (bias->ndim != 1) {
      CALL_FAIL(c, Error::InvalidProgram, "argument %zu (bias): must be 1-D", a.bias);
    }
    ETR_RETURN_IF_ERROR(expect_len(c, a.bias, "bias", *bias, N));
    bias_id = c.id(a.bias);
  }
  if (out->numel == 0) return Error::Ok;
  Step s = dispatch(c, Shader::LinearQ4gsw,
                    {c.id(a.out), c.id(a.x), c.id(a.weights), c.id(a.scales), bias_id});
  s.push[0] = static_cast<uint32_t>(M);
  s.push[1] = N;
  s.push[2] = K;
  s.push[3] = w->dims[1];
  s.push[4] = static_cast<uint32_t>(group);
  s.push[5] = scales->dims[1];
  s.push[6] = bias_id != c.id(a.x) ? 1 : 0;
  s.push[7] = dyn_act ? 1 : 0;
  ETR_RETURN_IF_ERROR(groups_1d(c, out->numel, &s));
  c.steps->push_back(s);
  return Error::Ok;
}

// et_vk.linear_q4gsw(x, weights, weight_scales, group_size, bias?) -> out
Error plan_linear_q4gsw(const Call& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 6));
  return plan_q4gsw(c, Q4Args{0, 1, 2, 3, 4, 5}, false);
}

// The choose_qparams_affine call that computes `scale` and `zero_point`
// from `input`, or null.
const Operator* qparams_producer(const Graph& g, uint32_t input, uint32_t scale,
                                 uint32_t zero_point) {
  for (const Operator& o : g.ops) {
    if (o.name != "torchao.choose_qparams_affine.default" || o.args.empty()) continue;
    const Value& outs = g.values[o.args.back()];
    if (o.args[0] == input && outs.kind == Kind::ValueList && outs.values.size() == 2 &&
        outs.values[0] == scale && outs.values[1] == zero_point) {
      return &o;
    }
  }
  return nullptr;
}

// et_vk.linear_dq8ca_q4gsw(x, input_scales, input_zp, weights, weight_sums,
// weight_scales, group_size, bias?) -> out. The activations' per-row int8
// parameters are recomputed in the shader from x, exactly as the
// choose_qparams_affine call that the arguments come from defines them (that
// call itself dispatches nothing).
Error plan_linear_dq8ca_q4gsw(const Call& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 9));
  const Operator* producer = qparams_producer(c.g, c.id(0), c.id(1), c.id(2));
  if (producer == nullptr || producer->index >= c.op.index) {
    CALL_FAIL(c, Error::NotSupported,
              "arguments 1-2 (input_scales, input_zp): not the outputs of an earlier "
              "torchao.choose_qparams_affine of argument 0 (input)");
  }
  const TensorInfo* sums;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 4, "weight_sums", Dtype::Int32, &sums));
  return plan_q4gsw(c, Q4Args{0, 3, 5, 6, 7, 8}, true);
}

// torchao.choose_qparams_affine(input, mapping, block_size, target_dtype,
// quant_min, quant_max, eps, scale_dtype, zero_point_dtype, keepdim?) ->
// [scale, zero_point]: only the per-row asymmetric int8 form that
// linear_dq8ca_q4gsw consumes (its shader recomputes the parameters); any
// other reader of the outputs is refused.
Error plan_choose_qparams(const Call& c) {
  if (c.op.args.size() < 10) {
    CALL_FAIL(c, Error::InvalidProgram, "%zu arguments, expected at least 10", c.op.args.size());
  }
  const TensorInfo* x;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "input", Dtype::Float32, &x));
  const Value& mapping = c.value(1);
  if (mapping.kind != Kind::String || mapping.string != "ASYMMETRIC") {
    CALL_FAIL(c, Error::NotSupported, "argument 1 (mapping_type): only ASYMMETRIC runs here");
  }
  const Value& block = c.value(2);
  bool per_row = block.kind == Kind::IntList && block.ints.size() == x->ndim && x->ndim >= 1;
  for (size_t i = 0; per_row && i < block.ints.size(); ++i) {
    const int64_t want = i + 1 == block.ints.size() ? x->dims[i] : 1;
    per_row = block.ints[i] == want;
  }
  if (!per_row) {
    CALL_FAIL(c, Error::NotSupported,
              "argument 2 (block_size): only per-row blocks [1, .., K] run here");
  }
  int64_t qmin = 0, qmax = 0;
  ETR_RETURN_IF_ERROR(int_arg(c, 4, "quant_min", &qmin));
  ETR_RETURN_IF_ERROR(int_arg(c, 5, "quant_max", &qmax));
  if (qmin != -128 || qmax != 127) {
    CALL_FAIL(c, Error::NotSupported,
              "arguments 4-5 (quant_min, quant_max): [%lld, %lld], only "
              "[-128, 127] runs here",
              static_cast<long long>(qmin), static_cast<long long>(qmax));
  }
  if (c.value(6).kind != Kind::Null) {
    CALL_FAIL(c, Error::NotSupported, "argument 6 (eps): only the default runs here");
  }
  const Value& outs = c.g.values[c.op.args.back()];
  if (outs.kind != Kind::ValueList || outs.values.size() != 2) {
    CALL_FAIL(c, Error::InvalidProgram, "output: must be a list of [scale, zero_point]");
  }
  for (uint32_t id : outs.values) {
    const TensorInfo* t = c.g.tensor(id);
    if (t == nullptr || t->numel != x->numel / x->dims[x->ndim - 1]) {
      CALL_FAIL(c, Error::InvalidProgram,
                "output value %u: must be a tensor of one element per "
                "row",
                id);
    }
    for (uint32_t gid : c.g.outputs) {
      if (gid == id) {
        CALL_FAIL(c, Error::NotSupported, "output value %u is a graph output", id);
      }
    }
  }
  for (const Operator& o : c.g.ops) {
    if (&o == &c.op) continue;
    for (size_t a = 0; a < o.args.size(); ++a) {
      const uint32_t id = o.args[a];
      if (id != outs.values[0] && id != outs.values[1]) continue;
      if (o.name != "et_vk.linear_dq8ca_q4gsw.default" || (a != 1 && a != 2) ||
          o.args[0] != c.id(0)) {
        CALL_FAIL(c, Error::NotSupported,
                  "output value %u is read by operator %u (%s); only by "
                  "et_vk.linear_dq8ca_q4gsw of the same input here",
                  id, o.index, o.name.c_str());
      }
    }
  }
  return Error::Ok;
}

// et_vk.embedding_q4gsw(weight, weight_scales, group_size, indices,
// is_linear_weight) -> out: weight [V, >= D/2] packed 4-bit bytes, scales
// [V, >= D/group], int32 indices; out is the indices' shape followed by D.
Error plan_embedding_q4gsw(const Call& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 6));
  const TensorInfo *w, *scales, *idx, *out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "weight", Dtype::UInt8, &w));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 1, "weight_scales", Dtype::Float32, &scales));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 3, "indices", Dtype::Int32, &idx));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 5, "out", Dtype::Float32, &out));
  int64_t group = 0;
  ETR_RETURN_IF_ERROR(int_arg(c, 2, "group_size", &group));
  const Value& linear = c.value(4);
  if (linear.kind != Kind::Bool) {
    CALL_FAIL(c, Error::InvalidProgram,
              "argument 4 (is_linear_weight): value %u is a %s, not a "
              "bool",
              c.id(4), to_string(linear.kind));
  }
  if (out->ndim != idx->ndim + 1 || out->dims[out->ndim - 1] == 0) {
    CALL_FAIL(c, Error::InvalidProgram,
              "argument 5 (out): must be the indices' shape followed by the row size");
  }
  const uint32_t D = out->dims[out->ndim - 1];
  for (uint32_t i = 0; i < idx->ndim; ++i) {
    if (out->dims[i] != idx->dims[i]) {
      CALL_FAIL(c, Error::InvalidProgram,
                "argument 5 (out): must be the indices' shape followed by the row size");
    }
  }
  if (group <= 0 || D % static_cast<uint64_t>(group) != 0) {
    CALL_FAIL(c, Error::InvalidProgram,
              "argument 2 (group_size): %lld does not divide the row size %u",
              static_cast<long long>(group), D);
  }
  if (w->ndim != 2 || w->dims[0] == 0 || static_cast<uint64_t>(w->dims[1]) * 2 < D) {
    CALL_FAIL(c, Error::InvalidProgram,
              "argument 0 (weight): must be [rows, >= D/2] packed 4-bit bytes for D = %u", D);
  }
  const uint64_t groups = D / static_cast<uint64_t>(group);
  if (scales->ndim != 2 || scales->dims[0] != w->dims[0] || scales->dims[1] < groups) {
    CALL_FAIL(c, Error::InvalidProgram,
              "argument 1 (weight_scales): must be [rows = %u, groups >= %llu]", w->dims[0],
              static_cast<unsigned long long>(groups));
  }
  if (out->numel == 0) return Error::Ok;
  Step s = dispatch(c, Shader::EmbeddingQ4gsw, {c.id(5), c.id(0), c.id(1), c.id(3)});
  s.push[0] = static_cast<uint32_t>(out->numel);
  s.push[1] = D;
  s.push[2] = w->dims[0];
  s.push[3] = w->dims[1];
  s.push[4] = static_cast<uint32_t>(group);
  s.push[5] = scales->dims[1];
  s.push[6] = linear.bool_value ? 1 : 0;
  ETR_RETURN_IF_ERROR(groups_1d(c, out->numel, &s));
  c.steps->push_back(s);
  return Error::Ok;
}

// ---- int8 activations (the XNNPACK quantizer's static per-tensor flow) -----

// A per-tensor scale and zero point: a positive finite double and an int.
Error qparams_args(const Call& c, size_t scale_arg, size_t zp_arg, float* scale, int32_t* zp) {
  const Value& s = c.value(scale_arg);
  if (s.kind != Kind::Double || !(s.double_value > 0.0) || !std::isfinite(s.double_value) ||
      !std::isfinite(static_cast<float>(1.0 / s.double_value))) {
    CALL_FAIL(c, Error::InvalidProgram,
              "argument %zu (scale): value %u must be a positive finite double", scale_arg,
              c.id(scale_arg));
  }
  int64_t z = 0;
  ETR_RETURN_IF_ERROR(int_arg(c, zp_arg, "zero_point", &z));
  if (z < -128 || z > 127) {
    CALL_FAIL(c, Error::InvalidProgram, "argument %zu (zero_point): %lld is outside int8", zp_arg,
              static_cast<long long>(z));
  }
  *scale = static_cast<float>(s.double_value);
  *zp = static_cast<int32_t>(z);
  return Error::Ok;
}

// quant_min and quant_max: the int8 range or a part of it.
Error range_args(const Call& c, size_t a, int32_t* qmin, int32_t* qmax) {
  int64_t lo = 0, hi = 0;
  ETR_RETURN_IF_ERROR(int_arg(c, a, "quant_min", &lo));
  ETR_RETURN_IF_ERROR(int_arg(c, a + 1, "quant_max", &hi));
  if (lo < -128 || hi > 127 || lo > hi) {
    CALL_FAIL(c, Error::NotSupported,
              "arguments %zu-%zu (quant_min, quant_max): [%lld, %lld] is not within int8", a, a + 1,
              static_cast<long long>(lo), static_cast<long long>(hi));
  }
  *qmin = static_cast<int32_t>(lo);
  *qmax = static_cast<int32_t>(hi);
  return Error::Ok;
}

// quantized_decomposed.quantize_per_tensor(x, scale, zero_point, quant_min,
// quant_max, dtype) -> int8 out, and dequantize_per_tensor(x, scale,
// zero_point, quant_min, quant_max, dtype, [out_dtype]) -> float out.
Error plan_per_tensor(const Call& c, bool quantize) {
  if (c.op.args.size() != (quantize ? 7u : 8u)) {
    CALL_FAIL(c, Error::InvalidProgram, "%zu arguments, expected %u", c.op.args.size(),
              quantize ? 7u : 8u);
  }
  const size_t out_arg = c.op.args.size() - 1;
  const TensorInfo *x, *out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "input", quantize ? Dtype::Float32 : Dtype::Int8, &x));
  ETR_RETURN_IF_ERROR(tensor_arg(c, out_arg, "out", quantize ? Dtype::Int8 : Dtype::Float32, &out));
  if (!same_dims(*x, *out)) {
    CALL_FAIL(c, Error::InvalidProgram, "argument %zu (out): must have the input's shape", out_arg);
  }
  float scale = 1.0f;
  int32_t zp = 0, qmin = 0, qmax = 0;
  ETR_RETURN_IF_ERROR(qparams_args(c, 1, 2, &scale, &zp));
  ETR_RETURN_IF_ERROR(range_args(c, 3, &qmin, &qmax));
  if (x->numel == 0) return Error::Ok;
  Step s = dispatch(c, Shader::Quantize, {c.id(out_arg), c.id(0)});
  s.push[0] = static_cast<uint32_t>(x->numel);
  s.push[1] = quantize ? 0 : 1;
  s.push[2] = f2u(scale);
  s.push[3] = f2u(static_cast<float>(1.0 / c.value(1).double_value));
  s.push[4] = static_cast<uint32_t>(zp);
  s.push[5] = static_cast<uint32_t>(qmin);
  s.push[6] = static_cast<uint32_t>(qmax);
  ETR_RETURN_IF_ERROR(groups_1d(c, quantize ? (x->numel + 3) / 4 : x->numel, &s));
  c.steps->push_back(s);
  return Error::Ok;
}

Error plan_quantize_per_tensor(const Call& c) { return plan_per_tensor(c, true); }
Error plan_dequantize_per_tensor(const Call& c) { return plan_per_tensor(c, false); }

// The arguments the int8-activation linears share: x int8 [.., K] (argument
// 0) with its per-tensor input_scale / input_zero_point (1, 2), weights int8
// [N, K] (3), weight_sums int32 (4) and weight_scales float (5), each at
// least N long, and out (`out_arg`, of `out_dtype`) of x's shape with last
// dim N.
struct Int8LinearArgs {
  const TensorInfo* out = nullptr;
  uint32_t K = 0, N = 0;
  uint64_t M = 0;
  float in_scale = 1.0f;
  int32_t in_zp = 0;
};

Error int8_linear_args(const Call& c, int out_arg, Dtype out_dtype, Int8LinearArgs* a) {
  const TensorInfo *x, *w, *sums, *scales;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "input", Dtype::Int8, &x));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 3, "weights", Dtype::Int8, &w));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 4, "weight_sums", Dtype::Int32, &sums));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 5, "weight_scales", Dtype::Float32, &scales));
  ETR_RETURN_IF_ERROR(tensor_arg(c, out_arg, "out", out_dtype, &a->out));
  ETR_RETURN_IF_ERROR(qparams_args(c, 1, 2, &a->in_scale, &a->in_zp));
  if (x->ndim < 1 || x->dims[x->ndim - 1] == 0) {
    CALL_FAIL(c, Error::InvalidProgram, "argument 0 (input): needs a non-empty last dim");
  }
  a->K = x->dims[x->ndim - 1];
  if (a->K >= (1u << 16)) {
    CALL_FAIL(c, Error::NotSupported, "argument 0 (input): %u input channels (below 65536 here)",
              a->K);
  }
  if (w->ndim != 2 || w->dims[1] != a->K) {
    CALL_FAIL(c, Error::InvalidProgram, "argument 3 (weights): must be [N, K = %u]", a->K);
  }
  a->N = w->dims[0];
  a->M = x->numel / a->K;
  const TensorInfo* out = a->out;
  if (out->ndim != x->ndim || out->dims[out->ndim - 1] != a->N || out->numel != a->M * a->N) {
    CALL_FAIL(c, Error::InvalidProgram,
              "argument %d (out): must be the input's shape with last dim N = %u", out_arg, a->N);
  }
  if (sums->ndim != 1 || scales->ndim != 1) {
    CALL_FAIL(c, Error::InvalidProgram, "argument %d (%s): must be 1-D", sums->ndim != 1 ? 4 : 5,
              sums->ndim != 1 ? "weight_sums" : "weight_scales");
  }
  ETR_RETURN_IF_ERROR(expect_len(c, 4, "weight_sums", *sums, a->N));
  ETR_RETURN_IF_ERROR(expect_len(c, 5, "weight_scales", *scales, a->N));
  return Error::Ok;
}

// et_vk.q8ta_linear(x, input_scale, input_zero_point, weights, weight_sums,
// weight_scales, output_scale, output_zero_point, bias?, activation) -> out:
// x, out int8 [.., K] / [.., N]; weights int8 [N, K] with a float scale per
// output channel (weight_sums, for integer zero-point folding, is checked
// but not needed here).
Error plan_q8ta_linear(const Call& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 11));
  Int8LinearArgs a;
  ETR_RETURN_IF_ERROR(int8_linear_args(c, 10, Dtype::Int8, &a));
  float out_scale = 1.0f;
  int32_t out_zp = 0;
  ETR_RETURN_IF_ERROR(qparams_args(c, 6, 7, &out_scale, &out_zp));
  const TensorInfo* out = a.out;
  const uint32_t K = a.K, N = a.N;
  const uint64_t M = a.M;
  const float in_scale = a.in_scale;
  const int32_t in_zp = a.in_zp;
  uint32_t bias_id = c.id(5);  // bound but unread without a bias
  if (c.value(8).kind != Kind::Null) {
    const TensorInfo* bias;
    ETR_RETURN_IF_ERROR(tensor_arg(c, 8, "bias", Dtype::Float32, &bias));
    ETR_RETURN_IF_ERROR(expect_len(c, 8, "bias", *bias, N));
    bias_id = c.id(8);
  }
  const Value& act = c.value(9);
  if (act.kind != Kind::String || (act.string != "none" && act.string != "relu")) {
    CALL_FAIL(c, Error::NotSupported,
              "argument 9 (activation): only \"none\" and \"relu\" run here");
  }
  if (out->numel == 0) return Error::Ok;
  Step s = dispatch(c, Shader::Q8taLinear, {c.id(10), c.id(0), c.id(3), c.id(5), bias_id});
  s.push[0] = static_cast<uint32_t>(M);
  s.push[1] = N;
  s.push[2] = K;
  s.push[3] = f2u(in_scale);
  s.push[4] = static_cast<uint32_t>(in_zp);
  s.push[5] = f2u(static_cast<float>(1.0 / c.value(6).double_value));
  s.push[6] = static_cast<uint32_t>(out_zp);
  s.push[7] = bias_id != c.id(5) ? 1 : 0;
  s.push[8] = act.string == "relu" ? 1 : 0;
  ETR_RETURN_IF_ERROR(groups_1d(c, (out->numel + 3) / 4, &s));
  c.steps->push_back(s);
  return Error::Ok;
}

// et_vk.linear_q8ta_q8csw(x, input_scale, input_zero_point, weights,
// weight_sums, weight_scales, bias?) -> out: x int8 [.., K] (the output of a
// quantize_per_tensor), weights int8 [N, K] with their row sums (int32) and a
// float scale per output channel (both padded to a multiple of 4 by the
// exporter; the first N are read), out float [.., N].
Error plan_linear_q8ta_q8csw(const Call& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 8));
  Int8LinearArgs a;
  ETR_RETURN_IF_ERROR(int8_linear_args(c, 7, Dtype::Float32, &a));
  const TensorInfo* out = a.out;
  const uint32_t K = a.K, N = a.N;
  const uint64_t M = a.M;
  const float in_scale = a.in_scale;
  const int32_t in_zp = a.in_zp;
  uint32_t bias_id = c.id(5);  // bound but unread without a bias
  if (c.value(6).kind != Kind::Null) {
    const TensorInfo* bias;
    ETR_RETURN_IF_ERROR(tensor_arg(c, 6, "bias", Dtype::Float32, &bias));
    if (bias->ndim != 1) {
      CALL_FAIL(c, Error::InvalidProgram, "argument 6 (bias): must be 1-D");
    }
    ETR_RETURN_IF_ERROR(expect_len(c, 6, "bias", *bias, N));
    bias_id = c.id(6);
  }
  if (out->numel == 0) return Error::Ok;
  Step s =
      dispatch(c, Shader::LinearQ8taQ8csw, {c.id(7), c.id(0), c.id(3), c.id(4), c.id(5), bias_id});
  s.push[0] = static_cast<uint32_t>(M);
  s.push[1] = N;
  s.push[2] = K;
  s.push[3] = f2u(in_scale);
  s.push[4] = static_cast<uint32_t>(in_zp);
  s.push[5] = bias_id != c.id(5) ? 1 : 0;
  ETR_RETURN_IF_ERROR(groups_1d(c, out->numel, &s));
  c.steps->push_back(s);
  return Error::Ok;
}

// ---- the LLM exporter's operators ------------------------------------------

// et_vk.rms_norm(x, weight, eps) -> out, over the last dim.
Error plan_rms_norm(const Call& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 4));
  const TensorInfo *x, *w, *out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "x", Dtype::Float32, &x));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 1, "weight", Dtype::Float32, &w));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 3, "out", Dtype::Float32, &out));
  const Value& eps = c.value(2);
  if (eps.kind != Kind::Double || !(eps.double_value >= 0.0)) {
    CALL_FAIL(c, Error::InvalidProgram, "argument 2 (eps): must be a non-negative double");
  }
  if (x->ndim < 1 || x->dims[x->ndim - 1] == 0) {
    CALL_FAIL(c, Error::InvalidProgram, "argument 0 (x): needs a non-empty last dim");
  }
  const uint32_t dim = x->dims[x->ndim - 1];
  if (w->ndim != 1 || w->dims[0] != dim) {
    CALL_FAIL(c, Error::InvalidProgram, "argument 1 (weight): must be [%u]", dim);
  }
  if (!same_dims(*x, *out)) {
    CALL_FAIL(c, Error::InvalidProgram, "argument 3 (out): must have the input's shape");
  }
  const uint64_t rows = x->numel / dim;
  if (rows == 0) return Error::Ok;
  Step s = dispatch(c, Shader::RmsNorm, {c.id(3), c.id(0), c.id(1)});
  s.push[0] = static_cast<uint32_t>(rows);
  s.push[1] = dim;
  s.push[2] = f2u(static_cast<float>(eps.double_value));
  ETR_RETURN_IF_ERROR(groups_1d(c, rows, &s));
  c.steps->push_back(s);
  return Error::Ok;
}

// et_vk.apply_rotary_emb(xq, xk, freqs_cos, freqs_sin) -> [xq_out, xk_out];
// x: [B, S, heads, D], freqs: [S, D/2].
Error plan_rotary(const Call& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 5));
  const TensorInfo *cosv, *sinv;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 2, "freqs_cos", Dtype::Float32, &cosv));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 3, "freqs_sin", Dtype::Float32, &sinv));
  const Value& outs = c.value(4);
  if (outs.kind != Kind::ValueList || outs.values.size() != 2) {
    CALL_FAIL(c, Error::InvalidProgram, "argument 4 (out): must be a list of two tensors");
  }
  if (cosv->ndim != 2 || !same_dims(*cosv, *sinv)) {
    CALL_FAIL(c, Error::InvalidProgram, "arguments 2-3 (freqs): must both be [S, D/2]");
  }
  const uint32_t S = cosv->dims[0], half = cosv->dims[1];
  for (size_t k = 0; k < 2; ++k) {
    const char* field = k == 0 ? "xq" : "xk";
    const TensorInfo* x;
    ETR_RETURN_IF_ERROR(tensor_arg(c, k, field, Dtype::Float32, &x));
    if (x->ndim != 4 || x->dims[1] != S || x->dims[3] != 2 * half || half == 0) {
      CALL_FAIL(c, Error::InvalidProgram,
                "argument %zu (%s): must be [B, S = %u, heads, D = %u] for the freqs' shape", k,
                field, S, 2 * half);
    }
    const uint32_t out_id = outs.values[k];
    const TensorInfo* out = c.g.tensor(out_id);
    if (out == nullptr || out->device != Dtype::Float32 || !same_dims(*x, *out) ||
        out->constant_id >= 0) {
      CALL_FAIL(c, Error::InvalidProgram,
                "argument 4 (out): value %u must be a float32 tensor of %s's shape", out_id, field);
    }
    if (x->numel == 0) continue;
    Step s = dispatch(c, Shader::Rope, {out_id, c.id(k), c.id(2), c.id(3)});
    s.push[0] = static_cast<uint32_t>(x->numel / 2);
    s.push[1] = x->dims[2] * half;
    s.push[2] = half;
    s.push[3] = S;
    ETR_RETURN_IF_ERROR(groups_1d(c, x->numel / 2, &s));
    c.steps->push_back(s);
  }
  return Error::Ok;
}

// The element a select_as_symint call `o` reads: `tensor` and its flat index.
Error symint_source(const Call& c, const Operator& o, uint32_t* tensor, uint32_t* element) {
#define SYMINT_FAIL(fmt, ...)                                                                   \
  ETR_FAIL(Error::InvalidProgram, "VulkanBackend: delegate %zu: operator %u (%s): " fmt, c.d(), \
           o.index, o.name.c_str(), ##__VA_ARGS__)
  if (o.args.size() != 4) SYMINT_FAIL("%zu arguments, expected 4", o.args.size());
  const TensorInfo* t = c.g.tensor(o.args[0]);
  if (t == nullptr || t->device != Dtype::Int32) {
    SYMINT_FAIL("argument 0 (x): value %u must be an int32 tensor", o.args[0]);
  }
  const Value& dim = c.g.values[o.args[1]];
  if (dim.kind != Kind::Int || dim.int_value < 0 ||
      dim.int_value >= static_cast<int64_t>(t->ndim)) {
    SYMINT_FAIL("argument 1 (dim): must be an int in [0, %u)", t->ndim);
  }
  const uint32_t size = t->dims[dim.int_value];
  if (t->numel != size) {
    SYMINT_FAIL("argument 1 (dim): x has %llu elements, more than its dim %lld holds",
                static_cast<unsigned long long>(t->numel), static_cast<long long>(dim.int_value));
  }
  // A negative index counts from the end (the exporter writes -1 for
  // input_pos[-1]).
  const Value& index = c.g.values[o.args[2]];
  const int64_t at = index.kind != Kind::Int ? -1
                     : index.int_value < 0   ? index.int_value + size
                                             : index.int_value;
  if (at < 0 || at >= size) {
    SYMINT_FAIL("argument 2 (index): must be an int in [-%u, %u)", size, size);
  }
#undef SYMINT_FAIL
  *tensor = o.args[0];
  *element = static_cast<uint32_t>(at);
  return Error::Ok;
}

// et_vk.select_as_symint(x, dim, index) -> SymInt: checked here; the
// operators that take the SymInt read the element on the device themselves.
Error plan_select_as_symint(const Call& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 4));
  if (c.value(3).kind != Kind::SymInt) {
    CALL_FAIL(c, Error::InvalidProgram, "argument 3 (out): value %u is a %s, not a SymInt", c.id(3),
              to_string(c.value(3).kind));
  }
  uint32_t tensor, element;
  return symint_source(c, c.op, &tensor, &element);
}

// Where a position argument comes from: an element of a tensor computed on
// the device (pos_index), or a number known now (static_pos).
struct Position {
  uint32_t tensor = kNoId;
  uint32_t pos_index = 0xFFFFFFFFu;
  int32_t static_pos = 0;
};

Error position_arg(const Call& c, size_t a, const char* field, Position* out) {
  const Value& v = c.value(a);
  if (v.kind == Kind::Int || v.kind == Kind::SymInt) {
    if (v.kind == Kind::SymInt) {
      for (const Operator& o : c.g.ops) {
        if (o.args.empty() || o.args.back() != c.id(a)) continue;
        if (o.name != "et_vk.select_as_symint.default" || o.index >= c.op.index) {
          CALL_FAIL(c, Error::NotSupported,
                    "argument %zu (%s): SymInt value %u comes from operator %u (%s); only an "
                    "earlier et_vk.select_as_symint runs here",
                    a, field, c.id(a), o.index, o.name.c_str());
        }
        return symint_source(c, o, &out->tensor, &out->pos_index);
      }
    }
    if (v.int_value < 0 || v.int_value > INT32_MAX) {
      CALL_FAIL(c, Error::InvalidProgram, "argument %zu (%s): %lld is out of range", a, field,
                static_cast<long long>(v.int_value));
    }
    out->static_pos = static_cast<int32_t>(v.int_value);
    return Error::Ok;
  }
  CALL_FAIL(c, Error::InvalidProgram, "argument %zu (%s): value %u is a %s, not an int", a, field,
            c.id(a), to_string(v.kind));
}

// sdpa_with_kv_cache(q, k, v, k_cache, v_cache, start_pos, seq_len,
// attn_mask?, dropout_p, is_causal, scale?) -> out. q: [1, S, heads, D];
// k, v: [1, S, kv_heads, D]; caches: [1, ctx, kv_heads, D], updated in place
// at rows start_pos .. start_pos + S - 1 (they keep their contents between
// executes), then causal attention over rows 0 .. start_pos + s.
Error plan_sdpa_with_kv_cache(const Call& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 12));
  const TensorInfo *q, *k, *v, *kc, *vc, *out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "query", Dtype::Float32, &q));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 1, "key", Dtype::Float32, &k));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 2, "value", Dtype::Float32, &v));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 3, "key_cache", Dtype::Float32, &kc));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 4, "value_cache", Dtype::Float32, &vc));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 11, "out", Dtype::Float32, &out));
  if (q->ndim != 4 || q->dims[0] != 1 || q->dims[1] == 0 || q->dims[3] == 0) {
    CALL_FAIL(c, Error::InvalidProgram, "argument 0 (query): must be [1, S, heads, D]");
  }
  const uint32_t S = q->dims[1], H = q->dims[2], D = q->dims[3];
  if (k->ndim != 4 || k->dims[0] != 1 || k->dims[1] != S || k->dims[3] != D || k->dims[2] == 0 ||
      H % k->dims[2] != 0) {
    CALL_FAIL(c, Error::InvalidProgram,
              "argument 1 (key): must be [1, S = %u, kv_heads dividing %u, D = %u]", S, H, D);
  }
  const uint32_t KVH = k->dims[2];
  if (!same_dims(*k, *v)) {
    CALL_FAIL(c, Error::InvalidProgram, "argument 2 (value): must have the key's shape");
  }
  for (size_t a = 3; a <= 4; ++a) {
    const TensorInfo& cache = *c.g.tensor(c.id(a));
    const char* field = a == 3 ? "key_cache" : "value_cache";
    if (cache.ndim != 4 || cache.dims[0] != 1 || cache.dims[2] != KVH || cache.dims[3] != D ||
        cache.dims[1] == 0) {
      CALL_FAIL(c, Error::InvalidProgram, "argument %zu (%s): must be [1, ctx, %u, %u]", a, field,
                KVH, D);
    }
    // The cache keeps its rows between executes: it needs memory of its own.
    if (cache.constant_id < 0 && cache.mem_obj_id >= 0) {
      CALL_FAIL(c, Error::NotSupported,
                "argument %zu (%s): value %u shares memory object %d with other tensors", a, field,
                c.id(a), cache.mem_obj_id);
    }
  }
  if (!same_dims(*kc, *vc) || c.id(3) == c.id(4)) {
    CALL_FAIL(c, Error::InvalidProgram, "arguments 3-4 (caches): must be two tensors of one shape");
  }
  if (!same_dims(*q, *out)) {
    CALL_FAIL(c, Error::InvalidProgram, "argument 11 (out): must have the query's shape");
  }
  Position pos;
  ETR_RETURN_IF_ERROR(position_arg(c, 5, "start_pos", &pos));
  // The query's length is the number of new tokens. In a program whose
  // token count is dynamic (it reads sizes with sym_size.int) seq_len holds
  // the length the exporter traced (an Int, not the SymInt of the tokens'
  // length), so it must equal the query's length in static programs only.
  bool sized_at_run_time = false;
  for (const Operator& o : c.g.ops) sized_at_run_time |= o.name == "sym_size.int";
  int64_t seq_len = 0;
  if (c.value(6).kind == Kind::SymInt) {
    seq_len = c.value(6).int_value;
  } else {
    ETR_RETURN_IF_ERROR(int_arg(c, 6, "seq_len", &seq_len));
  }
  if (seq_len < 1 || (!sized_at_run_time && seq_len != S)) {
    CALL_FAIL(c, Error::InvalidProgram, "argument 6 (seq_len): %lld, the query has %u tokens",
              static_cast<long long>(seq_len), S);
  }
  if (c.value(7).kind != Kind::Null) {
    CALL_FAIL(c, Error::NotSupported, "argument 7 (attn_mask): only no mask runs here");
  }
  const Value& dropout = c.value(8);
  const double p = dropout.kind == Kind::Double ? dropout.double_value
                   : dropout.kind == Kind::Int  ? static_cast<double>(dropout.int_value)
                                                : -1.0;
  if (p != 0.0) {
    CALL_FAIL(c, Error::NotSupported, "argument 8 (dropout_p): must be 0");
  }
  const Value& causal = c.value(9);
  if (causal.kind != Kind::Bool || (!causal.bool_value && S != 1)) {
    CALL_FAIL(c, Error::NotSupported, "argument 9 (is_causal): only causal attention runs here");
  }
  float scale = 1.0f / std::sqrt(static_cast<float>(D));
  const Value& sv = c.value(10);
  if (sv.kind == Kind::Double) {
    scale = static_cast<float>(sv.double_value);
  } else if (sv.kind != Kind::Null) {
    CALL_FAIL(c, Error::InvalidProgram, "argument 10 (scale): value %u is a %s", c.id(10),
              to_string(sv.kind));
  }
  const uint32_t ctx = kc->dims[1];
  if (S > ctx) {
    CALL_FAIL(c, Error::InvalidProgram, "argument 0 (query): %u tokens, the cache holds %u", S,
              ctx);
  }
  if (pos.tensor == kNoId && static_cast<uint64_t>(pos.static_pos) + S > ctx) {
    CALL_FAIL(c, Error::InvalidProgram,
              "argument 5 (start_pos): %d + %u tokens pass the cache's %u", pos.static_pos, S, ctx);
  }
  if (pos.tensor != kNoId) {
    // A position from an input is checked on the host at every execute.
    Step check;
    check.kind = Step::Kind::CheckInput;
    check.op_index = c.op.index;
    check.buffers[0] = pos.tensor;
    check.num_buffers = 1;
    check.push[0] = pos.pos_index;
    check.push[1] = 0;
    check.push[2] = ctx - S;
    c.steps->push_back(check);
  }
  // Without a position tensor the shaders bind the query in its place, unread.
  const uint32_t pos_buffer = pos.tensor == kNoId ? c.id(0) : pos.tensor;
  for (size_t a = 3; a <= 4; ++a) {
    Step s = dispatch(c, Shader::KvUpdate, {c.id(a), c.id(a - 2), pos_buffer});
    s.push[0] = static_cast<uint32_t>(k->numel);
    s.push[1] = KVH * D;
    s.push[2] = ctx;
    s.push[3] = pos.pos_index;
    s.push[4] = static_cast<uint32_t>(pos.static_pos);
    ETR_RETURN_IF_ERROR(groups_1d(c, k->numel, &s));
    c.steps->push_back(s);
  }
  Step s = dispatch(c, Shader::Sdpa, {c.id(11), c.id(0), c.id(3), c.id(4), pos_buffer});
  s.push[0] = S;
  s.push[1] = H;
  s.push[2] = KVH;
  s.push[3] = D;
  s.push[4] = ctx;
  s.push[5] = pos.pos_index;
  s.push[6] = static_cast<uint32_t>(pos.static_pos);
  s.push[7] = f2u(scale);
  ETR_RETURN_IF_ERROR(groups_1d(c, q->numel, &s));
  c.steps->push_back(s);
  return Error::Ok;
}

// aten.index.Tensor(self, [indices]) -> out with one int32 index tensor on
// dim 0: out rows are self's rows at the indices (an index outside self
// gives a zero row).
Error plan_index(const Call& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 3));
  const TensorInfo *self, *out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "self", Dtype::Float32, &self));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 2, "out", Dtype::Float32, &out));
  const Value& list = c.value(1);
  if (list.kind != Kind::ValueList || list.values.size() != 1) {
    CALL_FAIL(c, Error::NotSupported, "argument 1 (indices): only one index tensor runs here");
  }
  const TensorInfo* idx = c.g.tensor(list.values[0]);
  if (idx == nullptr || idx->device != Dtype::Int32) {
    CALL_FAIL(c, Error::NotSupported, "argument 1 (indices): value %u must be an int32 tensor",
              list.values[0]);
  }
  if (self->ndim < 1 || self->dims[0] == 0) {
    CALL_FAIL(c, Error::InvalidProgram, "argument 0 (self): needs a non-empty dim 0");
  }
  const uint64_t row = self->numel / self->dims[0];
  if (out->numel != idx->numel * row || out->ndim != idx->ndim + self->ndim - 1) {
    CALL_FAIL(c, Error::InvalidProgram,
              "argument 2 (out): must be the indices' shape followed by self's row shape");
  }
  if (out->numel == 0) return Error::Ok;
  Step s = dispatch(c, Shader::Embedding, {c.id(2), c.id(0), list.values[0]});
  s.push[0] = static_cast<uint32_t>(out->numel);
  s.push[1] = static_cast<uint32_t>(row);
  s.push[2] = self->dims[0];
  ETR_RETURN_IF_ERROR(groups_1d(c, out->numel, &s));
  c.steps->push_back(s);
  return Error::Ok;
}

using CallFn = Error (*)(const Call&);

struct LlmOp {
  const char* name;
  LlmPlanFn plan;
};

template <CallFn F>
Error entry(const Graph& g, const Operator& op, const DispatchLimits& limits,
            std::vector<Step>* steps) {
  return F(Call{g, op, limits, steps});
}

#define LLM_OP(name, fn) \
  { name, entry<fn> }

const LlmOp kLlmOps[] = {
    LLM_OP("et_vk.linear_q4gsw.default", plan_linear_q4gsw),
    LLM_OP("et_vk.linear_dq8ca_q4gsw.default", plan_linear_dq8ca_q4gsw),
    LLM_OP("torchao.choose_qparams_affine.default", plan_choose_qparams),
    LLM_OP("et_vk.embedding_q4gsw.default", plan_embedding_q4gsw),
    LLM_OP("quantized_decomposed.quantize_per_tensor.default", plan_quantize_per_tensor),
    LLM_OP("quantized_decomposed.dequantize_per_tensor.default", plan_dequantize_per_tensor),
    LLM_OP("et_vk.q8ta_linear.default", plan_q8ta_linear),
    LLM_OP("et_vk.linear_q8ta_q8csw.default", plan_linear_q8ta_q8csw),
    LLM_OP("et_vk.rms_norm.default", plan_rms_norm),
    LLM_OP("et_vk.apply_rotary_emb.default", plan_rotary),
    LLM_OP("et_vk.select_as_symint.default", plan_select_as_symint),
    LLM_OP("sdpa_with_kv_cache.default", plan_sdpa_with_kv_cache),
    LLM_OP("aten.index.Tensor", plan_index),
};

}  // namespace

Error device_symint(const Graph& g, const Operator& user, uint32_t id, bool* found,
                    uint32_t* tensor, uint32_t* element) {
  *found = false;
  for (const Operator& o : g.ops) {
    if (o.index >= user.index) break;
    if (o.args.empty() || o.args.back() != id || o.name != "et_vk.select_as_symint.default") {
      continue;
    }
    *found = true;
    const DispatchLimits none{};
    const Call c{g, user, none, nullptr};
    return symint_source(c, o, tensor, element);
  }
  return Error::Ok;
}

void retype_q8csw_outputs(Graph* g) {
  for (const Operator& o : g->ops) {
    if (o.name != "et_vk.linear_q8ta_q8csw.default" || o.args.size() != 8) continue;
    const uint32_t id = o.args.back();
    if (id >= g->values.size()) continue;  // refused with its name when planned
    Value& v = g->values[id];
    if (v.kind != Kind::Tensor || v.tensor.dtype != Dtype::Int8 || v.tensor.constant_id >= 0) {
      continue;
    }
    ETR_LOG(Info,
            "VulkanBackend: delegate %zu: operator %u (%s): argument 7 (out): value %u typed int8, "
            "computed as float32",
            g->delegate_index, o.index, o.name.c_str(), id);
    v.tensor.dtype = Dtype::Float32;
    v.tensor.device = Dtype::Float32;
    if (v.tensor.staging == Dtype::Int8) v.tensor.staging = Dtype::Float32;
  }
}

LlmPlanFn find_llm_operator(const char* name) {
  for (const LlmOp& o : kLlmOps) {
    if (std::strcmp(o.name, name) == 0) return o.plan;
  }
  return nullptr;
}

}  // namespace vulkan
}  // namespace etr
